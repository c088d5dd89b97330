// What checking an offline copy whole costs (issue 43, item 5): the copy is read once and hashed by its digest chain
// (src/core/paged/verifyCopy.ts) when its keep ends and each time it opens. A pages bundle of a real library
// (docs-scale: 722 documentation files, `cli index --pages`) is checked from disk and from a Blob (as the browser's
// Cache Storage parts are read), and the rate is printed, with the load average: a copy's check at opening takes
// its size divided by that rate.
//   node --import tsx test/bench/offline-copy-check.ts [folder]
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileRangeSource } from '../../src/cli/fileRangeSource.ts';
import { run as index } from '../../src/cli/index.ts';
import { verifyBundleCopy } from '../../src/core/paged/index.ts';
import { BlobRangeSource } from '../../src/services/bundleBytes/rangeSources.ts';
import { captureCli } from '../support/captureCli.ts';

const folder = process.argv[2] ?? '../shared/bench/docs-scale/docs';
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const dir = await mkdtemp(join(tmpdir(), 'conceptrag-copy-check-'));
try {
  const out = join(dir, 'copy.bundle');
  const built = await captureCli(() =>
    index([folder, '--out', out, '--embedder', 'none', '--pages', '--quiet']),
  );
  if (built.code !== 0) throw new Error(`cli index: ${built.err}`);
  console.log(`load average ${load()}`);
  const file = await FileRangeSource.open(out);
  const MB = file.size / 2 ** 20;
  try {
    for (let run = 0; run < 3; run++) {
      const t = performance.now();
      await verifyBundleCopy(file);
      const s = (performance.now() - t) / 1000;
      console.log(`disk: ${MB.toFixed(1)} MB checked in ${s.toFixed(2)} s (${(MB / s).toFixed(0)} MB/s)`);
    }
  } finally {
    await file.close();
  }
  const blob = new Blob([await readFile(out)]);
  for (let run = 0; run < 3; run++) {
    const t = performance.now();
    await verifyBundleCopy(new BlobRangeSource(blob, 'copy.bundle'));
    const s = (performance.now() - t) / 1000;
    console.log(`Blob: ${MB.toFixed(1)} MB checked in ${s.toFixed(2)} s (${(MB / s).toFixed(0)} MB/s)`);
  }
  console.log(`load average ${load()}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}

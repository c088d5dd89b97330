// Time and peak memory of `cli info` on the hostile bundles of issue 23 (test/support/hostileBundles.ts): the
// aliased structured part (8,000 references to one 1 MB region), the 1 MB bundle inflating to 1,000 MB (declared,
// and lied about as 8 MB), beside an honest bundle of the same library. Each runs in its own process; the peak is
// the kernel's high-water mark of resident memory (it sees what one synchronous JSON.parse allocates).
//   node --import tsx test/bench/hostile-bundles.ts
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { aliasedBundle, inflationBundle, libraryParts, rawBundle } from '../support/hostileBundles.ts';
import { runMeasuredCli } from '../support/runMeasuredCli.ts';

const MB = 1024 * 1024;
const dir = await mkdtemp(join(tmpdir(), 'conceptrag-hostile-bundles-'));
const cases: Array<[string, () => Promise<Uint8Array>]> = [
  ['honest one-document bundle', async () => rawBundle(await libraryParts())],
  ['aliased: 8,000 refs → one 1 MB region', () => aliasedBundle(8000, MB)],
  ['inflation: 1,000 MB declared', () => inflationBundle(1000)],
  ['inflation: 1,000 MB, 8 MB declared', () => inflationBundle(1000, 8 * MB)],
];
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
try {
  let baseline = 0;
  for (const [name, make] of cases) {
    const bytes = await make();
    const path = join(dir, 'x.bundle');
    await writeFile(path, bytes);
    const run = await runMeasuredCli(['info', path]);
    if (!baseline) baseline = run.peakRssMB;
    const verdict = run.code === 0 ? 'valid' : (run.err.trim().split('\n').pop() ?? '').slice(0, 120);
    console.log(
      `${name.padEnd(40)} ${(bytes.length / 1024).toFixed(0).padStart(6)} KB  ` +
        `${run.seconds.toFixed(2).padStart(6)} s  peak RSS ${run.peakRssMB.toFixed(0).padStart(5)} MB ` +
        `(+${(run.peakRssMB - baseline).toFixed(0)})  ${verdict}`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

// What the KG build of a large library answered from its pages reads and holds (kgBuild.ts, rankFromPages, with
// pagedCore.ts): the build order from the pages (buildOrder in degreeRanks.ts: the whole `rows` and `degrees` sections),
// the core chunks at each κ (their records read for their ids, the estimate's and the build's list), then their
// texts a batch of 64 at a time, as the build sends them. Run here over a bundle's pages from a file, the code the
// KG worker runs over the stored pages' Blob. Printed: bytes, time and the heap used after each step (after a
// collection), the most heap seen while the texts were read (sampled every 20 batches), with the load average.
// Usage: node --expose-gc --import tsx test/bench/kg-build-order.ts <pages.bundle> [--kappa 0.05,0.2] [--texts]
//   --texts also reads every core chunk's text in the build's batches (at κ 0.8 of 100 MiB: 1,279 batches).
import process from 'node:process';
import { parseArgs } from 'node:util';
import { FileRangeSource } from '../../src/cli/fileRangeSource.ts';
import { buildOrder, openPagedBundle } from '../../src/core/paged/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { pagedCore } from '../../src/services/source/pagedCore.ts';
import { loadText, megabytes } from './lib/report.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { kappa: { type: 'string', default: '0.05,0.2' }, texts: { type: 'boolean', default: false } },
});
if (positionals.length !== 1) {
  process.stderr.write(
    'usage: node --expose-gc --import tsx test/bench/kg-build-order.ts <pages.bundle> [--kappa 0.05,0.2] [--texts]\n',
  );
  process.exit(2);
}
/** The build's batch of texts (TEXT_BATCH in src/core/atomic/build.ts). */
const BATCH = 64;
const heapUsed = (): number => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
};
const heap = () => {
  const used = heapUsed();
  return `${megabytes(used, 0)} MB + ${megabytes(process.memoryUsage().arrayBuffers, 0)} MB in array buffers`;
};
const source = await FileRangeSource.open(positionals[0]);
try {
  const paged = await openPagedBundle(source, createTermAnalyzer());
  if (!paged) throw new Error(`${positionals[0]} has no pages`);
  const { library } = paged;
  process.stdout.write(
    `${positionals[0]}: ${library.chunkCount} chunks; opened ${megabytes(source.bytesRead)} MB; heap ${heap()}; load ${loadText()}\n`,
  );
  let before = source.bytesRead;
  let t = performance.now();
  const { order } = await buildOrder(library.reader);
  library.reader.forget();
  process.stdout.write(
    `build order: ${megabytes(source.bytesRead - before)} MB read in ${(performance.now() - t).toFixed(0)} ms; heap ${heap()}; load ${loadText()}\n`,
  );
  const reader = pagedCore(library, order);
  for (const kappa of values.kappa.split(',').map(Number)) {
    before = source.bytesRead;
    t = performance.now();
    const core = await reader.core(kappa);
    process.stdout.write(
      `κ ${kappa}: ${core.length} core chunks named, ${megabytes(source.bytesRead - before)} MB read in ` +
        `${(performance.now() - t).toFixed(0)} ms; heap ${heap()}; load ${loadText()}\n`,
    );
    if (!values.texts) continue;
    before = source.bytesRead;
    t = performance.now();
    let chars = 0;
    let most = 0;
    for (let i = 0, n = 0; i < core.length; i += BATCH, n++) {
      const texts = await reader.texts(core.slice(i, i + BATCH));
      for (const text of texts) chars += text.length;
      if (n % 20 === 0) most = Math.max(most, heapUsed());
    }
    process.stdout.write(
      `κ ${kappa}: their texts in ${Math.ceil(core.length / BATCH)} batches, ${megabytes(chars)} M characters, ` +
        `${megabytes(source.bytesRead - before)} MB read in ${(performance.now() - t).toFixed(0)} ms; ` +
        `most heap seen ${megabytes(most, 0)} MB; after ${heap()}; load ${loadText()}\n`,
    );
  }
} finally {
  await source.close();
}

// What the KG build of a large library answered from its pages reads before its first call (kgBuild.ts,
// rankFromPages): the build order from the pages (PagedLibrary.buildOrder: the whole `rows` and `degrees`
// sections) and the records of the core chunks at each κ (their texts, what the build sends). Run here over a
// bundle's pages from a file, the code the KG worker runs over the stored pages' Blob. Printed: bytes, time and the
// heap used after each step, with the load average.
// Usage: node --expose-gc --import tsx test/bench/kg-build-order.ts <pages.bundle> [--kappa 0.05,0.2]
import process from 'node:process';
import { parseArgs } from 'node:util';
import { FileRangeSource } from '../../src/cli/fileRangeSource.ts';
import { coreCount } from '../../src/core/kg/index.ts';
import { openPagedBundle } from '../../src/core/paged/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { loadText, megabytes } from './lib/report.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { kappa: { type: 'string', default: '0.05,0.2' } },
});
if (positionals.length !== 1) {
  process.stderr.write(
    'usage: node --expose-gc --import tsx test/bench/kg-build-order.ts <pages.bundle> [--kappa 0.05,0.2]\n',
  );
  process.exit(2);
}
const heap = () => {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return `${megabytes(m.heapUsed, 0)} MB + ${megabytes(m.arrayBuffers, 0)} MB in array buffers`;
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
  const { order } = await library.buildOrder();
  process.stdout.write(
    `build order: ${megabytes(source.bytesRead - before)} MB read in ${(performance.now() - t).toFixed(0)} ms; heap ${heap()}; load ${loadText()}\n`,
  );
  for (const kappa of values.kappa.split(',').map(Number)) {
    const count = coreCount(order.length, kappa);
    before = source.bytesRead;
    t = performance.now();
    const records = await library.recordsAt(Array.from(order.subarray(0, count)));
    const chars = records.reduce((sum, r) => sum + r.text.length, 0);
    process.stdout.write(
      `κ ${kappa}: ${count} core chunks' records, ${megabytes(source.bytesRead - before)} MB read in ` +
        `${(performance.now() - t).toFixed(0)} ms (${megabytes(chars)} M characters of text); heap ${heap()}; load ${loadText()}\n`,
    );
  }
} finally {
  await source.close();
}

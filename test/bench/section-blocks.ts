// Round seventeen (pages version 8): a version 1–7 bundle rewritten as `cli upgrade` rewrites it, but with other
// block sizes by section than the writer's (write.ts sectionBlocksFor), to measure them with question-bytes.ts.
// `none` writes no block size of a section's own (every block the part's block size, the rows one chunk a group).
// Round nineteen (version 10): `rowBlocks=N` alone keeps the writer's block sizes and puts the rows in blocks of whole
// rows of at most N bytes (write.ts ROW_BLOCK_BYTES); `rowBlocks=0` writes none (the rows in the writer's 128-byte
// blocks, sectionBlocks.rows, as version 9).
//   node --import tsx test/bench/section-blocks.ts <in.bundle> <out.bundle> rows=256[,open=65536,…] | none | rowBlocks=N
import process from 'node:process';
import { writeBundle } from '../../src/core/bundle/index.ts';
import {
  readManifestByRanges,
  SECTIONS,
  upgradeBundleParts,
  type SectionName,
} from '../../src/core/paged/index.ts';
import { sectionBlocksFor } from '../../src/core/paged/write.ts';
import { FileRangeSource } from '../../src/cli/fileRangeSource.ts';
import { writeBundleFile } from '../../src/cli/bundleIo.ts';

const [input, output, spec] = process.argv.slice(2);
if (!input || !output || !spec) {
  process.stderr.write('usage: section-blocks.ts <in.bundle> <out.bundle> rows=256[,open=65536,…] | none\n');
  process.exit(2);
}
const sizes: Partial<Record<SectionName, number>> = {};
const rowBlocks = /^rowBlocks=(\d+)$/.exec(spec);
if (spec !== 'none' && !rowBlocks)
  for (const item of spec.split(',')) {
    const [name, value] = item.split('=');
    if (!(SECTIONS as readonly string[]).includes(name) || !(Number(value) > 0))
      throw new Error(`bad section block size ${item}`);
    sizes[name as SectionName] = Number(value);
  }
const started = performance.now();
const source = await FileRangeSource.open(input);
try {
  const manifest = await readManifestByRanges(source);
  if (!manifest) throw new Error(`${input} has no pages`);
  const { parts, base } = rowBlocks
    ? await upgradeBundleParts(
        source,
        manifest,
        undefined,
        Number(rowBlocks[1]) === 0 ? { ...sectionBlocksFor(9, false), rows: 128 } : undefined,
        Number(rowBlocks[1]),
      )
    : await upgradeBundleParts(source, manifest, undefined, sizes);
  const bytes = await writeBundleFile(output, writeBundle(parts, base));
  process.stdout.write(
    `${output}: ${spec}, ${bytes} bytes, ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
} finally {
  await source.close();
}

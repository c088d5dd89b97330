// `npm run cli -- upgrade <in.bundle> --out <out.bundle>`: rewrites a bundle's version 1 to 9 pages
// (src/core/paged) as version 10, whose block hashes are read through a tree of hash pages, whose `open` section
// (what `?bundle=` and `cli ask` read before a question) is about
// a quarter of version 1's and keeps its counts as varints, whose concept lists hold no shares and, in a small library,
// are kept in its rows (coded by concept) and read in 1 KiB blocks, and whose large library is read in 512-byte blocks
// with its rows one chunk a group in blocks of whole rows of at most 128 bytes (version 10; its open, records and
// postings in blocks of 64 KiB, 1 KiB and 1 KiB), and whose `open` holds no degree code of a concept in one chunk
// (version 9),
// without the corpus: src/core/paged/upgrade.ts. Every other part is copied as stored. The output is
// written through a temporary file and renamed into place; the input is never changed.
import { resolve } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { writeBundle } from '../core/bundle/index.ts';
import { readManifestByRanges, upgradeBundleParts } from '../core/paged/index.ts';
import { formatBytes, writeBundleFile } from './bundleIo.ts';
import { FileRangeSource } from './fileRangeSource.ts';

const USAGE =
  'usage: npm run cli -- upgrade <in.bundle> --out <out.bundle> [--evidence-entries <n>]\n' +
  "  --evidence-entries <n>  pages version 12: each chunk's tokens in blocks of n chunks read by ranges, not in\n" +
  '                          open (evidenceArrays; default 64 for a library that does not keep its lists in its\n' +
  '                          rows, none for one that does; 0: none)\n';

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      'evidence-entries': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length !== 1 || !values.out) {
    process.stderr.write(`upgrade: expected one bundle file and --out\n${USAGE}`);
    return 2;
  }
  const input = positionals[0];
  if (resolve(input) === resolve(values.out)) {
    process.stderr.write('upgrade: --out must be another file than the input (the input is kept)\n');
    return 2;
  }
  const asked = values['evidence-entries'];
  const evidenceEntries = asked === undefined ? undefined : Number(asked);
  if (evidenceEntries !== undefined && !(Number.isSafeInteger(evidenceEntries) && evidenceEntries >= 0)) {
    process.stderr.write(`upgrade: --evidence-entries must be a whole number of chunks\n${USAGE}`);
    return 2;
  }
  const started = performance.now();
  const source = await FileRangeSource.open(input);
  try {
    const manifest = await readManifestByRanges(source);
    if (!manifest) throw new Error(`${input} is not a bundle with a paged index`);
    const { parts, base, from, to } = await upgradeBundleParts(
      source,
      manifest,
      undefined,
      undefined,
      undefined,
      evidenceEntries,
    );
    const bytes = await writeBundleFile(values.out, writeBundle(parts, base));
    process.stdout.write(
      `upgrade: ${input} (pages version ${from}) → ${values.out} (pages version ${to}), ` +
        `${formatBytes(source.size)} → ${formatBytes(bytes)} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
    return 0;
  } finally {
    await source.close();
  }
}

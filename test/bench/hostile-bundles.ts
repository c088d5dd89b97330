// Time and peak memory of the CLI on hostile bundles: issue 23's (`cli info`: the aliased structured part, 8,000
// references to one 1 MB region; the 1 MB bundle inflating to 1,000 MB, declared and lied about as 8 MB) and issue
// 43's paged indexes (`cli ask` in the default mode: tiny walk degrees, a concept count of 2^32−1, a record's
// 2e9 sentences; `cli info`: 60,000 typed arrays named in descending order; `cli upgrade`: a negative IDF, a list
// offset of Infinity, 200 manifest entries aliasing the pages), beside honest bundles of the same libraries. Each
// runs in its own process (killed at 120 s); the peak is the kernel's high-water mark of resident memory (start-up
// included). "after start-up" is measured in the process from the moment the command's modules are loaded
// (test/support/measuredCli.ts), so tsx's compiling, which took 6–20 s at load ~28, is not counted; the targets
// (issue 43) are under 2 s after start-up and under 300 MB.
//   node --import tsx test/bench/hostile-bundles.ts
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  aliasedBundle,
  descendingBundle,
  inflationBundle,
  libraryParts,
  rawBundle,
} from '../support/hostileBundles.ts';
import {
  aliasedManifestBundle,
  bracketedDegreePages,
  honestPages,
  hugeCountPages,
  hugeSentencesPages,
  infiniteOffsetBundle,
  negativeIdfBundle,
  PAGES_QUESTION,
  pagesBundle,
  tinyDegreePages,
} from '../support/hostilePages.ts';
import { runMeasuredCli } from '../support/runMeasuredCli.ts';

const MB = 1024 * 1024;
const dir = await mkdtemp(join(tmpdir(), 'conceptrag-hostile-bundles-'));
type Command = 'info' | 'ask' | 'upgrade';
const pages = (make: () => ReturnType<typeof honestPages>) => async () => pagesBundle(await make());
const cases: Array<[string, Command, () => Promise<Uint8Array>]> = [
  ['honest one-document bundle', 'info', async () => rawBundle(await libraryParts())],
  ['aliased: 8,000 refs → one 1 MB region', 'info', () => aliasedBundle(8000, MB)],
  ['inflation: 1,000 MB declared', 'info', () => inflationBundle(1000)],
  ['inflation: 1,000 MB, 8 MB declared', 'info', () => inflationBundle(1000, 8 * MB)],
  ['descending: 60,000 typed arrays', 'info', () => descendingBundle(60_000)],
  ['honest pages (v2)', 'ask', pages(() => honestPages(2))],
  ['tiny walk degrees (v2)', 'ask', pages(() => tinyDegreePages(2))],
  ['tiny walk degrees (v1)', 'ask', pages(() => tinyDegreePages(1))],
  ['degree brackets (0, 1] (v2)', 'ask', pages(() => bracketedDegreePages())],
  ['conceptCounts[0] = 2^32−1', 'ask', pages(() => hugeCountPages())],
  ['record sentences {length: 2e9}', 'ask', pages(() => hugeSentencesPages())],
  ['honest pages (v1)', 'upgrade', pages(() => honestPages(1))],
  ['upgrade: idf −1000', 'upgrade', negativeIdfBundle],
  ['upgrade: listOffsets[1] = Infinity', 'upgrade', infiniteOffsetBundle],
  ['upgrade: 200 aliased manifest entries', 'upgrade', () => aliasedManifestBundle(200)],
];
const signed = (mb: number): string => `${mb >= 0 ? '+' : '−'}${Math.abs(mb).toFixed(0)}`;
const argsOf = (command: Command, path: string): string[] =>
  command === 'ask'
    ? ['ask', path, PAGES_QUESTION, '--embedder', 'none']
    : command === 'upgrade'
      ? ['upgrade', path, '--out', join(dir, 'out.bundle')]
      : ['info', path];
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
try {
  const baseline = new Map<Command, { rss: number }>();
  for (const [name, command, make] of cases) {
    const bytes = await make();
    const path = join(dir, 'x.bundle');
    await writeFile(path, bytes);
    const run = await runMeasuredCli(argsOf(command, path));
    const base = baseline.get(command) ?? { rss: run.peakRssMB };
    if (!baseline.has(command)) baseline.set(command, base);
    const verdict =
      run.code === 0
        ? 'answered'
        : run.code === null
          ? 'KILLED at 120 s'
          : (run.err.trim().split('\n').pop() ?? '').slice(0, 110);
    console.log(
      `${command.padEnd(7)} ${name.padEnd(38)} ${(bytes.length / 1024).toFixed(0).padStart(6)} KB  ` +
        `${run.seconds.toFixed(2).padStart(6)} s wall, ${run.workSeconds.toFixed(2).padStart(5)} s after start-up  ` +
        `peak RSS ${run.peakRssMB.toFixed(0).padStart(5)} MB (${signed(run.peakRssMB - base.rss)} vs honest)  ${verdict}`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

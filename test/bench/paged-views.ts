// Evaluate and the Graph view over a bundle's pages read by ranges from a file (what ?bundle= and a large library's
// stored pages do in the tab, here in Node): for an Evaluate of N questions in each mode, a question's graph, a
// concept search and the top concepts, the wall time, the bytes read from the file and the reads' rounds, each from
// a freshly opened bundle (cold: nothing cached but what opening read) and once more on the same library (warm).
// Prints one line per step, and the load average before and after. With --held, Evaluate runs over the bundle read
// whole into memory first (timed apart), as Evaluate over a library's stored pages now holds them before its first
// question (src/services/library/storedPages.ts `hold`; here the blocks are still checked against their hashes).
// Usage: node --import tsx test/bench/paged-views.ts <pages.bundle> --questions <qa.jsonl> [--count 30]
//        [--modes ppr,bm25] [--budgets 1000,3000,12000] [--graphs 5] [--search <term>] [--held]
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { FileRangeSource } from '../../src/cli/fileRangeSource.ts';
import {
  MemoryRangeSource,
  openPagedBundle,
  type PagedLibrary,
  type RangeSource,
} from '../../src/core/paged/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { parseQaSet } from '../../src/services/questions/qaSet.ts';
import { evaluateSet } from '../../src/services/query/evaluate.ts';
import { pagedLibraryGraph, pagedQuestionGraph } from '../../src/services/questions/graphView.ts';
import { loadText, megabytes } from './lib/report.ts';
import { byRanges } from '../support/askOver.ts';

const USAGE =
  'usage: node --import tsx test/bench/paged-views.ts <pages.bundle> --questions <qa.jsonl> [--count 30] ' +
  '[--modes ppr,bm25] [--budgets 1000,3000,12000] [--graphs 5] [--search <term>] [--held]';
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    questions: { type: 'string' },
    count: { type: 'string', default: '30' },
    modes: { type: 'string', default: 'ppr,bm25' },
    budgets: { type: 'string', default: '1000,3000,12000' },
    graphs: { type: 'string', default: '5' },
    search: { type: 'string' },
    held: { type: 'boolean', default: false },
  },
});
const count = Number(values.count);
const graphs = Number(values.graphs);
const budgets = values.budgets.split(',').map(Number);
if (positionals.length !== 1 || !values.questions || !(count >= 1) || !(graphs >= 0)) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
const bundle = positionals[0];
const load = loadText;
const mb = (bytes: number) => megabytes(bytes, 2);
const set = parseQaSet(values.questions, readFileSync(values.questions, 'utf8'));
const items = set.items.slice(0, count);

async function opened(
  held = false,
): Promise<{ source: RangeSource & { close?(): Promise<void> }; library: PagedLibrary; openBytes: number }> {
  const source = held ? await heldSource() : await FileRangeSource.open(bundle);
  const paged = await openPagedBundle(source, createTermAnalyzer());
  if (!paged) throw new Error(`${bundle} has no pages to read by ranges`);
  return { source, library: paged.library, openBytes: source.bytesRead };
}

/** The whole bundle in memory, its read timed (what holding the stored pages costs before the first question). */
async function heldSource(): Promise<MemoryRangeSource> {
  const t = performance.now();
  const data = await readFile(bundle);
  process.stdout.write(
    `held: ${mb(data.length)} MB read whole in ${((performance.now() - t) / 1000).toFixed(2)} s\n`,
  );
  return new MemoryRangeSource(new Uint8Array(data.buffer, data.byteOffset, data.length), bundle);
}

/** Runs `step` and prints its time, the bytes it read and what it says of itself. */
async function measured(name: string, source: RangeSource, step: () => Promise<string>): Promise<void> {
  const before = source.bytesRead;
  const t = performance.now();
  const said = await step();
  const ms = performance.now() - t;
  process.stdout.write(
    `${name}: ${(ms / 1000).toFixed(2)} s, ${mb(source.bytesRead - before)} MB read; ${said}\n`,
  );
}

process.stdout.write(`${bundle}, ${items.length} questions; load ${load()}\n`);
for (const mode of values.modes.split(',')) {
  const t = performance.now();
  const { source, library, openBytes } = await opened(values.held);
  process.stdout.write(
    `opened${values.held ? ' (held)' : ''}: ${mb(openBytes)} MB read, ${((performance.now() - t) / 1000).toFixed(2)} s\n`,
  );
  for (const pass of ['cold', 'warm']) {
    await measured(`evaluate ${mode} (${pass})`, source, async () => {
      const r = await evaluateSet(
        { set: { name: set.name, items }, modes: [mode], budgets },
        {
          source: byRanges(library),
          llm: () => Promise.reject(new Error('no endpoint')),
          signal: new AbortController().signal,
        },
      );
      const s = r.summary[mode];
      const cr = budgets.map((b) => `CR@${b} ${(100 * s.cr[String(b)]).toFixed(1)}`).join(', ');
      return `${r.questions} questions, ${cr}; per question p50 ${s.queryMs.p50} ms, p95 ${s.queryMs.p95} ms`;
    });
  }
  await source.close?.();
}

{
  const { source, library } = await opened();
  for (const item of items.slice(0, graphs)) {
    for (const pass of ['cold', 'warm']) {
      await measured(`question graph (${pass})`, source, async () => {
        const g = await pagedQuestionGraph(library, item.question);
        return (
          `${g.reads!.rounds} rounds, ${g.seeds.length} seeds, ${g.concepts.length} concepts, ` +
          `${g.edges.length} edges, ${g.chunks.length} chunks, ${g.touched} touched: “${item.question.slice(0, 60)}”`
        );
      });
    }
  }
  await source.close?.();
}

{
  const { source, library } = await opened();
  let top = '';
  for (const pass of ['cold', 'warm']) {
    await measured(`top concepts by weighted degree (${pass})`, source, async () => {
      const g = await pagedLibraryGraph(library, {});
      top = g.nodes[0]?.term ?? '';
      return `${g.reads!.rounds} rounds, ${g.nodes.length} concepts, ${g.edges.length} edges; first: ${g.nodes
        .slice(0, 5)
        .map((n) => n.term)
        .join(', ')}`;
    });
  }
  await source.close?.();
  const searches = values.search ? [values.search] : [];
  // A middling concept of the first question's words, and the top concept (a hub: its row is the largest).
  const probe = await opened();
  const first = (await pagedQuestionGraph(probe.library, items[0].question)).seeds[0]?.term;
  await probe.source.close?.();
  if (first) searches.push(first);
  if (top) searches.push(top);
  for (const search of searches) {
    const fresh = await opened();
    for (const pass of ['cold', 'warm']) {
      await measured(`concept search “${search}” (${pass})`, fresh.source, async () => {
        const g = await pagedLibraryGraph(fresh.library, { search });
        return `${g.reads!.rounds} rounds, focus ${g.focus === undefined ? 'none' : g.nodes[0].term} (${g.nodes[0]?.chunks ?? 0} chunks), ${g.nodes.length} concepts, ${g.edges.length} edges, ${g.matches.length} matches`;
      });
    }
    await fresh.source.close?.();
  }
}
process.stdout.write(`load ${load()}\n`);

// Per question, where the gold documents rank when a set is asked in its own folder and inside a mixed library, in
// the default mode and in bm25, with the question's blend (words vs walk) in each and where the mixed library's
// best documents come from: to read why a set loses when other collections sit beside it.
// Usage: node --import tsx test/bench/mixed-ranks.ts --own <folder> --mixed <folder> --questions <jsonl>
//          [--limit N] [--param key=value]... [--compare key=value]... [--only-changed]
// --compare asks the default mode a second time under those query-time parameters (engine.withParams), as the
// column "<mode>+compare", in the same process: a before/after of a query-time change on one build.
import process from 'node:process';
import { parseArgs } from 'node:util';
import { loadQuestions, prepareCorpus, type PreparedCorpus } from '../../src/cli/benchData.ts';
import { questionTerms } from '../../src/core/graph/index.ts';
import { DEFAULT_MODE, parseParamOverride, RetrievalEngine } from '../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { collectionOrigin } from './lib/collectionOrigin.ts';

const { values: opts } = parseArgs({
  options: {
    own: { type: 'string' },
    mixed: { type: 'string' },
    questions: { type: 'string' },
    limit: { type: 'string' },
    'only-changed': { type: 'boolean', default: false },
    param: { type: 'string', multiple: true, default: [] },
    compare: { type: 'string', multiple: true, default: [] },
  },
});
if (!opts.own || !opts.mixed || !opts.questions)
  throw new Error('mixed-ranks: --own, --mixed and --questions are required');
const params = Object.fromEntries(opts.param.map(parseParamOverride));
const compare = Object.fromEntries(opts.compare.map(parseParamOverride));
const COMPARED = `${DEFAULT_MODE}+compare`;
const analyzer = createTermAnalyzer();

interface Library {
  corpus: PreparedCorpus;
  engine: RetrievalEngine;
  conceptIds: Map<string, number>;
}
async function open(path: string): Promise<Library> {
  const t = performance.now();
  // A loaded machine parses a Wikipedia .jsonl past the browser's 30 s: the bench waits (10 min).
  const corpus = await prepareCorpus(path, 1200, 'auto', 600_000);
  const engine = RetrievalEngine.build(
    { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
    analyzer,
    params,
  );
  process.stderr.write(
    `mixed-ranks: ${path}: ${corpus.retrievalChunks.length} chunks in ${((performance.now() - t) / 1000).toFixed(0)} s\n`,
  );
  return { corpus, engine, conceptIds: new Map(engine.graph.table.terms.map((c, i) => [c, i])) };
}

const originOf = await collectionOrigin(opts.mixed);

const own = await open(opts.own);
const mixed = await open(opts.mixed);
const questions = (await loadQuestions(opts.questions)).slice(0, Number(opts.limit ?? Infinity));

const variants = new Map<Library, RetrievalEngine>();
function ranking(lib: Library, mode: string, text: string): string[] {
  const docs: string[] = [];
  let engine = lib.engine;
  if (mode === COMPARED) {
    if (!variants.has(lib)) variants.set(lib, lib.engine.withParams(compare));
    engine = variants.get(lib)!;
    mode = DEFAULT_MODE;
  }
  for (const hit of engine.search({ text }, mode, 50_000)) {
    const id = lib.corpus.externalIds.get(hit.docId) ?? hit.docId;
    if (!docs.includes(id)) docs.push(id);
    if (docs.length >= 50) break;
  }
  return docs;
}

const at = (ranks: number[], k: number) => ranks.filter((x) => x > 0 && x <= k).length / ranks.length;
const sums: Record<string, number> = {};
const add = (key: string, v: number) => (sums[key] = (sums[key] ?? 0) + v);
for (const q of questions) {
  const gold = q.supporting ?? [];
  if (!gold.length) continue;
  const line: string[] = [];
  let changed = false;
  for (const mode of [DEFAULT_MODE, 'bm25', ...(opts.compare.length ? [COMPARED] : [])]) {
    const o = ranking(own, mode, q.question);
    const m = ranking(mixed, mode, q.question);
    const ro = gold.map((g) => o.indexOf(g) + 1);
    const rm = gold.map((g) => m.indexOf(g) + 1);
    for (const k of [2, 5]) {
      add(`${mode} own R@${k}`, at(ro, k));
      add(`${mode} mixed R@${k}`, at(rm, k));
    }
    if (at(ro, 5) !== at(rm, 5) || at(ro, 2) !== at(rm, 2)) changed = true;
    line.push(
      `${mode} own ${ro.join(',')} mixed ${rm.join(',')} [mixed top: ${m
        .slice(0, 5)
        .map((id) => `${originOf(id)}:${id.slice(0, 28)}`)
        .join(' ')}]`,
    );
  }
  if (opts['only-changed'] && !changed) continue;
  const t = mixed.engine.graph.table;
  const terms = questionTerms(analyzer, q.question, mixed.conceptIds).map((term) => {
    const c = mixed.conceptIds.get(term);
    const oc = own.conceptIds.get(term);
    const df = (tab: typeof t, id: number | undefined) =>
      id === undefined ? '-' : String(tab.conceptChunkOffsets[id + 1] - tab.conceptChunkOffsets[id]);
    return `${term}[${df(own.engine.graph.table, oc)}/${df(t, c)}]`;
  });
  process.stdout.write(
    `${q.id} ${q.question}\n  ${line.join('\n  ')}\n  terms [df own/mixed]: ${terms.join(' ')}\n`,
  );
}
const n = questions.filter((q) => q.supporting?.length).length;
process.stdout.write(
  Object.entries(sums)
    .map(([k, v]) => `${k} ${((100 * v) / n).toFixed(1)}`)
    .join('\n') + '\n',
);

// Per question, the walk-vs-words choice (questionBlend.ts) in a set's own folder and inside a mixed library: the
// blend, the collections of the best BM25F chunks it reads, and where the gold documents rank in the default mode,
// in bm25, and with the blend forced to 0 (the walk ranks) and to 1 (the words rank). To read whether a set loses
// in a mixed library because its questions are walked or worded differently there.
// Usage: node --import tsx test/bench/mixed-blend.ts --own <folder|jsonl> --mixed <folder> --questions <jsonl>
//          [--limit N] [--param key=value]...
import process from 'node:process';
import { parseArgs } from 'node:util';
import { loadQuestions, prepareCorpus, type PreparedCorpus } from '../../src/cli/benchData.ts';
import { DEFAULT_MODE, parseParamOverride, RetrievalEngine } from '../../src/core/retrieval/index.ts';
import { questionBlend, titleGroupSizes } from '../../src/core/retrieval/questionBlend.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { collectionOrigin } from './lib/collectionOrigin.ts';

const { values: opts } = parseArgs({
  options: {
    own: { type: 'string' },
    mixed: { type: 'string' },
    questions: { type: 'string' },
    limit: { type: 'string' },
    param: { type: 'string', multiple: true, default: [] },
  },
});
if (!opts.own || !opts.mixed || !opts.questions)
  throw new Error('mixed-blend: --own, --mixed and --questions are required');
const params = Object.fromEntries(opts.param.map(parseParamOverride));
const analyzer = createTermAnalyzer();

interface Searchable {
  search(terms: readonly string[], limit: number): Array<{ chunk: number; score: number }>;
}
interface Library {
  corpus: PreparedCorpus;
  engine: RetrievalEngine;
  walk: RetrievalEngine;
  words: RetrievalEngine;
  fields: Searchable;
  groups: Uint32Array;
}
async function open(path: string): Promise<Library> {
  const corpus = await prepareCorpus(path, 1200, 'auto', 600_000);
  const engine = RetrievalEngine.build(
    { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
    analyzer,
    params,
  );
  return {
    corpus,
    engine,
    // blendFrom above any mean log2(1 + chunks): blend 0; blendTo below 1 (a one-chunk document): blend 1.
    walk: engine.withParams({ blendFrom: 1000, blendTo: 1001 }),
    words: engine.withParams({ blendFrom: -2, blendTo: -1 }),
    fields: (engine as unknown as { fieldBm25: Searchable }).fieldBm25,
    groups: titleGroupSizes(corpus.retrievalChunks),
  };
}

const originOf = await collectionOrigin(opts.mixed);

const own = await open(opts.own);
const mixed = await open(opts.mixed);
const questions = (await loadQuestions(opts.questions)).slice(0, Number(opts.limit ?? Infinity));

function ranks(lib: Library, engine: RetrievalEngine, mode: string, text: string, gold: string[]): number[] {
  const docs: string[] = [];
  for (const hit of engine.search({ text }, mode, 50_000)) {
    const id = lib.corpus.externalIds.get(hit.docId) ?? hit.docId;
    if (!docs.includes(id)) docs.push(id);
    if (docs.length >= 50) break;
  }
  return gold.map((g) => docs.indexOf(g) + 1);
}
function blendOf(lib: Library, text: string): { blend: number; top: string[] } {
  const p = lib.engine.params;
  const top = lib.fields.search(analyzer.terms(text), p.blendNeighbours);
  const blend = questionBlend(
    { topChunks: top.map((c) => c.chunk), documentChunks: (k) => lib.groups[k] },
    { neighbours: p.blendNeighbours, from: p.blendFrom, to: p.blendTo },
  );
  const names = top.map((c) => {
    const id = lib.corpus.retrievalChunks[c.chunk].docId;
    const ext = lib.corpus.externalIds.get(id) ?? id;
    return `${originOf(ext).slice(0, 8)}(${lib.groups[c.chunk]})`;
  });
  return { blend, top: names };
}

const at = (r: number[], k: number) => r.filter((x) => x > 0 && x <= k).length / r.length;
const sums: Record<string, number> = {};
const add = (key: string, v: number) => (sums[key] = (sums[key] ?? 0) + v);
let n = 0;
for (const q of questions) {
  const gold = q.supporting ?? [];
  if (!gold.length) continue;
  n++;
  const out: string[] = [];
  for (const [name, lib] of [
    ['own', own],
    ['mixed', mixed],
  ] as const) {
    const { blend, top } = blendOf(lib, q.question);
    add(`${name} blend>0`, blend > 0 ? 1 : 0);
    const cols: string[] = [];
    for (const [label, engine, mode] of [
      ['default', lib.engine, DEFAULT_MODE],
      ['bm25', lib.engine, 'bm25'],
      ['walk', lib.walk, DEFAULT_MODE],
      ['words', lib.words, DEFAULT_MODE],
    ] as const) {
      const r = ranks(lib, engine, mode, q.question, gold);
      add(`${name} ${label} R@2`, at(r, 2));
      add(`${name} ${label} R@5`, at(r, 5));
      cols.push(`${label} ${r.join(',')}`);
    }
    out.push(`${name} blend ${blend.toFixed(2)} [${top.join(' ')}] ${cols.join(' | ')}`);
  }
  process.stdout.write(`${q.id} ${q.question}\n  ${out.join('\n  ')}\n`);
}
process.stdout.write(
  Object.entries(sums)
    .map(([k, v]) => `${k} ${((100 * v) / n).toFixed(1)}`)
    .join('\n') + '\n',
);

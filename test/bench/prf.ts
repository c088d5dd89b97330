// Pseudo-relevance feedback through the concept graph (issue 45, Build 3), tried as an experiment outside the app:
// per question, the default mode's best FEEDBACK_DOCS documents give their concepts (TF-IDF weight in the chunk,
// divided by the document's rank), the EXPANSION best concepts not already in the question are appended to its text,
// and the question is ranked again. Prints R@2 / R@5 over distinct documents (as question-ranks.ts counts them) for
// default and bm25, without and with the expansion. FEEDBACK_DOCS and EXPANSION are RM3's usual small values, fixed
// before any run, not tuned.
// Usage: node --import tsx test/bench/prf.ts --corpus <jsonl|folder> --questions <jsonl> [--limit N]
import process from 'node:process';
import { parseArgs } from 'node:util';
import { loadQuestions, prepareCorpus } from '../../src/cli/benchData.ts';
import { DEFAULT_MODE, RetrievalEngine } from '../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';

const FEEDBACK_DOCS = 3;
const EXPANSION = 5;

const { values: opts } = parseArgs({
  options: {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    limit: { type: 'string' },
  },
});
if (!opts.corpus || !opts.questions) throw new Error('prf: --corpus and --questions are required');
const corpus = await prepareCorpus(opts.corpus, 1200);
const questions = (await loadQuestions(opts.questions)).slice(0, opts.limit ? Number(opts.limit) : undefined);
const analyzer = createTermAnalyzer();
const engine = RetrievalEngine.build(
  { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
  analyzer,
);
const external = (docId: string) => corpus.externalIds.get(docId) ?? docId;
const chunkIndex = new Map(engine.chunkIds.map((id, k) => [id, k]));
const table = engine.graph.table;

/** Distinct documents of a ranking, best first, with the first chunk of each. */
function ranked(mode: string, text: string): Array<{ doc: string; chunk: number }> {
  const out: Array<{ doc: string; chunk: number }> = [];
  for (const hit of engine.search({ text }, mode, 50_000)) {
    const doc = external(hit.docId);
    if (!out.some((o) => o.doc === doc)) out.push({ doc, chunk: chunkIndex.get(hit.chunkId)! });
    if (out.length >= 10) break;
  }
  return out;
}

/** The question with the best passages' concepts appended. */
function expanded(text: string): string {
  const own = new Set(engine.terms(text));
  const weight = new Map<number, number>();
  ranked(DEFAULT_MODE, text)
    .slice(0, FEEDBACK_DOCS)
    .forEach(({ chunk }, r) => {
      for (let o = table.chunkConceptOffsets[chunk]; o < table.chunkConceptOffsets[chunk + 1]; o++) {
        const c = table.chunkConcepts[o];
        weight.set(c, (weight.get(c) ?? 0) + table.chunkConceptWeights[o] / (r + 1));
      }
    });
  const picked = [...weight]
    .filter(([c]) => !own.has(table.terms[c]))
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, EXPANSION)
    .map(([c]) => table.terms[c]);
  return `${text} ${picked.join(' ')}`;
}

const at = (docs: string[], gold: readonly string[], k: number) =>
  gold.filter((g) => docs.slice(0, k).includes(g)).length / gold.length;
const sums: Record<string, [number, number]> = {};
let asked = 0;
for (const q of questions) {
  const gold = q.supporting ?? [];
  if (!gold.length) continue;
  asked++;
  const more = expanded(q.question);
  for (const mode of [DEFAULT_MODE, 'bm25']) {
    for (const [name, text] of [
      [mode, q.question],
      [`${mode}+prf`, more],
    ]) {
      const docs = ranked(mode, text).map((o) => o.doc);
      const s = (sums[name] ??= [0, 0]);
      s[0] += at(docs, gold, 2);
      s[1] += at(docs, gold, 5);
    }
  }
}
for (const [name, [r2, r5]] of Object.entries(sums))
  process.stdout.write(
    `${name.padEnd(12)} R@2 ${((100 * r2) / asked).toFixed(1)}  R@5 ${((100 * r5) / asked).toFixed(1)}  (${asked} questions)\n`,
  );

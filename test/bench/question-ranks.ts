// Per question, where each gold document ranks (first distinct documents) in the default mode and in bm25, with the
// question's concept terms and the IDF of each as a walk seed: to read why a set's default falls behind its words.
// Usage: node --import tsx test/bench/question-ranks.ts --corpus <jsonl|folder> --questions <jsonl>
//          [--only-worse] [--param key=value]...
import process from 'node:process';
import { parseArgs } from 'node:util';
import { loadQuestions, prepareCorpus } from '../../src/cli/benchData.ts';
import { questionTerms } from '../../src/core/graph/index.ts';
import { DEFAULT_MODE, parseParamOverride, RetrievalEngine } from '../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';

const { values: opts } = parseArgs({
  options: {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    'only-worse': { type: 'boolean', default: false },
    param: { type: 'string', multiple: true, default: [] },
  },
});
if (!opts.corpus || !opts.questions) throw new Error('question-ranks: --corpus and --questions are required');
const corpus = await prepareCorpus(opts.corpus, 1200);
const questions = await loadQuestions(opts.questions);
const analyzer = createTermAnalyzer();
const engine = RetrievalEngine.build(
  { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
  analyzer,
  Object.fromEntries(opts.param.map(parseParamOverride)),
);
const conceptIds = new Map(engine.graph.table.terms.map((c, i) => [c, i]));
const external = (docId: string) => corpus.externalIds.get(docId) ?? docId;

/** 1-based rank of each gold document among the ranking's distinct documents (0 = not in the first 50). */
function goldRanks(mode: string, text: string, gold: readonly string[]): number[] {
  const docs: string[] = [];
  for (const hit of engine.search({ text }, mode, 50_000)) {
    const id = external(hit.docId);
    if (!docs.includes(id)) docs.push(id);
    if (docs.length >= 50) break;
  }
  return gold.map((g) => docs.indexOf(g) + 1);
}

const sum = { default: [0, 0], bm25: [0, 0] };
for (const q of questions) {
  const gold = q.supporting ?? [];
  if (!gold.length) continue;
  const d = goldRanks(DEFAULT_MODE, q.question, gold);
  const b = goldRanks('bm25', q.question, gold);
  const at2 = (r: number[]) => r.filter((x) => x > 0 && x <= 2).length / r.length;
  sum.default[0] += at2(d);
  sum.bm25[0] += at2(b);
  if (opts['only-worse'] && at2(d) >= at2(b)) continue;
  const t = engine.graph.table;
  const terms = questionTerms(analyzer, q.question, conceptIds).map((term) => {
    const c = conceptIds.get(term);
    return c === undefined ? term : `${term}[df ${t.conceptChunkOffsets[c + 1] - t.conceptChunkOffsets[c]}]`;
  });
  process.stdout.write(
    `${q.id} default ${d.join(',')} bm25 ${b.join(',')}  ${q.question}\n    terms: ${terms.join(' ')}\n`,
  );
}
process.stdout.write(
  `R@2 default ${((100 * sum.default[0]) / questions.length).toFixed(1)} bm25 ${((100 * sum.bm25[0]) / questions.length).toFixed(1)}\n`,
);

// Per question, whether the answer is in the first --budget tokens of the default mode's evidence and of bm25's,
// and for every question where they differ, the pieces each showed (document, tokens, whole or excerpt, whether
// the piece holds the answer): to read whether the default loses context recall by its ranking or by its packing.
// Usage: node --import tsx test/bench/evidence-misses.ts --corpus <jsonl|folder> --questions <jsonl>
//          [--budget 1000] [--param key=value]... [--all]
import process from 'node:process';
import { parseArgs } from 'node:util';
import { loadQuestions, prepareCorpus } from '../../src/cli/benchData.ts';
import { contextRecall, scoreQaItem } from '../../src/core/metrics.ts';
import { DEFAULT_MODE, parseParamOverride, RetrievalEngine } from '../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';

const { values: opts } = parseArgs({
  options: {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    budget: { type: 'string', default: '1000' },
    param: { type: 'string', multiple: true, default: [] },
    all: { type: 'boolean', default: false },
  },
});
if (!opts.corpus || !opts.questions)
  throw new Error('evidence-misses: --corpus and --questions are required');
const budget = Number(opts.budget);
const corpus = await prepareCorpus(opts.corpus, 1200);
const questions = await loadQuestions(opts.questions);
const engine = RetrievalEngine.build(
  { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
  createTermAnalyzer(),
  Object.fromEntries(opts.param.map(parseParamOverride)),
);
const external = (docId: string) => corpus.externalIds.get(docId) ?? docId;

const found = { default: 0, bm25: 0 };
for (const q of questions) {
  const row: Record<string, { cr: number; pieces: string[] }> = {};
  for (const mode of [DEFAULT_MODE, 'bm25']) {
    const hits = engine.search({ text: q.question }, mode, 12_000);
    const score = await scoreQaItem({ answers: q.answers, supporting: q.supporting ?? [] }, hits, {
      budgets: [budget],
      ks: [2],
      externalId: external,
      searchAt: async (b) => engine.search({ text: q.question }, mode, b),
    });
    let used = 0;
    const pieces: string[] = [];
    for (const h of hits) {
      if (used + h.tokens > budget) {
        pieces.push(`| next ${external(h.docId)} ${h.tokens}t`);
        break;
      }
      used += h.tokens;
      const has = contextRecall(`${h.heading ?? ''}\n${h.text}`, q.answers) ? '*' : ' ';
      const gold = (q.supporting ?? []).includes(external(h.docId)) ? 'G' : ' ';
      pieces.push(
        `${has}${gold} ${external(h.docId)} ${h.tokens}t${h.excerptStart !== undefined ? ` @${h.excerptStart}` : ''}`,
      );
    }
    row[mode] = { cr: score.cr[0], pieces };
  }
  found.default += row[DEFAULT_MODE].cr;
  found.bm25 += row.bm25.cr;
  if (!opts.all && row[DEFAULT_MODE].cr === row.bm25.cr) continue;
  process.stdout.write(
    `${q.id} default ${row[DEFAULT_MODE].cr} bm25 ${row.bm25.cr}  ${q.question}  [${q.answers.join(' | ')}]\n` +
      `  default: ${row[DEFAULT_MODE].pieces.join('; ')}\n  bm25:    ${row.bm25.pieces.join('; ')}\n`,
  );
}
const pct = (x: number) => ((100 * x) / questions.length).toFixed(1);
process.stdout.write(`CR@${budget} default ${pct(found.default)} bm25 ${pct(found.bm25)}\n`);

// What fills a question's first --budget tokens in the default mode under each named setting (issue 45: which passage
// a ranking change pushes past the budget). Per question: each hit's tokens, the running total, whether it holds an
// answer string (ANS) and whether it is a gold passage (*).
// Usage: node --import tsx test/bench/budget-trace.ts --corpus <jsonl|folder> --questions <jsonl> --id <question id>...
//          [--budget 1000] [--setting '{"bridgeSlots":0}']...
import process from 'node:process';
import { parseArgs } from 'node:util';
import { loadQuestions, prepareCorpus } from '../../src/cli/benchData.ts';
import { DEFAULT_MODE, RetrievalEngine } from '../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';

const { values: opts } = parseArgs({
  options: {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    id: { type: 'string', multiple: true, default: [] },
    budget: { type: 'string', default: '1000' },
    setting: { type: 'string', multiple: true, default: ['{"bridgeSlots":0}', '{}'] },
  },
});
if (!opts.corpus || !opts.questions) throw new Error('budget-trace: --corpus and --questions are required');
const corpus = await prepareCorpus(opts.corpus, 1200);
const questions = (await loadQuestions(opts.questions)).filter((q) => opts.id.includes(q.id));
const engine = RetrievalEngine.build(
  { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
  createTermAnalyzer(),
  {},
);
for (const q of questions) {
  process.stdout.write(`\n${q.id} ${q.question} answers ${JSON.stringify(q.answers)}\n`);
  for (const setting of opts.setting) {
    const hits = engine
      .withParams(JSON.parse(setting) as Record<string, number>)
      .search({ text: q.question }, DEFAULT_MODE, Number(opts.budget));
    process.stdout.write(` ${setting}\n`);
    let total = 0;
    for (const h of hits) {
      total += h.tokens ?? 0;
      const id = corpus.externalIds.get(h.docId) ?? h.docId;
      const answer = q.answers.some((a) => h.text.toLowerCase().includes(a.toLowerCase())) ? 'ANS' : '   ';
      const gold = (q.supporting ?? []).includes(id) ? '*' : ' ';
      process.stdout.write(
        `   ${answer} ${gold} ${String(h.tokens).padStart(4)} ${String(total).padStart(5)} | ` +
          `${h.text.slice(0, 90).replace(/\n/g, ' ')}\n`,
      );
    }
  }
}

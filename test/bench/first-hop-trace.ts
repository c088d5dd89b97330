// First-hop misses of a Wikipedia set (issue 45): for each labelled question with no gold passage in the default
// mode's top 5, the top 8 (default and bm25), where each gold passage ranks in both, and the question's concept terms
// with their df and which of them each gold passage holds.
// Usage: node --import tsx test/bench/first-hop-trace.ts --corpus <jsonl> --questions <jsonl> [--all] [--param k=v]...
import { readFileSync } from 'node:fs';
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
    all: { type: 'boolean', default: false },
    param: { type: 'string', multiple: true, default: [] },
  },
});
if (!opts.corpus || !opts.questions)
  throw new Error('first-hop-trace: --corpus and --questions are required');
const corpus = await prepareCorpus(opts.corpus, 1200, undefined, 600_000);
const questions = await loadQuestions(opts.questions);
const passages = new Map<string, string>();
for (const line of readFileSync(opts.corpus, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const p = JSON.parse(line) as { id: string; title: string; text: string };
  passages.set(p.id, (p.title ? `[${p.title}] ` : '') + p.text);
}
const analyzer = createTermAnalyzer();
const engine = RetrievalEngine.build(
  { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
  analyzer,
  Object.fromEntries(opts.param.map(parseParamOverride)),
);
const conceptIds = new Map(engine.graph.table.terms.map((c, i) => [c, i]));
const t = engine.graph.table;
const external = (docId: string) => corpus.externalIds.get(docId) ?? docId;
const docsOf = (mode: string, text: string) => {
  const docs: string[] = [];
  for (const hit of engine.search({ text }, mode, 50_000)) {
    const id = external(hit.docId);
    if (!docs.includes(id)) docs.push(id);
    if (docs.length >= 200) break;
  }
  return docs;
};
for (const q of questions) {
  const gold = q.supporting ?? [];
  if (!gold.length) continue;
  const d = docsOf(DEFAULT_MODE, q.question);
  const dr = gold.map((g) => d.indexOf(g) + 1);
  if (!opts.all && dr.some((r) => r > 0 && r <= 5)) continue;
  const b = docsOf('bm25', q.question);
  const br = gold.map((g) => b.indexOf(g) + 1);
  const terms = questionTerms(analyzer, q.question, conceptIds);
  const df = (term: string) => {
    const c = conceptIds.get(term);
    return c === undefined ? '-' : String(t.conceptChunkOffsets[c + 1] - t.conceptChunkOffsets[c]);
  };
  process.stdout.write(`\n${q.id} default ${dr.join(',')} bm25 ${br.join(',')}  ${q.question}\n`);
  process.stdout.write(`  terms: ${terms.map((x) => `${x}[${df(x)}]`).join(' ')}\n`);
  process.stdout.write(`  words: ${analyzer.terms(q.question).join(' ')}\n`);
  gold.forEach((g) => {
    const text = passages.get(g) ?? '';
    const lower = analyzer.terms(text);
    const has = terms.filter((x) => (x.includes(' ') ? text.toLowerCase().includes(x) : lower.includes(x)));
    process.stdout.write(`  gold ${g}: holds {${has.join(', ')}} ${text.slice(0, 220)}\n`);
  });
  d.slice(0, 6).forEach((id, i) =>
    process.stdout.write(`  d${i + 1} ${(passages.get(id) ?? id).slice(0, 130)}\n`),
  );
  b.slice(0, 3).forEach((id, i) =>
    process.stdout.write(`  b${i + 1} ${(passages.get(id) ?? id).slice(0, 130)}\n`),
  );
}

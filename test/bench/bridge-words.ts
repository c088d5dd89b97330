// Bridge words of multi-hop misses (issue 45): per labelled question of a Wikipedia set, the gold passages outside
// the default mode's top 5, and for each the words it shares with a gold passage inside the top 5 that the question
// does not write (the bridge), with their IDF, whether they are capitalised in the found passage (a name) and whether
// they are one of the found passage's concepts; and the question's words the missed passage holds. A census of the
// kinds closes the output. Tuning half only unless --all.
// Usage: node --import tsx test/bench/bridge-words.ts --corpus <jsonl> --questions <jsonl> [--split 250] [--all]
//          [--param key=value]...
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { loadQuestions, prepareCorpus } from '../../src/cli/benchData.ts';
import { DEFAULT_MODE, parseParamOverride, RetrievalEngine } from '../../src/core/retrieval/index.ts';
import { STEM_PREFIX } from '../../src/core/graph/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';

const { values: opts } = parseArgs({
  options: {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    split: { type: 'string', default: '250' },
    all: { type: 'boolean', default: false },
    param: { type: 'string', multiple: true, default: [] },
  },
});
if (!opts.corpus || !opts.questions) throw new Error('bridge-words: --corpus and --questions are required');
const split = Number(opts.split);
const corpus = await prepareCorpus(opts.corpus, 1200, undefined, 600_000);
const questions = await loadQuestions(opts.questions);
const passages = new Map<string, string>();
for (const line of readFileSync(opts.corpus, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const p = JSON.parse(line) as { id: string; title: string; text: string };
  passages.set(p.id, `${p.title ? `${p.title}. ` : ''}${p.text}`);
}
const analyzer = createTermAnalyzer();
const engine = RetrievalEngine.build(
  { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
  analyzer,
  Object.fromEntries(opts.param.map(parseParamOverride)),
);
const external = (docId: string) => corpus.externalIds.get(docId) ?? docId;
const words = (text: string) => new Set(analyzer.terms(text).filter((t) => !t.startsWith(STEM_PREFIX)));
const capitalised = (text: string) =>
  new Set(
    (text.match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}'’.-]*/gu) ?? [])
      .filter((t, i) => i > 0 && /^\p{Lu}/u.test(t))
      .flatMap((t) => analyzer.terms(t)),
  );
const df = new Map<string, number>();
for (const text of passages.values()) for (const w of words(text)) df.set(w, (df.get(w) ?? 0) + 1);
const idf = (w: string) => Math.log(1 + (passages.size - (df.get(w) ?? 0) + 0.5) / ((df.get(w) ?? 0) + 0.5));
const census = new Map<string, number>();
const count = (k: string) => census.set(k, (census.get(k) ?? 0) + 1);
questions.forEach((q, index) => {
  const gold = q.supporting ?? [];
  if (!gold.length || (!opts.all && index >= split)) return;
  const docs: string[] = [];
  for (const hit of engine.search({ text: q.question }, DEFAULT_MODE, 50_000)) {
    const id = external(hit.docId);
    if (!docs.includes(id)) docs.push(id);
    if (docs.length >= 200) break;
  }
  const ranks = gold.map((g) => docs.indexOf(g) + 1);
  if (ranks.every((r) => r > 0 && r <= 5)) return;
  const qWords = words(q.question);
  const found = gold.filter((_, i) => ranks[i] > 0 && ranks[i] <= 5);
  process.stdout.write(
    `${index} ranks ${ranks.join(',')} top1 ${gold.includes(docs[0]) ? 'gold' : 'other'}  ${q.question}\n`,
  );
  gold.forEach((g, i) => {
    const text = passages.get(g) ?? '';
    const mark = ranks[i] > 0 && ranks[i] <= 5 ? 'found' : 'MISSED';
    process.stdout.write(`   ${mark} r${ranks[i]}: ${text.slice(0, 160)}\n`);
    if (mark === 'found') return;
    const gw = words(text);
    const inQ = [...gw].filter((w) => qWords.has(w));
    process.stdout.write(`      question words in it: ${inQ.join(' ')}\n`);
    let bridged = false;
    const kinds = new Set<string>();
    for (const f of found) {
      const ft = passages.get(f) ?? '';
      const caps = capitalised(ft);
      const shared = [...words(ft)].filter((w) => gw.has(w) && !qWords.has(w));
      const shown = shared
        .map((w) => ({ w, idf: idf(w), cap: caps.has(w) }))
        .filter((x) => x.idf > 2)
        .sort((a, b) => b.idf - a.idf);
      if (shown.length) bridged = true;
      for (const x of shown) kinds.add(x.cap ? 'name' : 'word');
      process.stdout.write(
        `      bridge from found: ${shown.map((x) => `${x.w}${x.cap ? '^' : ''}:${x.idf.toFixed(1)}`).join(' ')}\n`,
      );
    }
    if (!found.length) count('no gold found');
    else if (!bridged) count('found gold, no shared rare word');
    else count(`shared rare word: ${[...kinds].sort().join('+')}`);
    count(`question words in missed: ${Math.min(inQ.length, 4)}${inQ.length >= 4 ? '+' : ''}`);
  });
});
for (const [k, v] of [...census].sort()) process.stdout.write(`${v} × ${k}\n`);

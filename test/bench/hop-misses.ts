// Multi-hop misses of the default mode on a Wikipedia set (issue 45): per question, where each gold passage ranks
// among the first distinct documents, R@2 / R@5 for the tuning half (question index < --split, default 250) and the
// held-out half separately, and a census of why a gold passage is missing from the top 5: its title is named in the
// question, it is named (by title) only in the gold passage that was found (a bridge), or neither.
// Usage: node --import tsx test/bench/hop-misses.ts --corpus <jsonl> --questions <jsonl> [--split 250]
//          [--param key=value]... [--grid key=v1,v2]... [--trace] [--modes default,bm25]
// One build per run; --grid values (query-time parameters) reuse it, one line per combination.
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { loadQuestions, prepareCorpus } from '../../src/cli/benchData.ts';
import { DEFAULT_MODE, parseParamOverride, RetrievalEngine } from '../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';

const { values: opts } = parseArgs({
  options: {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    split: { type: 'string', default: '250' },
    param: { type: 'string', multiple: true, default: [] },
    grid: { type: 'string', multiple: true, default: [] },
    modes: { type: 'string', default: 'default' },
    trace: { type: 'boolean', default: false },
  },
});
if (!opts.corpus || !opts.questions) throw new Error('hop-misses: --corpus and --questions are required');
const split = Number(opts.split);
const corpus = await prepareCorpus(opts.corpus, 1200, undefined, 600_000);
const questions = await loadQuestions(opts.questions);
const passages = new Map<string, { title: string; text: string }>();
for (const line of readFileSync(opts.corpus, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const p = JSON.parse(line) as { id: string; title: string; text: string };
  passages.set(p.id, { title: p.title, text: p.text });
}
const base = Object.fromEntries(opts.param.map(parseParamOverride));
const engine = RetrievalEngine.build(
  { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
  createTermAnalyzer(),
  base,
);
const external = (docId: string) => corpus.externalIds.get(docId) ?? docId;
const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/\s*\([^)]*\)\s*$/, '')
    .trim();

function combos(): Array<Record<string, number | boolean>> {
  let out: Array<Record<string, number | boolean>> = [{}];
  for (const spec of opts.grid) {
    const [key, values] = spec.split('=');
    out = out.flatMap((c) =>
      values.split(',').map((v) => ({ ...c, [key]: parseParamOverride(`${key}=${v}`)[1] })),
    );
  }
  return out;
}

const pct = (x: number, n: number) => (n ? ((100 * x) / n).toFixed(1) : '-').padStart(5);
for (const combo of combos()) {
  const e = Object.keys(combo).length ? engine.withParams({ ...base, ...combo }) : engine;
  for (const asked of opts.modes.split(',')) {
    const mode = asked === 'default' ? DEFAULT_MODE : asked;
    const sums = [
      { n: 0, r2: 0, r5: 0 },
      { n: 0, r2: 0, r5: 0 },
    ];
    const census = new Map<string, number>();
    questions.forEach((q, index) => {
      const gold = q.supporting ?? [];
      if (!gold.length) return;
      const docs: string[] = [];
      for (const hit of e.search({ text: q.question }, mode, 50_000)) {
        const id = external(hit.docId);
        if (!docs.includes(id)) docs.push(id);
        if (docs.length >= 200) break;
      }
      const ranks = gold.map((g) => docs.indexOf(g) + 1);
      const at = (k: number) => ranks.filter((r) => r > 0 && r <= k).length / ranks.length;
      const s = sums[index < split ? 0 : 1];
      s.n++;
      s.r2 += at(2);
      s.r5 += at(5);
      if (at(5) === 1) return;
      const lower = q.question.toLowerCase();
      const found = gold.filter((_, i) => ranks[i] > 0 && ranks[i] <= 5);
      const kinds: string[] = [];
      gold.forEach((g, i) => {
        if (ranks[i] > 0 && ranks[i] <= 5) return;
        const p = passages.get(g);
        // An untitled passage (MuSiQue) is named by its subject: its words before " (", " is " or " was ".
        const subject = p?.text.split(/ \(| is | was | are | were |, /)[0] ?? '';
        const title = p ? norm(p.title || (subject.length <= 60 ? subject : '')) : '';
        const where = ranks[i] === 0 ? '>200' : ranks[i] <= 10 ? '6-10' : ranks[i] <= 50 ? '11-50' : '51-200';
        let kind: string;
        if (!title) kind = 'untitled';
        else if (lower.includes(title)) kind = 'title in question';
        else if (found.some((f) => passages.get(f)?.text.toLowerCase().includes(title)))
          kind = 'named in found gold';
        else if (gold.some((f) => f !== g && passages.get(f)?.text.toLowerCase().includes(title)))
          kind = 'named in missed gold';
        else kind = 'not named';
        const top1 = docs[0] !== undefined && gold.includes(docs[0]) ? 'top1 gold' : 'top1 other';
        kinds.push(`${kind} | ${top1} | ${where}`);
        const key = `${found.length ? 'one found' : 'none found'} | ${kind} | ${top1} | ${where}`;
        census.set(key, (census.get(key) ?? 0) + 1);
      });
      if (opts.trace) {
        const titles = docs
          .slice(0, 5)
          .map((d) => (gold.includes(d) ? '*' : '') + (passages.get(d)?.title ?? d));
        process.stdout.write(
          `${index} ${q.id} ranks ${ranks.join(',')}  ${q.question}\n    gold: ${gold
            .map((g) => passages.get(g)?.title || passages.get(g)?.text.slice(0, 60))
            .join(' / ')}\n    top5: ${titles.join(' / ')}\n    ${kinds.join('; ')}\n`,
        );
      }
    });
    const label = Object.entries(combo)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(' ');
    process.stdout.write(
      `${asked.padEnd(8)} tune(n=${sums[0].n}) R@2 ${pct(sums[0].r2, sums[0].n)} R@5 ${pct(sums[0].r5, sums[0].n)}  ` +
        `held(n=${sums[1].n}) R@2 ${pct(sums[1].r2, sums[1].n)} R@5 ${pct(sums[1].r5, sums[1].n)}  ${label}\n`,
    );
    if (opts.trace || combos().length === 1)
      for (const [k, v] of [...census].sort((a, b) => b[1] - a[1])) process.stdout.write(`    ${v} × ${k}\n`);
  }
}

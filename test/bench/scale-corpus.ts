// A library of a chosen size (100 MB, 1 GB of text) assembled from the bench data, for the scale harnesses
// (scale-cli.ts, scale-browser.ts; issue 25). Usage:
//   node --import tsx test/bench/scale-corpus.ts --mb 100 --out /work/scale-data/mb100 [--bench /work/shared/bench]
//        [--seed 25] [--per-file 8]
//
// Sources (from --bench, default /work/shared/bench): the paragraphs of hotpotqa, 2wikimultihopqa and musique
// (corpus.jsonl), the Vue docs pages (vuedocs/docs) and the docs-scale pages (docs-scale/docs), about 13 MB of text.
// The library is written as copies of that material, `copy-000/`, `copy-001/`, … until --mb MiB of text are written
// (the last copy is cut short; its files are written in a seeded random order, so a partial copy holds a bit of
// every source, not one source whole):
// - Wikipedia paragraphs become article files of --per-file paragraphs each (every title in these sets has exactly
//   one paragraph, so "an article per title" would be 15,000 files of 500 bytes per copy): hotpotqa as Markdown (a
//   `## Title` section per paragraph), 2wikimultihopqa as HTML (`<h2>` + `<p>`), musique as plain text (it has no
//   titles). Which paragraphs share a file is a seeded shuffle, drawn again for every copy.
// - Documentation pages are kept as files (.md, .txt as in the source).
// - Copy 0 is the source text unchanged (so the questions still fit it). In copy k > 0 every proper noun and
//   identifier is renamed through a per-copy map drawn from the corpus's own pool: a name is a capitalised word
//   whose lower-case form never occurs in the corpus, a camelCase identifier, or a rare word (lower-case, 6+
//   letters, at most twice in the sources; each kind has its own pool); half the names map to another
//   name of the pool, half to a new word spliced from the first half of one pool name and the second half of
//   another (so the number of distinct words grows with the copies, as a real library's does, not only the number
//   of their combinations). Documentation pages of copy k > 0 also have their sections (split at headings) after the
//   first shuffled.
// The app gives a document the id of its text's hash and stores identical texts once (src/core/prepare.ts), so
// byte-identical copies would measure nothing: the script hashes every file it writes, leaves out a content it
// already wrote (a tiny page that no renaming or reordering changed) and prints how many it left out.
// Limits: this is not a real 1 GB library. Grammar, topics and sentence structure repeat every ~13 MB; only names
// and rare words change, and common words keep their source frequencies (a real library adds new topics, domain
// terms and languages). The lexical index sees more distinct terms than a plain repeat would (they grow linearly
// with the copies, where a real library's grow sublinearly), of another kind than a real library's; the concept
// graph's edges repeat the copy-0 structure with renamed ends.
// Also written: <out>.questions.jsonl (beside the folder, not in it: the app indexes .jsonl files, and the questions
// would answer themselves) — the source questions whose gold documents were all written in copy 0, with
// `supporting` rewritten to the file names of copy 0 (a document's source name is its file's name), and
// `supporting_titles` kept. Deterministic: the same --mb, --seed and sources give the same bytes.
// Streaming: one file is built and written at a time; only the ~13 MB of sources, the pools and a hash per written
// file stay in memory.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { seededRandom } from '../../src/core/seededRandom.ts';

const MiB = 1024 * 1024;
const USAGE =
  'usage: node --import tsx test/bench/scale-corpus.ts --mb <MiB of text> --out <empty or new folder> ' +
  '[--bench /work/shared/bench] [--seed 25] [--per-file 8]';

function fail(message: string): never {
  process.stderr.write(`scale-corpus: ${message}\n${USAGE}\n`);
  process.exit(2);
}

const { values: opts } = parseArgs({
  options: {
    mb: { type: 'string' },
    out: { type: 'string' },
    bench: { type: 'string', default: '/work/shared/bench' },
    seed: { type: 'string', default: '25' },
    'per-file': { type: 'string', default: '8' },
  },
});
const budget = Number(opts.mb) * MiB;
if (!opts.mb || !(budget > 0)) fail('--mb must be a positive number of MiB');
if (!opts.out) fail('--out is required');
const out = resolve(opts.out);
if (existsSync(out) && readdirSync(out).length > 0) fail(`--out ${out} is not empty`);
const seed = Number(opts.seed);
const perFile = Number(opts['per-file']);
if (!Number.isInteger(seed)) fail('--seed must be an integer');
if (!Number.isInteger(perFile) || perFile < 1) fail('--per-file must be an integer ≥ 1');

// ---------- seeded randomness (mulberry32, shared with the themes; FNV-1a: a few lines, no dependency) ----------

const rng = seededRandom;

function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

// ---------- sources ----------

interface Passage {
  id: string;
  title: string;
  text: string;
}
interface Page {
  /** File name in the source folder (kept, with the copy's prefix). */
  name: string;
  text: string;
}

const bench = resolve(opts.bench);
function readJsonl<T>(path: string): T[] {
  if (!existsSync(path)) fail(`${path} does not exist (is --bench the shared bench folder?)`);
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l, i) => {
      try {
        return JSON.parse(l) as T;
      } catch {
        return fail(`${path}:${i + 1} is not JSON`);
      }
    });
}
function readPages(dir: string): Page[] {
  if (!existsSync(dir)) fail(`${dir} does not exist`);
  return readdirSync(dir)
    .filter((n) => n.endsWith('.md') || n.endsWith('.txt'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));
}

type Format = 'md' | 'html' | 'txt';
const WIKI: { set: string; short: string; format: Format }[] = [
  { set: 'hotpotqa', short: 'hotpot', format: 'md' },
  { set: '2wikimultihopqa', short: '2wiki', format: 'html' },
  { set: 'musique', short: 'musique', format: 'txt' },
];
const passages = new Map(WIKI.map((w) => [w.set, readJsonl<Passage>(join(bench, w.set, 'corpus.jsonl'))]));
const DOCS = [
  { set: 'vuedocs', short: 'vue', pages: readPages(join(bench, 'vuedocs', 'docs')) },
  { set: 'docs-scale', short: 'docs', pages: readPages(join(bench, 'docs-scale', 'docs')) },
];

// ---------- the name pool and the per-copy renaming ----------

const WORD = /\p{L}[\p{L}\p{N}_]*/gu;
/** Lower-case words and how often they occur in the sources. */
const lower = new Map<string, number>();
const allTexts = (): string[] => [
  ...[...passages.values()].flatMap((ps) => ps.flatMap((p) => [p.title, p.text])),
  ...DOCS.flatMap((d) => d.pages.map((p) => p.text)),
];
for (const text of allTexts())
  for (const m of text.matchAll(WORD))
    if (/^\p{Ll}+$/u.test(m[0])) lower.set(m[0], (lower.get(m[0]) ?? 0) + 1);
const isName = (w: string) => /^\p{Lu}\p{Ll}{2,}$/u.test(w) && !lower.has(w.toLowerCase());
const isIdentifier = (w: string) => /^\p{Ll}+\p{Lu}[\p{L}\p{N}]*$/u.test(w);
const namePool = new Set<string>();
const identPool = new Set<string>();
for (const text of allTexts())
  for (const m of text.matchAll(WORD)) {
    if (isName(m[0])) namePool.add(m[0]);
    else if (isIdentifier(m[0])) identPool.add(m[0]);
  }
// Rare lower-case words (at most twice in the sources, 6+ letters): where a real library's new vocabulary comes
// from (domain terms, rare words). They are renamed like names, within their own pool.
const rarePool = new Set([...lower].filter(([w, n]) => n <= 2 && w.length >= 6).map(([w]) => w));
lower.clear();
const names = [...namePool].sort();
const idents = [...identPool].sort();
const rares = [...rarePool].sort();

/** The word a name or identifier becomes in copy `k` (k > 0): another pool word, or one spliced from two. */
function renamed(word: string, k: number, pool: string[]): string {
  const h = hash32(`${seed}:${k}:${word}`);
  const a = pool[h % pool.length];
  if (h >>> 31 === 0) return a;
  const b = pool[hash32(`${k}:${word}:${seed}`) % pool.length];
  const head = a.slice(0, Math.ceil(a.length / 2));
  const tail = b.slice(Math.floor(b.length / 2));
  return head + (isIdentifier(word) ? tail : tail.toLowerCase());
}

let renameCopy = -1;
let renameMap = new Map<string, string>();
function rename(text: string, k: number): string {
  if (k === 0) return text;
  if (k !== renameCopy) {
    renameCopy = k;
    renameMap = new Map();
  }
  return text.replace(WORD, (w) => {
    const pool = namePool.has(w) ? names : identPool.has(w) ? idents : rarePool.has(w) ? rares : null;
    if (!pool) return w;
    let r = renameMap.get(w);
    if (r === undefined) renameMap.set(w, (r = renamed(w, k, pool)));
    return r;
  });
}

/**
 * A documentation page of copy k > 0: its sections after the first in a seeded order (split before headings), or,
 * in a page of fewer than three sections, its blocks after the first (split at blank lines outside code fences, so a
 * code block moves whole).
 */
function reorderSections(text: string, random: () => number): string {
  const parts = text.split(/\n(?=#{1,6} |=+ )/);
  if (parts.length >= 3) return [parts[0], ...shuffled(parts.slice(1), random)].join('\n');
  const blocks: string[] = [];
  let current: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (!fenced && line.trim() === '') {
      if (current.length) blocks.push(current.join('\n'));
      current = [];
    } else current.push(line);
  }
  if (current.length) blocks.push(current.join('\n'));
  if (blocks.length < 3) return text;
  return [blocks[0], ...shuffled(blocks.slice(1), random)].join('\n\n') + '\n';
}

// ---------- files ----------

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function wikiFile(format: Format, group: Passage[], k: number): { body: string; textBytes: number } {
  const items = group.map((p) => ({ title: rename(p.title, k), text: rename(p.text, k) }));
  const textBytes = items.reduce((n, p) => n + Buffer.byteLength(p.title) + Buffer.byteLength(p.text), 0);
  if (format === 'txt') return { body: items.map((p) => p.text).join('\n\n') + '\n', textBytes };
  const heading = `${items[0].title} and ${items.length - 1} more`;
  if (format === 'md')
    return {
      body: `# ${heading}\n\n` + items.map((p) => `## ${p.title}\n\n${p.text}\n`).join('\n'),
      textBytes,
    };
  return {
    body:
      `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(heading)}</title></head><body>\n` +
      `<h1>${escapeHtml(heading)}</h1>\n` +
      items.map((p) => `<h2>${escapeHtml(p.title)}</h2>\n<p>${escapeHtml(p.text)}</p>\n`).join('') +
      '</body></html>\n',
    textBytes,
  };
}

interface Planned {
  name: string;
  make: () => { body: string; textBytes: number };
}

/** Every file of copy k, named `c<k>-…` (the app names a document after its file, so names stay distinct). */
function plan(k: number): { files: Planned[]; goldFile: Map<string, string> } {
  const prefix = `c${String(k).padStart(3, '0')}`;
  const random = rng(seed * 1000 + k);
  const files: Planned[] = [];
  const goldFile = new Map<string, string>();
  for (const w of WIKI) {
    const order = shuffled(passages.get(w.set) ?? [], random);
    for (let i = 0; i < order.length; i += perFile) {
      const group = order.slice(i, i + perFile);
      const name = `${prefix}-${w.short}-${String(i / perFile).padStart(4, '0')}.${w.format}`;
      for (const p of group) goldFile.set(p.id, name);
      files.push({ name, make: () => wikiFile(w.format, group, k) });
    }
  }
  for (const d of DOCS)
    for (const p of d.pages) {
      const name = `${prefix}-${d.short}-${p.name}`;
      goldFile.set(`${d.set}:${p.name.replace(/\.(md|txt)$/, '')}`, name);
      const sectionRandom = rng(hash32(`${seed}:${k}:${p.name}`));
      files.push({
        name,
        make: () => {
          const body = k === 0 ? p.text : rename(reorderSections(p.text, sectionRandom), k);
          return { body, textBytes: Buffer.byteLength(body) };
        },
      });
    }
  // Written in a seeded order, so a copy cut short by the budget holds a share of every source.
  return { files: shuffled(files, random), goldFile };
}

// ---------- write ----------

mkdirSync(out, { recursive: true });
const started = performance.now();
const seen = new Set<string>();
let repeats = 0;
let fileCount = 0;
let fileBytes = 0;
let textBytes = 0;
let copies = 0;
let copy0Gold: Map<string, string> | null = null;
const copy0Written = new Set<string>();
for (let k = 0; textBytes < budget; k++) {
  const { files, goldFile } = plan(k);
  if (k === 0) copy0Gold = goldFile;
  const dir = join(out, `copy-${String(k).padStart(3, '0')}`);
  mkdirSync(dir);
  copies = k + 1;
  for (const f of files) {
    if (textBytes >= budget) break;
    const { body, textBytes: t } = f.make();
    const digest = createHash('sha1').update(body).digest('base64');
    // A content already written (a tiny page with no name, rare word or block to move): the app would store it
    // once, so it is left out rather than counted as text.
    if (seen.has(digest)) {
      repeats += 1;
      continue;
    }
    seen.add(digest);
    writeFileSync(join(dir, f.name), body);
    if (k === 0) copy0Written.add(f.name);
    fileCount += 1;
    fileBytes += Buffer.byteLength(body);
    textBytes += t;
  }
  process.stderr.write(
    `copy ${k}: ${fileCount} files, ${(textBytes / MiB).toFixed(1)} MiB of text so far (${((performance.now() - started) / 1000).toFixed(0)} s)\n`,
  );
}

// ---------- questions for copy 0 ----------

interface Question {
  id: string;
  question: string;
  answers: string[];
  supporting?: string[];
  supporting_titles?: string[];
  type?: string;
}
const gold = copy0Gold ?? new Map<string, string>();
const questionLines: string[] = [];
const perSet: Record<string, number> = {};
for (const set of [...WIKI.map((w) => w.set), 'vuedocs']) {
  for (const q of readJsonl<Question>(join(bench, set, 'questions.jsonl'))) {
    const ids = (q.supporting ?? []).map((id) => (set === 'vuedocs' ? `vuedocs:${id}` : id));
    const files = ids.map((id) => gold.get(id));
    if (ids.length === 0 || files.some((f) => f === undefined || !copy0Written.has(f))) continue;
    perSet[set] = (perSet[set] ?? 0) + 1;
    questionLines.push(
      JSON.stringify({
        id: `${set}:${q.id}`,
        dataset: set,
        question: q.question,
        answers: q.answers,
        supporting: [...new Set(files)],
        supporting_titles: q.supporting_titles ?? [],
        ...(q.type ? { type: q.type } : {}),
      }),
    );
  }
}
const questionsPath = `${out}.questions.jsonl`;
writeFileSync(questionsPath, questionLines.join('\n') + (questionLines.length ? '\n' : ''));

console.log(
  JSON.stringify({
    out,
    mbAsked: Number(opts.mb),
    seed,
    perFile,
    copies,
    files: fileCount,
    bytes: fileBytes,
    MB: Number((fileBytes / MiB).toFixed(2)),
    textBytes,
    textMB: Number((textBytes / MiB).toFixed(2)),
    repeatedContentsLeftOut: repeats,
    namePool: names.length,
    identifierPool: idents.length,
    rareWordPool: rares.length,
    questions: questionLines.length,
    questionsPerSet: perSet,
    seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
  }),
);
console.log(
  `wrote ${fileCount} files, ${fileBytes} bytes (${(fileBytes / MiB).toFixed(1)} MiB), ` +
    `${(textBytes / MiB).toFixed(1)} MiB of text, in ${copies} copies; ${repeats} repeated contents left out; ` +
    `${questionLines.length} questions in ${questionsPath}`,
);

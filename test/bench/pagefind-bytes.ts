// Our cold question's bytes beside Pagefind's on the same pages (issue 47: "a cold question reads less than Pagefind's
// cold fetch on the documentation sets — run Pagefind yourself on the same pages"). For each set:
// - Pagefind: an index of the same documents built with its Node API (one custom record per document, as our library
//   has one document per file or passage: url "/<document id>", the text as content, the title as meta), written to a
//   temporary folder and served on loopback by a static server that counts every response body it sends. In headless
//   Chromium, each question runs in a fresh browser context (nothing cached): import pagefind.js, `search(q)`, then
//   `data()` of the first 5 results (what Pagefind's UI shows first). The bytes are split by kind: shell (pagefind.js,
//   its worker, the WASM), entry (pagefind-entry.json and the language's .pf_meta), index (the word index chunks),
//   filter and fragment (the results' data). JS and JSON are sent gzip'd when the browser asks (as a static host
//   would); Pagefind's own files are gzip'd already and sent as they are. Asked two ways (PAGEFIND_MODES), each in its
//   own fresh context. Recall@2/5 of its first results against the set's gold documents, and how many questions
//   found nothing.
// - Ours: the same questions asked cold against our bundle of the same pages (question-bytes.ts's measure: a fresh
//   source and a fresh openPagedBundle, ppr at the Ask view's 12,000-token budget): bytes read (opening included),
//   reads (one request each against a host that answers one range a request), the rounds of reads (opening's
//   three — tail, manifest, hashes — plus the question's), an estimate of its time on a slow link (linkSeconds), and
//   recall@2/5 of the evidence's documents.
// Both sides count response bodies only (no headers). Our app shell is not counted (the app is installed or cached
// when a link is opened); Pagefind's shell is printed apart so that both comparisons can be read.
// Usage: node --import tsx test/bench/pagefind-bytes.ts "<name>=<corpus>,<x.bundle>,<questions.jsonl>[,<lang>]" [...]
//          [--n 60] [--ours-only] [--slow] [--gap <bytes>] [--first-page]
//   --first-page: our side reads the Ask view's first page alone (firstPage.ts); its recall is the whole answer's,
//   read after the bytes are counted (the same ranking).
//   --n: questions a set at most, spread over the file. --ours-only: our side alone (to compare read policies).
//   --gap: the gap our source says (RangeSource.gapBytes): 0 as a host answering multi-range requests (read the
//   estimate for such a host), 32768 as one answering one range a request; without it, the default (32 KiB).
//   --slow: Pagefind's host behind a 10 Mbit/s, 100 ms link, and each question's time in the page.
//   <corpus>: a folder (every file a document, its id the file name without extension, as the CLI names them) or a
//   .jsonl of {"id", "title", "text"} (one document a line). <lang>: ISO 639-1 code for Pagefind (default en).
import { gzipSync } from 'node:zlib';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { basename, extname, join, normalize, relative, sep } from 'node:path';
import process from 'node:process';
import { close as closePagefind, createIndex } from 'pagefind';
import { chromium, type Browser } from 'playwright-core';
import { openPagedBundle } from '../../src/core/paged/index.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { parseMarkdown } from '../../src/core/parse/markdown.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { CHROMIUM_PATH } from '../e2e/lib/browser.ts';
import { firstPageWanted } from '../../src/services/source/firstPage.ts';
import { arg } from './lib/args.ts';
import { watchStages, type Stages } from './lib/fetchStages.ts';
import { TaggedSource } from './lib/taggedSource.ts';

const USAGE =
  'usage: node --import tsx test/bench/pagefind-bytes.ts "<name>=<corpus>,<x.bundle>,<questions.jsonl>[,<lang>]" [...] [--n 60] [--ours-only] [--slow] [--gap <bytes>] [--first-page]';
/** The Ask view's default budget (src/ui/state/ask.svelte.ts). */
const BUDGET_TOKENS = 12_000;
/** Results whose data Pagefind's UI loads first. */
const SHOWN = 5;
/** Reads that opening a bundle makes one after the other: the tail, the manifest, the block hashes. */
const OPEN_ROUNDS = 3;
const KINDS = ['shell', 'entry', 'index', 'filter', 'fragment', 'other'] as const;
type Kind = (typeof KINDS)[number];
/**
 * How Pagefind is asked: the question as it is (its default: a page must hold every word, so most full-sentence
 * questions find nothing), and each word searched alone with a page's scores summed (an adaptation a site could
 * make: it fetches each word's index chunks, as the default does, plus the fragments of the pages it shows).
 */
const PAGEFIND_MODES = ['all words', 'any word'] as const;
/** --slow: Pagefind's host answers over the slow link (serve()), and each question's time in the page is printed. */
const SLOW = process.argv.includes('--slow');
/** --gap: the gap our source says (undefined: the block store's default). */
const GAP = process.argv.includes('--gap') ? Number(arg('gap', 'NaN')) : undefined;
type PagefindMode = (typeof PAGEFIND_MODES)[number];

interface Doc {
  id: string;
  title: string;
  text: string;
}
interface Question {
  question: string;
  supporting: string[];
}

/** The slow link of issue 47's target: 10 Mbit/s, 100 ms round trip. */
const LINK_BYTES_A_SECOND = 1.25e6;
const ROUND_TRIP_S = 0.1;
/** Requests a browser sends to one host at once over HTTP/1.1 (as blockStore.ts's IN_FLIGHT). */
const IN_FLIGHT = 6;

/**
 * Seconds on the slow link, from bytes and stages: the bytes at its rate, plus a round trip for every IN_FLIGHT
 * requests of a stage (a host answering one range a request) or one a stage (a host answering several ranges a
 * request, blockStore's batches). Latency and bandwidth added, not overlapped, and no work between responses.
 */
function linkSeconds(bytes: number, stageReads: readonly number[], multiRange: boolean): number {
  const trips = stageReads.reduce((t, n) => t + (multiRange ? 1 : Math.ceil(n / IN_FLIGHT)), 0);
  return bytes / LINK_BYTES_A_SECOND + trips * ROUND_TRIP_S;
}

function kb(n: number): string {
  return Math.round(n / 1000).toLocaleString('en-US');
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (e.isFile()) out.push(p);
  }
  return out.sort();
}

/** The corpus's documents: a folder's files (id = the name without extension) or a jsonl's lines. */
async function readCorpus(path: string): Promise<Doc[]> {
  if ((await stat(path)).isDirectory()) {
    const docs: Doc[] = [];
    for (const file of await filesUnder(path)) {
      const source = await readFile(file, 'utf8');
      const id = basename(file, extname(file));
      // A Markdown page as the app reads it (src/core/parse): its text without the markup (what a site's rendered
      // page shows Pagefind), its title the first heading; any other file as it is, titled by its name.
      if (/\.(md|markdown)$/i.test(file)) {
        const parsed = parseMarkdown(source);
        docs.push({ id, title: parsed.title ?? id, text: parsed.text });
      } else docs.push({ id, title: id, text: source });
    }
    return docs;
  }
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const d = JSON.parse(l) as { id: unknown; title?: unknown; text: unknown };
      return { id: String(d.id), title: String(d.title ?? d.id), text: String(d.text) };
    });
}

/** The kind of a served Pagefind file, by its path under the bundle folder. */
function kindOf(path: string): Kind {
  if (/^(pagefind\.js|pagefind-worker\.js|wasm\.[^/]+\.pagefind)$/.test(path)) return 'shell';
  if (path === 'pagefind-entry.json' || path.endsWith('.pf_meta')) return 'entry';
  if (path.startsWith('index/')) return 'index';
  if (path.startsWith('filter/')) return 'filter';
  if (path.startsWith('fragment/')) return 'fragment';
  return 'other';
}

/** Pagefind's served files at rest: the index (everything a search may fetch but the shell) and the shell. */
async function indexSize(dir: string): Promise<Record<'index' | 'shell', number>> {
  const size = { index: 0, shell: 0 };
  for (const file of await filesUnder(dir)) {
    const kind = kindOf(relative(dir, file).split(sep).join('/'));
    if (kind === 'shell') size.shell += (await stat(file)).size;
    else if (kind !== 'other') size.index += (await stat(file)).size; // 'other': the UI kits, which search needs not
  }
  return size;
}

/** Counts of what the server sent since the last reset. */
class Tally {
  bytes = new Map<Kind, number>();
  requests = 0;
  reset(): void {
    this.bytes = new Map();
    this.requests = 0;
  }
  total(): number {
    return [...this.bytes.values()].reduce((a, b) => a + b, 0);
  }
}

const PAGE = '<!doctype html><meta charset="utf-8"><title>pagefind bench</title><p>bench';

/** A loopback static server of `dir` under /pagefind/ and a blank page at /, counting each body it sends. */
async function serve(dir: string, tally: Tally, slow: boolean): Promise<{ server: Server; origin: string }> {
  // --slow: the host behind the slow link — each response waits a round trip, then its body goes out at the
  // link's rate, one body after another (one link shared by every connection). The page's own / is not slowed: it is
  // the site, already open.
  let linkFreeAt = 0;
  const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, Math.max(0, ms)));
  const gzipped = new Map<string, Buffer>();
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(PAGE);
        return;
      }
      const rel = normalize(decodeURIComponent(url.pathname.replace(/^\/pagefind\//, '')));
      if (!url.pathname.startsWith('/pagefind/') || rel.startsWith('..')) {
        res.writeHead(404).end();
        return;
      }
      let body: Buffer;
      try {
        body = await readFile(join(dir, rel));
      } catch {
        res.writeHead(404).end();
        return;
      }
      const type = rel.endsWith('.js')
        ? 'text/javascript; charset=utf-8'
        : rel.endsWith('.json')
          ? 'application/json; charset=utf-8'
          : 'application/octet-stream';
      const headers: Record<string, string> = { 'content-type': type };
      // Text the host compresses on the way (JS, JSON); Pagefind's own files are gzip'd already.
      if (/\.(js|json)$/.test(rel) && /\bgzip\b/.test(String(req.headers['accept-encoding']))) {
        let z = gzipped.get(rel);
        if (!z) gzipped.set(rel, (z = gzipSync(body, { level: 9 })));
        body = z;
        headers['content-encoding'] = 'gzip';
      }
      const kind = kindOf(rel.split(sep).join('/'));
      tally.bytes.set(kind, (tally.bytes.get(kind) ?? 0) + body.length);
      tally.requests++;
      if (slow) {
        await sleep(ROUND_TRIP_S * 1000);
        linkFreeAt = Math.max(performance.now(), linkFreeAt) + (1000 * body.length) / LINK_BYTES_A_SECOND;
        await sleep(linkFreeAt - performance.now());
      }
      res.writeHead(200, headers);
      res.end(body);
    })();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

interface SideRow {
  bytes: number[];
  requests: number[];
}

interface PagefindRow extends SideRow {
  shell: number[];
  byKind: Map<Kind, number>;
  empty: number;
  found: boolean[];
  /** Milliseconds from importing pagefind.js to the shown results' data, in the page. */
  ms: number[];
  recall: Record<2 | 5, number>;
  gold: number;
}

interface OurRow extends SideRow {
  /** Rounds of the question's reads (PagedAnswer.rounds) plus opening's three. */
  rounds: number[];
  /** Stages of reads one after the other on the wire (opening's reads one a stage), and the link estimates. */
  stages: number[];
  seconds: number[];
  secondsMulti: number[];
  /** Recall of the documents of the evidence, in the order of its first passage of each. */
  recall: Record<2 | 5, number>;
  gold: number;
  /** Documents among the first 5 whose title names several or no document of the corpus. */
  ambiguous: number;
  unmapped: number;
}

/** The share of `gold` among the first k of `ranked` (0 without gold). */
function recallAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  if (gold.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return gold.filter((g) => top.has(g)).length / gold.length;
}

async function pagefindSide(
  browser: Browser,
  docs: readonly Doc[],
  questions: readonly Question[],
  lang: string,
): Promise<{
  rows: Record<PagefindMode, PagefindRow>;
  size: Record<'index' | 'shell', number>;
  buildMs: number;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'conceptrag-pagefind-'));
  try {
    const t = performance.now();
    const { index, errors } = await createIndex({});
    if (!index) throw new Error(`pagefind createIndex: ${errors.join('; ')}`);
    for (const d of docs) {
      const added = await index.addCustomRecord({
        url: `/${encodeURIComponent(d.id)}`,
        content: d.text,
        language: lang,
        meta: { title: d.title },
      });
      if (added.errors.length)
        throw new Error(`pagefind addCustomRecord ${d.id}: ${added.errors.join('; ')}`);
    }
    const written = await index.writeFiles({ outputPath: dir });
    if (written.errors.length) throw new Error(`pagefind writeFiles: ${written.errors.join('; ')}`);
    await index.deleteIndex();
    const buildMs = performance.now() - t;
    const size = await indexSize(dir);
    const tally = new Tally();
    const { server, origin } = await serve(dir, tally, SLOW);
    const newRow = (): PagefindRow => ({
      bytes: [],
      shell: [],
      requests: [],
      byKind: new Map(),
      empty: 0,
      found: [],
      ms: [],
      recall: { 2: 0, 5: 0 },
      gold: 0,
    });
    const rows: Record<PagefindMode, PagefindRow> = { 'all words': newRow(), 'any word': newRow() };
    try {
      for (const q of questions) {
        for (const mode of PAGEFIND_MODES) {
          const row = rows[mode];
          const context = await browser.newContext(); // cold: its own cache and storage
          try {
            const page = await context.newPage();
            await page.goto(`${origin}/`);
            tally.reset();
            const { urls, ms } = await page.evaluate(
              async ({ q, shown, script, anyWord, lang }) => {
                const t0 = performance.now();
                type Result = { id: string; score: number; data(): Promise<{ url: string }> };
                const pf = (await import(script)) as {
                  search(q: string): Promise<{ results: Result[] }>;
                };
                let top: Result[];
                if (!anyWord) top = (await pf.search(q)).results.slice(0, shown);
                else {
                  // Each word searched alone (as Pagefind's query parser splits them), the scores of a page summed.
                  const words = new Set(
                    [...new Intl.Segmenter(lang, { granularity: 'word' }).segment(q)]
                      .filter((w) => w.isWordLike)
                      .map((w) => w.segment.toLowerCase()),
                  );
                  const scored = new Map<string, { score: number; result: Result }>();
                  for (const found of await Promise.all([...words].map((w) => pf.search(w))))
                    for (const r of found.results) {
                      const seen = scored.get(r.id);
                      if (seen) seen.score += r.score;
                      else scored.set(r.id, { score: r.score, result: r });
                    }
                  top = [...scored.values()]
                    .sort((x, y) => y.score - x.score)
                    .slice(0, shown)
                    .map((e) => e.result);
                }
                const data = await Promise.all(top.map((r) => r.data()));
                return { urls: data.map((d) => d.url), ms: performance.now() - t0 };
              },
              {
                q: q.question,
                shown: SHOWN,
                script: '/pagefind/pagefind.js',
                anyWord: mode === 'any word',
                lang,
              },
            );
            // Every request was answered before evaluate() returned (search and data() await theirs).
            const total = tally.total();
            row.bytes.push(total - (tally.bytes.get('shell') ?? 0));
            row.shell.push(tally.bytes.get('shell') ?? 0);
            row.requests.push(tally.requests);
            for (const [k, v] of tally.bytes) row.byKind.set(k, (row.byKind.get(k) ?? 0) + v);
            if (urls.length === 0) row.empty++;
            row.found.push(urls.length > 0);
            row.ms.push(ms);
            const ids = urls.map((u) => decodeURIComponent(u.replace(/^\//, '')));
            if (q.supporting.length) {
              row.gold++;
              row.recall[2] += recallAt(ids, q.supporting, 2);
              row.recall[5] += recallAt(ids, q.supporting, 5);
            }
          } finally {
            await context.close();
          }
        }
      }
    } finally {
      await new Promise((ok) => server.close(ok));
    }
    return { rows, size, buildMs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function ourSide(
  data: Uint8Array,
  name: string,
  questions: readonly Question[],
  docs: readonly Doc[],
): Promise<OurRow> {
  // A hit names its document by the title the record keeps (the first heading of a Markdown page, the file's name
  // otherwise, a passage's title); the corpus's titles map it back to ids. A title two documents share stands for
  // both (counted in `ambiguous`), a title no document has for none (`unmapped`): both printed, to judge the recall.
  const byTitle = new Map<string, string[]>();
  for (const d of docs) byTitle.set(d.title, [...(byTitle.get(d.title) ?? []), d.id]);
  const analyzer = createTermAnalyzer();
  const row: OurRow = {
    bytes: [],
    requests: [],
    rounds: [],
    stages: [],
    seconds: [],
    secondsMulti: [],
    recall: { 2: 0, 5: 0 },
    gold: 0,
    ambiguous: 0,
    unmapped: 0,
  };
  for (const q of questions) {
    const source = new TaggedSource(new MemoryRangeSource(data, name));
    source.gapBytes = GAP;
    const opened = await openPagedBundle(source, analyzer);
    if (!opened) throw new Error(`${name}: has no pages (index it with --embedder none --pages)`);
    // Opening reads one thing after another (tail, manifest, hashes): a stage each.
    const stages: Stages = { source, reads: source.reads.map(() => 1) };
    watchStages(stages);
    const library = opened.library;
    const firstPage = process.argv.includes('--first-page');
    let answer = firstPage
      ? await library.search(
          q.question,
          'ppr',
          BUDGET_TOKENS,
          undefined,
          undefined,
          firstPageWanted(q.question, (t) => library.terms(t)),
        )
      : await library.search(q.question, 'ppr', BUDGET_TOKENS);
    const stageReads = stages.reads;
    watchStages(undefined);
    row.bytes.push(source.bytesRead);
    row.requests.push(source.reads.length);
    row.rounds.push(OPEN_ROUNDS + answer.rounds);
    row.stages.push(stageReads.length);
    row.seconds.push(linkSeconds(source.bytesRead, stageReads, false));
    row.secondsMulti.push(linkSeconds(source.bytesRead, stageReads, true));
    // The recall is the whole answer's (its ranking is the page's): its records read now, after the bytes.
    if (answer.rest) answer = await answer.rest();
    if (q.supporting.length === 0) continue;
    // The hits' documents in order, each once: the ranking of documents the evidence shows.
    const ranked: string[] = [];
    for (const h of answer.hits) {
      const title = answer.records.get(h.chunkId)?.title ?? h.path?.[0] ?? '';
      if (!ranked.includes(title)) ranked.push(title);
    }
    for (const t of ranked.slice(0, 5)) {
      const n = byTitle.get(t)?.length ?? 0;
      if (n === 0) row.unmapped++;
      if (n > 1) row.ambiguous++;
    }
    const idsAt = (k: number) => ranked.slice(0, k).flatMap((t) => byTitle.get(t) ?? []);
    row.gold++;
    row.recall[2] += recallAt(idsAt(2), q.supporting, Infinity);
    row.recall[5] += recallAt(idsAt(5), q.supporting, Infinity);
  }
  return row;
}

async function measure(browser: Browser | undefined, spec: string, n: number): Promise<void> {
  const m = /^([^=]+)=([^,]+),([^,]+),([^,]+)(?:,([a-z]{2}))?$/.exec(spec);
  if (!m) throw new Error(`bad set "${spec}"\n${USAGE}`);
  const [, setName, corpusPath, bundlePath, qaPath, lang = 'en'] = m;
  const docs = await readCorpus(corpusPath);
  const data = new Uint8Array(await readFile(bundlePath));
  const all = (await readFile(qaPath, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const q = JSON.parse(l) as { question: unknown; supporting?: unknown[] };
      return { question: String(q.question), supporting: (q.supporting ?? []).map(String) };
    })
    .filter((q) => q.question.trim());
  if (all.length === 0) throw new Error(`${qaPath}: no questions`);
  const ids = new Set(docs.map((d) => d.id));
  const unknown = all.flatMap((q) => q.supporting).filter((g) => !ids.has(g));
  if (unknown.length)
    throw new Error(`${setName}: gold ids not in the corpus (${unknown.slice(0, 3).join(', ')}…)`);
  // Spread over the file, as question-bytes.ts picks them.
  const k = Math.min(n, all.length);
  const picked = Array.from({ length: k }, (_, i) => all[Math.floor((i * all.length) / k)]);

  const ours = await ourSide(data, bundlePath, picked, docs);
  const pct = (x: number, of: number) => (of ? ((100 * x) / of).toFixed(1) : '–');
  const s50 = (xs: number[]) => quantile(xs, 0.5).toFixed(2);
  const oursLine =
    `| ours | ${kb(data.length)} | ${kb(quantile(ours.bytes, 0.5))} / ${kb(Math.max(...ours.bytes))} | – | – | ` +
    `${quantile(ours.requests, 0.5)} / ${Math.max(...ours.requests)} | ${quantile(ours.rounds, 0.5)} | ` +
    `${pct(ours.recall[2], ours.gold)} | ${pct(ours.recall[5], ours.gold)} | – |`;
  const oursLink =
    `ours on 10 Mbit/s, 100 ms (estimate): p50 ${s50(ours.seconds)} s a host answering one range a request, ` +
    `${s50(ours.secondsMulti)} s one answering several; stages p50 ${quantile(ours.stages, 0.5)}; ` +
    `bytes mean ${kb(ours.bytes.reduce((a, b) => a + b, 0) / picked.length)} KB, requests mean ` +
    `${(ours.requests.reduce((a, b) => a + b, 0) / picked.length).toFixed(1)}; ` +
    `first 5 documents whose title names several documents: ${ours.ambiguous}, none: ${ours.unmapped}`;
  const header =
    '| side | index KB | cold question KB p50 / max (no shell) | shell KB | with shell p50 | requests p50 / max | rounds p50 | R@2 | R@5 | found nothing |\n' +
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
  if (!browser) {
    console.log(`\n## ${setName}: ${docs.length} documents, ${picked.length} cold questions; load ${load()}`);
    console.log(`${header}\n${oursLine}\n${oursLink}`);
    return;
  }
  const pf = await pagefindSide(browser, docs, picked, lang);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  console.log(
    `\n## ${setName}: ${docs.length} documents, ${picked.length} cold questions; load ${load()}; ` +
      `Pagefind built in ${(pf.buildMs / 1000).toFixed(1)} s`,
  );
  console.log(header);
  for (const mode of PAGEFIND_MODES) {
    const p = pf.rows[mode];
    const withShell = p.bytes.map((b, i) => b + p.shell[i]);
    console.log(
      `| Pagefind, ${mode} | ${kb(pf.size.index)} | ${kb(quantile(p.bytes, 0.5))} / ${kb(Math.max(...p.bytes))} | ` +
        `${kb(quantile(p.shell, 0.5))} (at rest ${kb(pf.size.shell)}) | ${kb(quantile(withShell, 0.5))} | ` +
        `${quantile(p.requests, 0.5)} / ${Math.max(...p.requests)} | – | ${pct(p.recall[2], p.gold)} | ` +
        `${pct(p.recall[5], p.gold)} | ${p.empty} of ${picked.length} |`,
    );
  }
  console.log(oursLine);
  for (const mode of PAGEFIND_MODES) {
    const p = pf.rows[mode];
    const kinds = KINDS.filter((kd) => p.byKind.has(kd))
      .map((kd) => `${kd} ${kb((p.byKind.get(kd) ?? 0) / picked.length)}`)
      .join(', ');
    // A question that found nothing fetched no fragments: the bytes of those that found something, apart.
    const foundSome = p.bytes.filter((_, i) => p.found[i]);
    console.log(
      `Pagefind, ${mode}: mean a question by kind (KB): ${kinds}; total ${kb(sum(p.bytes.map((b, i) => b + p.shell[i])) / picked.length)}` +
        (foundSome.length
          ? `; the ${foundSome.length} questions that found something: p50 ${kb(quantile(foundSome, 0.5))} KB, ` +
            `max ${kb(Math.max(...foundSome))} KB (no shell)`
          : '') +
        (SLOW
          ? `; on the slow link (shell not cached) p50 ${(quantile(p.ms, 0.5) / 1000).toFixed(2)} s, ` +
            `max ${(Math.max(...p.ms) / 1000).toFixed(2)} s`
          : ''),
    );
  }
  console.log(oursLink);
}

async function main(): Promise<void> {
  const sets = process.argv
    .slice(2)
    // A set is neither a flag nor the value of one that takes a value (--ours-only and --slow take none).
    .filter((a, i, all) => !a.startsWith('--') && !['--n', '--gap'].includes(all[i - 1]));
  if (sets.length === 0) throw new Error(USAGE);
  const n = Number(arg('n', '60'));
  if (GAP !== undefined && !(Number.isInteger(GAP) && GAP >= 0))
    throw new Error(`--gap must be a byte count\n${USAGE}`);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--n must be a positive integer\n${USAGE}`);
  const pagefindVersion = (
    JSON.parse(await readFile(join(process.cwd(), 'node_modules/pagefind/package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  console.log(`Pagefind ${pagefindVersion}; Chromium ${CHROMIUM_PATH}; load ${load()}`);
  // --ours-only: our side alone (no Pagefind, no browser), to compare read policies of the block store.
  const oursOnly = process.argv.includes('--ours-only');
  const browser = oursOnly
    ? undefined
    : await chromium.launch({
        executablePath: CHROMIUM_PATH,
        args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
      });
  try {
    for (const spec of sets) await measure(browser, spec, n);
  } finally {
    await browser?.close();
    if (browser) await closePagefind();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

// The 111-PDF walkthrough of issue 44, as a new user does it, in headless Chromium on the built app: a folder of the
// 111 chapter pages of "The Rust Programming Language" saved as PDFs from the browser (date and title printed at the
// top of each page, the address and "n/m" at the foot) is chosen in the Library view's folder input, and a question
// is asked at once, while nothing is stored yet. Printed, timed from the choice of the folder:
//   - first evidence: the first evidence card of that question on screen (early or settled);
//   - its settled result (the Ask button no longer "Searching…", "Refining…" or "Waiting…");
//   - "lexical ready": the header says so;
//   - every file stored (documents in IndexedDB, of the files chosen) and done: the app idle with no file waiting
//     (the semantic layer built, unless sentence vectors are off);
// then five questions asked one after the other, each with its top card (document, page, section path) and
// whether it is the chapter the question was written for; the load average beside every figure.
//
// Usage: npm run build && node --import tsx test/bench/walkthrough-pdfs.ts
//          [--book <git dir of rust-lang/book>] [--pdfs .cache/walkthrough/rustbook-pdf]
//          [--questions test/bench/heldout/rustbook/questions.jsonl] [--count 5] [--timeout-minutes 40]
//          [--json <out.json>]
//   The PDFs are printed once into --pdfs from the book's src/*.md (all but SUMMARY.md: 111 pages) at the commit
//   the held-out set pins, read with `git show` from --book (a clone or bare mirror of rust-lang/book); a folder
//   already holding PDFs is used as it is. The questions are the first --count of the held-out rustbook set
//   (written before any result; `supporting` names the chapter). The built app is read from E2E_DIST or ./dist.
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import markdownIt from 'markdown-it';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, DIST } from '../e2e/lib/browser.ts';
import { waitIdle } from '../e2e/lib/app.ts';
import { openHarness } from '../e2e/lib/harness.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { arg } from './lib/args.ts';
import { probeLibrary } from './lib/dropProbes.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The commit of rust-lang/book the held-out rustbook set pins (test/bench/heldout/rustbook/build.mjs). */
const BOOK_COMMIT = '917544888a55e4da7109bdba8c88c893c0da70f4';
/** The table of contents is the book's navigation, not a page a reader saves. */
const SKIP = new Set(['src/SUMMARY.md']);

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const seconds = (ms: number) => (ms / 1000).toFixed(1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class WalkthroughError extends Error {}

const STYLE = `
  body { font: 16px/1.6 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #262625; margin: 0; }
  main { max-width: 46rem; margin: 0 auto; }
  h1 { font-size: 2rem; } h2 { font-size: 1.5rem; } h3 { font-size: 1.2rem; }
  code { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 0.875em; }
  pre { background: #f6f7f6; padding: 0.8rem 1rem; white-space: pre-wrap; }
  table { border-collapse: collapse; } td, th { border: 1px solid #ddd; padding: 0.3rem 0.6rem; }
`;

/** A browser's "Save as PDF" with headers and footers on: date and title at the top, address and n/m at the foot. */
const HEADER = `<div style="font-size:8px;width:100%;padding:0 1cm;display:flex;justify-content:space-between">
  <span class="date"></span><span class="title"></span><span></span></div>`;
const footer = (url: string) => `<div style="font-size:8px;width:100%;padding:0 1cm;display:flex;
  justify-content:space-between"><span>${url}</span><span><span class="pageNumber"></span>/<span
  class="totalPages"></span></span></div>`;

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Prints the book's pages into `out` (one PDF per page, named after it), unless `out` holds PDFs already. */
async function printBook(book: string, out: string): Promise<string[]> {
  await mkdir(out, { recursive: true });
  const have = (await readdir(out)).filter((f) => f.endsWith('.pdf'));
  if (have.length > 0) return have.sort();
  const git = (...args: string[]) =>
    execFileSync('git', ['--git-dir', book, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const pages = git('ls-tree', '--name-only', BOOK_COMMIT, 'src/')
    .split('\n')
    .filter((p) => /^src\/[^/]+\.md$/.test(p) && !SKIP.has(p))
    .sort();
  const md = markdownIt({ html: true, linkify: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    for (const path of pages) {
      const name = basename(path, '.md');
      const source = git('show', `${BOOK_COMMIT}:${path}`);
      // mdBook titles a page by its first heading (a section page begins at "##").
      const title = /^#{1,6}\s+(.+)$/m.exec(source)?.[1] ?? name;
      await page.setContent(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} - The Rust ` +
          `Programming Language</title><style>${STYLE}</style></head><body><main>${md.render(source)}</main></body></html>`,
        { waitUntil: 'load' },
      );
      await page.pdf({
        path: join(out, `${name}.pdf`),
        format: 'Letter',
        margin: { top: '1.6cm', bottom: '1.6cm', left: '1.8cm', right: '1.8cm' },
        displayHeaderFooter: true,
        headerTemplate: HEADER,
        footerTemplate: footer(`https://doc.rust-lang.org/book/${name}.html`),
        printBackground: true,
      });
    }
  } finally {
    await browser.close();
  }
  return (await readdir(out)).filter((f) => f.endsWith('.pdf')).sort();
}

interface BookQuestion {
  id: string;
  question: string;
  supporting: string[];
}

async function readQuestions(path: string, count: number): Promise<BookQuestion[]> {
  const lines = (await readFile(path, 'utf8')).split('\n').filter((l) => l.trim());
  return lines.slice(0, count).map((l, i) => {
    const q = JSON.parse(l) as Partial<BookQuestion>;
    if (typeof q.question !== 'string' || !Array.isArray(q.supporting))
      throw new WalkthroughError(`${path}:${i + 1} has no "question" or "supporting"`);
    return { id: q.id ?? `q${i + 1}`, question: q.question, supporting: q.supporting };
  });
}

/** What the Ask view shows now: evidence (early or settled), whether the question settled, the error if any. */
async function askState(page: Page) {
  return page.evaluate(() => {
    const button = document.querySelector('[data-testid="ask"]');
    const label = button?.textContent ?? '';
    return {
      evidence: document.querySelectorAll('[data-testid="evidence-early"], [data-testid="evidence"]').length,
      settled:
        !/Searching|Refining|Waiting/.test(label) &&
        document.querySelector('[data-testid="results"][data-stage="result"]') !== null,
      error: document.querySelector('[data-testid="ask-error"]')?.textContent?.trim() ?? null,
      lexicalReady: /lexical ready/.test(document.querySelector('[data-testid="layers"]')?.textContent ?? ''),
    };
  });
}

/** The settled result's top card: its document (title and file, from IndexedDB), page label and section path. */
async function topCard(page: Page) {
  return page.evaluate(async () => {
    const card = document.querySelector('[data-testid="results"] [data-testid="evidence"]');
    if (!card) return null;
    const link = card.querySelector<HTMLAnchorElement>('[data-testid="evidence-sentence"]');
    const docId = decodeURIComponent(/#doc=([^&]+)/.exec(link?.getAttribute('href') ?? '')?.[1] ?? '');
    const db = await new Promise<IDBDatabase>((res, rej) => {
      const r = indexedDB.open('conceptrag');
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    const doc = await new Promise<{ title?: string; sourceName?: string } | undefined>((res, rej) => {
      const r = db.transaction('documents').objectStore('documents').get(docId);
      r.onsuccess = () => res(r.result as { title?: string; sourceName?: string } | undefined);
      r.onerror = () => rej(r.error);
    });
    db.close();
    return {
      title: doc?.title ?? card.querySelector('.title')?.textContent?.trim() ?? '',
      file: doc?.sourceName ?? '',
      page: card.querySelector('[data-testid="page-label"]')?.textContent?.trim() ?? '',
      path: card.querySelector('[data-testid="evidence-path"]')?.textContent?.trim() ?? '',
      relevance: Number(card.getAttribute('data-relevance') ?? NaN),
    };
  });
}

/** Types and asks `question`, then waits until it has settled (or the app shows an error). */
async function askSettled(page: Page, question: string, deadline: number) {
  await page.fill('[data-testid="question"]', question);
  const t = Date.now();
  await page.click('[data-testid="ask"]');
  for (;;) {
    const s = await askState(page);
    if (s.error) throw new WalkthroughError(`the app says: ${s.error}`);
    if (s.settled) return Date.now() - t;
    if (Date.now() > deadline) throw new WalkthroughError(`no settled answer to "${question}" in time`);
    await sleep(100);
  }
}

async function main(): Promise<void> {
  const pdfs = resolve(arg('pdfs', join(root, '.cache', 'walkthrough', 'rustbook-pdf')));
  const book = arg('book', '/work/.mirror/rust-lang+book/repo');
  const count = Number(arg('count', '5'));
  const timeoutMs = Number(arg('timeout-minutes', '40')) * 60_000;
  const json = arg('json', '');
  const questions = await readQuestions(
    resolve(arg('questions', join(root, 'test/bench/heldout/rustbook/questions.jsonl'))),
    count,
  );
  const printing = Date.now();
  const files = await printBook(book, pdfs).catch((error: unknown) => {
    throw new WalkthroughError(
      `no PDFs in ${pdfs} and the book could not be printed from ${book} (--book: a git dir of rust-lang/book ` +
        `holding ${BOOK_COMMIT}): ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  console.log(
    `${files.length} PDFs in ${pdfs} (${seconds(Date.now() - printing)} s to print or find; load ${load()})`,
  );

  const server = await serveStatic(DIST);
  const { harness, close } = await openHarness(server.origin, DIST, 'walkthrough');
  const { page } = harness;
  const deadline = Date.now() + timeoutMs;
  const result: Record<string, unknown> = { files: files.length, loadAtStart: load() };
  try {
    await page.goto(`${server.origin}/#library`);
    await page.waitForSelector('[data-indexing]');
    // The folder chosen, then the first question at once, as a new user asks it.
    const t0 = Date.now();
    const since = () => Date.now() - t0;
    await page.setInputFiles('input[type="file"][webkitdirectory]', pdfs);
    await page.click('a[href="#ask"]');
    await page.fill('[data-testid="question"]', questions[0].question);
    await page.click('[data-testid="ask"]');
    const askedAt = since();
    console.log(`folder chosen; "${questions[0].id}" asked ${seconds(askedAt)} s after (load ${load()})`);

    const at: Record<'firstEvidence' | 'firstSettled' | 'lexicalReady' | 'stored' | 'done', number | null> = {
      firstEvidence: null,
      firstSettled: null,
      lexicalReady: null,
      stored: null,
      done: null,
    };
    const note = (key: keyof typeof at, what: string) => {
      if (at[key] !== null) return;
      at[key] = since();
      console.log(`${what} after ${seconds(at[key])} s (load ${load()})`);
    };
    let nextLine = 30_000;
    while (at.done === null) {
      if (Date.now() > deadline) throw new WalkthroughError(`not done after ${timeoutMs / 60_000} minutes`);
      const s = await askState(page);
      if (s.error) throw new WalkthroughError(`the first question: the app says: ${s.error}`);
      if (s.evidence > 0) note('firstEvidence', 'first evidence of the early question');
      if (s.settled) note('firstSettled', 'the early question settled');
      if (s.lexicalReady) note('lexicalReady', '"lexical ready" in the header');
      const p = await page.evaluate(probeLibrary, true);
      if (p.ready && p.documents >= files.length) note('stored', `all ${files.length} files stored`);
      if (p.ready && p.documents > 0 && p.indexing === 'idle' && p.pendingWaiting === 0) {
        note('done', `done (idle, nothing waiting; ${p.documents} documents, ${p.pendingFailed} failed)`);
        result.documents = p.documents;
        result.failed = p.pendingFailed;
        result.header = await page.textContent('[data-testid="layers"]');
        console.log(`  the header says: ${String(result.header).replace(/\s+/g, ' ').trim()}`);
      }
      if (since() >= nextLine) {
        nextLine += 30_000;
        console.log(
          `  ${seconds(since())} s: ${p.documents} documents, ${p.pendingWaiting} waiting (load ${load()})`,
        );
      }
      await sleep(250);
    }
    // Whatever the early question did not show before the end, it shows now (or never: then it is a failure).
    await waitIdle(page, Math.max(0, deadline - Date.now()));
    // The header's layers are read back from the store after the run's last event, a moment after "idle" (3 s at
    // load 5 on this folder): the semantic layer is timed by the header itself, as a user sees it.
    if (!/semantic ready/.test(String(result.header))) {
      await page
        .waitForFunction(
          () => /semantic ready/.test(document.querySelector('[data-testid="layers"]')?.textContent ?? ''),
          undefined,
          { timeout: Math.max(1, Math.min(60_000, deadline - Date.now())), polling: 250 },
        )
        .then(() => {
          result.semanticReady = since();
          console.log(`"semantic ready" in the header after ${seconds(since())} s (load ${load()})`);
        })
        .catch(() => console.log(`no "semantic ready" in the header a minute after done (load ${load()})`));
    }
    Object.assign(result, { askedAt, ...at, loadAtDone: load() });

    const answers = [];
    for (const q of questions) {
      const ms = await askSettled(page, q.question, deadline);
      const top = await topCard(page);
      const chapter = top ? basename(top.file.replace(/\\/g, '/'), '.pdf') : '';
      const right = q.supporting.includes(chapter);
      answers.push({ id: q.id, ms, top, right });
      console.log(
        `${q.id} (${seconds(ms)} s, load ${load()}): ${right ? 'right chapter' : `WRONG, expected ${q.supporting.join(' or ')}`} — ` +
          (top
            ? `${top.file} "${top.title}" ${top.page}${top.path ? ` · ${top.path}` : ''} · match ${top.relevance}`
            : 'no card'),
      );
    }
    result.answers = answers;
    result.rightFirst = answers.filter((a) => a.right).length;
    console.log(
      `walkthrough: ${files.length} PDFs; first evidence ${seconds(at.firstEvidence ?? NaN)} s, settled ` +
        `${seconds(at.firstSettled ?? NaN)} s, "lexical ready" ${seconds(at.lexicalReady ?? NaN)} s, all stored ` +
        `${seconds(at.stored ?? NaN)} s, done ${seconds(at.done ?? NaN)} s; right chapter first ` +
        `${String(result.rightFirst)} of ${answers.length}; load ${String(result.loadAtStart)} → ${load()}`,
    );
    harness.assertPrivate('walkthrough');
    if (json) await writeFile(resolve(json), JSON.stringify(result, null, 2) + '\n');
  } finally {
    await close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof WalkthroughError ? `walkthrough: ${error.message}` : error);
  process.exit(1);
});

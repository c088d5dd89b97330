// A drop measured end to end in headless Chromium on the built app: how soon the dropped documents are
// searchable, how soon the first question gets evidence, how soon every sentence has its vector, the peak JS heap,
// IndexedDB bytes per byte of text, and question latency once the library is ready.
//
// Usage: npm run bench:drop -- <file or folder> [--questions <qa.jsonl>] [--question "<text>"]
//          [--until searchable|graph|embedded] [--ask-count 50] [--timeout-seconds 3600] [--no-build] [--json <out.json>]
//          [--lexical] [--heap-snapshot <file.heapsnapshot>] [--ask-every <seconds>] [--split-lines <n>]
//          [--stop-after-ask] [--ask-at stored|searchable]
//   --lexical: sentence vectors off before the drop (the settings table's 'sentenceVectors' = false, the app's
//   "lexical layer only"): no embedder runs, the peaks are the lexical layer's alone (docs/results/limits.md).
//   --ask-every <s>: the first question is asked again every <s> seconds from the drop until the app is idle (and
//   the target state reached), whether or not it has evidence: the query worker's heap however often a question is
//   asked during a drop (issue 44: 805 MB with a question every second); the asks and the query worker's own peak
//   are printed.
//   --split-lines <n>: a .jsonl file is dropped as a folder of files of n lines each (written to a temporary
//   folder), as a user would drop a folder of passages. The app's per-file parse limit (PARSE_TIMEOUT_MS, 30 s of
//   wall time) stopped MuSiQue's one 3.5 MB file at load 25–30 before anything was stored (docs/results/trust.md,
//   round five). Each line gives the same document as in the one file (its text, hence its id, sections, chunks
//   and sentences), so the library and every answer are the same; only an untitled passage's title and the
//   source name name the part. Works on any build (the limit is not a setting), so runs pair with older ones.
//   --ask-at stored|searchable: the first question is asked once, as soon as the app itself says every dropped
//   document is stored (the header's data-stored, the Library view's document count) or searchable (data-searchable:
//   the graph or pages cover them), waited for on the page (a MutationObserver, no timer), in place of the asks from
//   the drop on. Prints the answer's time (click to result), the state it was asked at, and the query worker's steps
//   for it (askTimings: when answered from the stored themes, their reads and where the passages came from).
//   --stop-after-ask: the run ends once the first question after the target state has its answer, without waiting
//   for the app to be idle (the embedding of a drop takes minutes more): for paired runs of that figure alone.
//   --heap-snapshot: at the end (after the questions, the sampler stopped), a heap snapshot of the query worker
//   written to the file, and what it holds by constructor and by holding field printed (lib/heapSnapshot.ts).
//   Builds the app (vite build into E2E_DIST, default dist/; --no-build when it is fresh), serves it with the COOP/COEP headers of the
//   e2e suite, opens a fresh Chromium profile (CHROMIUM_PATH or /usr/bin/chromium) and adds the input through
//   the Library view: a file through its file input, a folder through its folder input (every file below it,
//   as the app's folder drop would take them). Then, timed from the drop:
//   - searchableSeconds: every dropped document is stored with its chunks (IndexedDB: documents ≥ the
//     documents the input yields, counted in Node with the app's own prepareFile and deduplicated by content id,
//     and as many documents have chunks) — or, if that count is never reached (duplicates of documents already
//     stored, refused files), the app is idle with no file waiting. It does not look at vectors, so it stays
//     valid when documents become searchable before their vectors.
//   - firstAnswerSeconds: the Ask view is opened right after the drop and the first question (first line of the
//     QA file, or --question) is asked as soon as the view no longer says the library is empty, again every
//     second until the answer shows evidence.
//   - graphSeconds (--until graph): after searchable, the stored concept graph covers every stored chunk: the app's
//     own "searchable" (it calls a document searchable once the graph covers it), which a drop reaches after its
//     last graph refresh.
//   - embeddedSeconds (--until embedded): no file waiting, the app idle, vector rows = sentences.
//   - peakHeapMB: peak of performance.measureUserAgentSpecificMemory() (page + dedicated workers, bytes typed
//     JavaScript; the page is cross-origin isolated, Chromium runs it eagerly with ForceEagerMeasureMemory),
//     sampled every second; peakPageHeapMB is the page alone (CDP Performance.getMetrics JSHeapUsedSize).
//   - idbMB: CDP Storage.getUsageAndQuota usage breakdown 'indexeddb' for the origin at the end; textMB: UTF-8
//     bytes of the stored documents' extracted text; idbMBPerTextMB.
//   - firstAskMs, askMs {p50, p95}: once the target state is reached, the first question (also
//     firstAskFirstEvidenceMs: to its first evidence on screen, early lexical evidence or the result), then up to
//     --ask-count questions of the QA file (the first one again, now warm), each timed in the page from just
//     before the click on Ask to results on screen (a MutationObserver).
//   - targetToAnswerSeconds: a question asked when the target state was reached, answered this long after it: the
//     first answer minus the target's time when the first answer came later, else when the first question asked
//     after it settled (with --ask-every, the first repeated ask begun after it). firstAskPartial: the answer's note when it was over the documents searchable so far (more coming).
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { isSupportedFile } from '../../src/core/parse/formats.ts';
import { prepareFile } from '../../src/core/prepare.ts';
import { MAX_FILE_BYTES, SENTENCE_VECTORS_SETTING } from '../../src/services/ingest/ingestProtocol.ts';
import type { Diagnostics } from '../../src/ui/workers.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { browserCpuSeconds } from './lib/cpuTime.ts';
import { snapshotWorker } from './lib/heapSnapshot.ts';
import {
  documentsWithChunks,
  graphCoverage,
  measureMemory,
  probeLibrary,
  putSetting,
  storedTextBytes,
  timedAsk,
  vectorRows,
  type AskProbe,
  type LibraryProbe,
} from './lib/dropProbes.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE =
  'usage: npm run bench:drop -- <file or folder> [--questions <qa.jsonl>] [--question "<text>"] ' +
  '[--until searchable|graph|embedded] [--ask-count 50] [--timeout-seconds 3600] [--no-build] [--json <out.json>] ' +
  '[--lexical] [--heap-snapshot <file.heapsnapshot>] [--ask-every <seconds>] [--split-lines <n>] [--stop-after-ask] ' +
  '[--ask-at stored|searchable]';
const DEFAULT_QUESTION = 'What is this about?';
const FLAGS = new Set(['no-build', 'lexical', 'stop-after-ask']);
const MB = 1024 * 1024;
/** The e2e suite's flags, and eager memory measurement (else measureUserAgentSpecificMemory waits for a GC). */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--enable-blink-features=ForceEagerMeasureMemory',
];

class BenchError extends Error {}

interface Options {
  input: string;
  questions: string | null;
  question: string | null;
  until: 'searchable' | 'graph' | 'embedded';
  askCount: number;
  timeoutMs: number;
  build: boolean;
  /** --stop-after-ask: end once the first question after the target state is answered (no wait for idle). */
  stopAfterAsk: boolean;
  json: string | null;
  lexical: boolean;
  heapSnapshot: string | null;
  /** Seconds between the repeated asks of --ask-every; null: the first question until it has evidence. */
  askEverySeconds: number | null;
  /** Lines per file when a .jsonl input is dropped as a folder of parts (--split-lines); null: as it is. */
  splitLines: number | null;
  /** --ask-at: the first question asked once when the app says every document is stored, or searchable. */
  askAt: 'stored' | 'searchable' | null;
}

function parseArgs(argv: string[]): Options {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      positionals.push(a);
      continue;
    }
    const name = a.slice(2);
    if (FLAGS.has(name)) {
      flags.add(name);
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--'))
      throw new BenchError(`--${name} needs a value\n${USAGE}`);
    values.set(name, value);
    i++;
  }
  const known = new Set([
    'questions',
    'question',
    'until',
    'ask-count',
    'timeout-seconds',
    'json',
    'heap-snapshot',
    'ask-every',
    'split-lines',
    'ask-at',
  ]);
  for (const name of values.keys())
    if (!known.has(name)) throw new BenchError(`unknown option --${name}\n${USAGE}`);
  if (positionals.length !== 1) throw new BenchError(USAGE);
  const until = values.get('until') ?? 'searchable';
  if (until !== 'searchable' && until !== 'graph' && until !== 'embedded')
    throw new BenchError(`--until must be searchable, graph or embedded, got ${until}`);
  const askCount = Number(values.get('ask-count') ?? '50');
  const timeoutSeconds = Number(values.get('timeout-seconds') ?? '3600');
  if (flags.has('lexical') && until === 'embedded')
    throw new BenchError('--lexical stores no sentence vectors: use --until searchable');
  if (!Number.isInteger(askCount) || askCount < 0) throw new BenchError('--ask-count must be an integer ≥ 0');
  if (!(timeoutSeconds > 0)) throw new BenchError('--timeout-seconds must be a positive number');
  const askEvery = values.has('ask-every') ? Number(values.get('ask-every')) : null;
  if (askEvery !== null && !(askEvery > 0))
    throw new BenchError('--ask-every must be a positive number of seconds');
  const splitLines = values.has('split-lines') ? Number(values.get('split-lines')) : null;
  if (splitLines !== null && !(Number.isInteger(splitLines) && splitLines > 0))
    throw new BenchError('--split-lines must be an integer ≥ 1');
  if (splitLines !== null && !positionals[0].endsWith('.jsonl'))
    throw new BenchError(`--split-lines splits a .jsonl file; ${positionals[0]} is not one`);
  const askAt = values.get('ask-at') ?? null;
  if (askAt !== null && askAt !== 'stored' && askAt !== 'searchable')
    throw new BenchError(`--ask-at must be stored or searchable, got ${askAt}`);
  if (askAt !== null && askEvery !== null)
    throw new BenchError('--ask-at and --ask-every ask differently: one');
  return {
    input: resolve(positionals[0]),
    splitLines,
    askAt,
    questions: values.has('questions') ? resolve(values.get('questions') as string) : null,
    question: values.get('question') ?? null,
    until,
    askCount,
    timeoutMs: timeoutSeconds * 1000,
    build: !flags.has('no-build'),
    stopAfterAsk: flags.has('stop-after-ask'),
    lexical: flags.has('lexical'),
    askEverySeconds: askEvery,
    heapSnapshot: values.has('heap-snapshot') ? resolve(values.get('heap-snapshot') as string) : null,
    json: values.has('json') ? resolve(values.get('json') as string) : null,
  };
}

/**
 * Writes `file`'s lines into a new temporary folder, `n` lines a file (<name>-0001.jsonl, …), blank lines dropped
 * (the parser skips them too). Returns the folder.
 */
async function splitJsonl(file: string, n: number): Promise<string> {
  const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim());
  const folder = await mkdtemp(join(tmpdir(), 'conceptrag-drop-split-'));
  const stem = basename(file, '.jsonl');
  const parts = Math.ceil(lines.length / n);
  const width = Math.max(4, String(parts).length);
  for (let p = 0; p < parts; p++) {
    const name = `${stem}-${String(p + 1).padStart(width, '0')}.jsonl`;
    await writeFile(join(folder, name), lines.slice(p * n, (p + 1) * n).join('\n') + '\n');
  }
  console.log(`split ${file} into ${parts} file(s) of ≤ ${n} lines in ${folder}`);
  return folder;
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}

/** Documents the app would store from these files: parsed with its own prepareFile, distinct content ids. */
async function expectedDocuments(files: string[], base: string): Promise<number> {
  const ids = new Set<string>();
  for (const file of files) {
    const name = relative(base, file) || file;
    const leaf = name.split('/').pop() ?? name;
    if (leaf.startsWith('.') || !isSupportedFile(name)) continue;
    const bytes = await readFile(file);
    if (bytes.byteLength > MAX_FILE_BYTES) continue;
    const { documents } = await prepareFile(name, new Uint8Array(bytes));
    for (const d of documents) ids.add(d.doc.id);
  }
  return ids.size;
}

async function readQuestions(path: string | null, fixed: string | null): Promise<string[]> {
  if (!path) return [fixed ?? DEFAULT_QUESTION];
  const text = await readFile(path, 'utf8').catch(() => {
    throw new BenchError(`questions file ${path} cannot be read`);
  });
  const questions = text
    .split('\n')
    .filter((l) => l.trim())
    .map((l, i) => {
      const q = (JSON.parse(l) as { question?: unknown }).question;
      if (typeof q !== 'string' || !q.trim()) throw new BenchError(`${path}:${i + 1} has no "question"`);
      return q.trim();
    });
  if (questions.length === 0) throw new BenchError(`questions file ${path} holds no question`);
  return fixed ? [fixed, ...questions] : questions;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (x: number | null, digits = 2) => (x === null ? null : Number(x.toFixed(digits)));
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Asks `question` in the Ask view (it must be open): types it, then one timed click. */
async function askOnce(page: Page, question: string, timeoutMs: number): Promise<AskProbe> {
  await page.fill('[data-testid="question"]', question);
  return page.evaluate(timedAsk, timeoutMs);
}

interface Sampler {
  stop(): Promise<void>;
  peakJs: number;
  peakTotal: number;
  peakPage: number;
  /** The realms of the sample with the peak JS heap (MB, largest first). */
  atPeak: { realm: string; MB: number; workers: number }[];
  /** Each realm's own peak over the run (MB): the realms peak at different times. */
  realmPeaks: Map<string, number>;
  /** Every sample: seconds since the sampler started, MB per realm (written to --json only). */
  timeline: { s: number; MB: Record<string, number> }[];
  samples: number;
  source: string;
  /** Seconds after the start when the next heap line is printed. */
  nextLine: number;
}

/** Seconds between the heap lines a run prints as it goes. */
const HEAP_LINE_SECONDS = 30;

/** Every second: measureUserAgentSpecificMemory (page + workers) and the page's own heap from CDP. */
function startMemorySampler(page: Page, cdp: CDPSession): Sampler {
  let running = true;
  const sampler: Sampler = {
    peakJs: 0,
    peakTotal: 0,
    peakPage: 0,
    atPeak: [],
    realmPeaks: new Map(),
    timeline: [],
    samples: 0,
    nextLine: HEAP_LINE_SECONDS,
    source: 'performance.measureUserAgentSpecificMemory (page + dedicated workers, JavaScript bytes)',
    stop: async () => {
      running = false;
      await loop;
    },
  };
  const started = Date.now();
  const loop = (async () => {
    let uasm = true;
    while (running) {
      const t = Date.now();
      try {
        const { metrics } = await cdp.send('Performance.getMetrics');
        const used = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
        sampler.peakPage = Math.max(sampler.peakPage, used);
        if (uasm) {
          const m = await page.evaluate(measureMemory);
          if (m) {
            if (m.js > sampler.peakJs) {
              sampler.atPeak = m.realms.map((r) => ({
                realm: r.realm,
                MB: Number((r.bytes / MB).toFixed(1)),
                workers: r.workers,
              }));
            }
            sampler.timeline.push({
              s: Math.round((Date.now() - started) / 1000),
              MB: Object.fromEntries(m.realms.map((r) => [r.realm, Number((r.bytes / MB).toFixed(1))])),
            });
            for (const r of m.realms)
              sampler.realmPeaks.set(r.realm, Math.max(sampler.realmPeaks.get(r.realm) ?? 0, r.bytes));
            sampler.peakJs = Math.max(sampler.peakJs, m.js);
            // A line every HEAP_LINE_SECONDS: a long run shows its heap before it ends (or is stopped).
            const s = Math.round((Date.now() - started) / 1000);
            if (s >= sampler.nextLine) {
              sampler.nextLine = s + HEAP_LINE_SECONDS;
              // The query worker's own peak so far (1-s samples): a run stopped before its end still gives it.
              const queryPeak = [...sampler.realmPeaks].find(([realm]) => realm.startsWith('query'))?.[1];
              console.log(
                `  heap at ${s} s: ${m.realms.map((r) => `${r.realm} ${(r.bytes / MB).toFixed(0)}`).join(', ')} MB` +
                  `${queryPeak === undefined ? '' : `; query peak so far ${(queryPeak / MB).toFixed(0)} MB`} ` +
                  `(load ${load()})`,
              );
            }
            sampler.peakTotal = Math.max(sampler.peakTotal, m.total);
          } else {
            uasm = false;
            sampler.source =
              'CDP Performance.getMetrics JSHeapUsedSize (page only: measureUserAgentSpecificMemory unavailable)';
          }
        }
        sampler.samples += 1;
      } catch {
        // A sample lost to a navigation or the closing page: the next one counts.
      }
      await sleep(Math.max(0, 1000 - (Date.now() - t)));
    }
  })();
  return sampler;
}

async function launch(profile: string): Promise<BrowserContext> {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1200, height: 900 },
  });
  // tsx compiles with esbuild's keepNames, which wraps the functions handed to page.evaluate in __name(...).
  await context.addInitScript({ content: 'globalThis.__name ??= (fn) => fn;' });
  return context;
}

async function main(): Promise<void> {
  const given = parseArgs(process.argv.slice(2));
  if (!(await stat(given.input).catch(() => null)))
    throw new BenchError(`input ${given.input} does not exist`);
  // --split-lines: the parts' folder is the input from here on (and removed at the end).
  const splitFolder = given.splitLines === null ? null : await splitJsonl(given.input, given.splitLines);
  const opts = splitFolder ? { ...given, input: splitFolder } : given;
  const info = await stat(opts.input);
  const isFolder = info.isDirectory();
  const files = isFolder ? await listFiles(opts.input) : [opts.input];
  if (files.length === 0) throw new BenchError(`input folder ${opts.input} holds no file`);
  const inputBytes = (await Promise.all(files.map((f) => stat(f)))).reduce((n, s) => n + s.size, 0);
  const questions = await readQuestions(opts.questions, opts.question);

  // E2E_DIST: a folder of one's own, so a bench never overwrites the dist/ another build or test is serving.
  const dist = resolve(process.env.E2E_DIST ?? join(root, 'dist'));
  if (opts.build) {
    console.log(`building the app (vite build into ${dist})…`);
    const built = spawnSync(
      'npx',
      ['vite', 'build', '--logLevel', 'warn', '--outDir', dist, '--emptyOutDir'],
      {
        cwd: root,
        stdio: 'inherit',
      },
    );
    if (built.status !== 0) throw new BenchError(`the build failed (vite build exited with ${built.status})`);
  }
  await stat(join(dist, 'index.html')).catch(() => {
    throw new BenchError(`no built app at ${dist} (drop --no-build, or run npm run build)`);
  });
  await stat(join(dist, 'models')).catch(() => {
    throw new BenchError(
      `${dist} has no models/ (the embedding model and WASM files are copied into public/ by npm install's ` +
        'postinstall: run node src/tools/copy-assets.mjs, then build again)',
    );
  });

  const expected = await expectedDocuments(files, isFolder ? opts.input : dirname(opts.input));
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: root,
    encoding: 'utf8',
  }).stdout.trim();
  console.log(
    `input ${opts.input}: ${files.length} file(s), ${(inputBytes / MB).toFixed(2)} MB, ${expected} document(s) ` +
      `expected; ${questions.length} question(s); until ${opts.until}; commit ${commit}; load ${load()}`,
  );

  const loadStart = load();
  const server = await serveStatic(dist);
  const profile = await mkdtemp(join(tmpdir(), 'conceptrag-drop-profile-'));
  const context = await launch(profile);
  // Interrupted: the browser and the temporary profile go too.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void context
        .close()
        .catch(() => undefined)
        .then(() => rm(profile, { recursive: true, force: true }))
        .then(() => (splitFolder ? rm(splitFolder, { recursive: true, force: true }) : undefined))
        .finally(() => process.exit(130));
    });
  }
  const deadline = Date.now() + opts.timeoutMs;
  const left = () => {
    const ms = deadline - Date.now();
    if (ms <= 0) throw new BenchError(`timeout: ${opts.timeoutMs / 1000} s passed (--timeout-seconds)`);
    return ms;
  };
  let sampler: Sampler | null = null;
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => console.log(`  page error: ${error.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') console.log(`  console: ${msg.text()}`);
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.goto(`${server.origin}/#library`);
    await page.waitForSelector('[data-indexing]', { timeout: 60_000 });
    const isolated = await page.evaluate(() => crossOriginIsolated);
    if (!isolated) throw new BenchError('the page is not cross-origin isolated (COOP/COEP headers missing)');
    if (opts.lexical) {
      // The app creates its stores as it opens; the setting must be in before the drop's first drain reads it.
      const until = Date.now() + 30_000;
      while (!(await page.evaluate(putSetting, { key: SENTENCE_VECTORS_SETTING, value: false }))) {
        if (Date.now() > until) throw new BenchError('the app did not create its settings store within 30 s');
        await sleep(250);
      }
      console.log('sentence vectors off (--lexical): the lexical layer only');
    }
    sampler = startMemorySampler(page, cdp);

    // The drop: a folder through the folder input (webkitdirectory), a file through the file input.
    const t0 = performance.now();
    const since = () => (performance.now() - t0) / 1000;
    // The browser's own CPU seconds from the drop on (lib/cpuTime.ts): wall time against CPU time separates a
    // busy machine from more work.
    const cpu0 = browserCpuSeconds(profile);
    const cpuSince = () => {
      const now = browserCpuSeconds(profile);
      return now === null || cpu0 === null ? null : round(now - cpu0, 1);
    };
    if (isFolder) await page.setInputFiles('input[type="file"][webkitdirectory]', opts.input);
    else await page.setInputFiles('[data-testid="file-input"]', opts.input);

    // Watched from Node every 250 ms while the Ask view is driven below.
    let searchableSeconds: number | null = null;
    let searchableCpuSeconds: number | null = null;
    /** Every dropped file is in the store (queued with its bytes, or already stored as documents). */
    let recordedSeconds: number | null = null;
    let searchableSignal = '';
    let embeddedSeconds: number | null = null;
    /** --until graph: the stored graph covers every stored chunk (the app's own "searchable" for each document). */
    let graphSeconds: number | null = null;
    let graphStamp = '';
    let idleSeconds: number | null = null;
    let last: LibraryProbe | null = null;
    let watchError: unknown = null;
    let watching = true;
    const watcher = (async () => {
      while (
        watching &&
        (searchableSeconds === null ||
          idleSeconds === null ||
          (opts.until === 'embedded' && embeddedSeconds === null) ||
          (opts.until === 'graph' && graphSeconds === null))
      ) {
        try {
          const p = await page.evaluate(probeLibrary, false);
          const at = since();
          last = p;
          const idle = p.ready && p.indexing === 'idle' && p.pendingWaiting === 0;
          if (
            recordedSeconds === null &&
            p.ready &&
            p.pendingWaiting + p.documents >= expected &&
            expected > 0
          ) {
            recordedSeconds = at;
            console.log(`every file recorded in the store after ${at.toFixed(1)} s`);
          }
          if (idleSeconds === null && idle && p.documents > 0) idleSeconds = at;
          if (searchableSeconds === null && p.ready) {
            if (
              p.documents >= expected &&
              expected > 0 &&
              (await page.evaluate(documentsWithChunks)) >= expected
            ) {
              searchableSeconds = at;
              searchableSignal = `IndexedDB: ${p.documents} documents stored, ${expected} with chunks`;
            } else if (idle && at > 2 && p.documents === 0) {
              throw new BenchError(
                `the app is idle ${at.toFixed(1)} s after the drop with no document stored ` +
                  `(${p.pendingFailed} file(s) failed; the Library view says why)`,
              );
            } else if (idle && at > 2) {
              searchableSeconds = at;
              searchableSignal = `app idle, no file waiting (${p.documents} of ${expected} expected documents)`;
            }
            if (searchableSeconds !== null) {
              searchableCpuSeconds = cpuSince();
              console.log(
                `searchable after ${at.toFixed(1)} s (${searchableSignal}); the browser used ` +
                  `${searchableCpuSeconds ?? '–'} CPU s meanwhile (load ${load()})`,
              );
            }
          }
          if (opts.until === 'graph' && graphSeconds === null && searchableSeconds !== null) {
            const g = await page.evaluate(graphCoverage, graphStamp);
            if (g && g.graphChunks !== null) {
              graphStamp = g.stamp;
              if (g.chunks > 0 && g.graphChunks >= g.chunks) {
                graphSeconds = at;
                console.log(
                  `the stored graph covers every chunk (${g.chunks}) after ${at.toFixed(1)} s (load ${load()})`,
                );
              }
            }
          }
          if (opts.until === 'embedded' && embeddedSeconds === null && idle && p.documents > 0) {
            const v = await page.evaluate(vectorRows);
            if (v.vectors === v.sentences) {
              embeddedSeconds = at;
              console.log(`embedded after ${at.toFixed(1)} s (${v.vectors} vectors = sentences)`);
            }
          }
        } catch (error) {
          watchError = error;
          return;
        }
        if (Date.now() > deadline) return;
        await sleep(250);
      }
    })();
    const targetReached = () =>
      opts.until === 'embedded'
        ? embeddedSeconds !== null
        : opts.until === 'graph'
          ? graphSeconds !== null
          : searchableSeconds !== null;

    // The first question, in the Ask view, as soon as the app lets it.
    await page.click('a[href="#ask"]');
    await page.waitForSelector('[data-testid="question"]', { timeout: 30_000 });
    let firstAnswerSeconds: number | null = null;
    // Set by the watcher above while this loop runs (a read through a function, which TypeScript does not narrow).
    const searchableAt = (): number | null => searchableSeconds;
    let attempts = 0;
    /** --ask-at: the state the question was asked at (s after the drop), its answer, and the worker's steps. */
    let askedAt: { state: number; probe: AskProbe; steps: Record<string, number> | null } | null = null;
    if (opts.askAt !== null) {
      // The app's own count, as the header carries it: no poll of the store, no timer.
      const reached = page.evaluate(
        ({ attribute, documents }) =>
          new Promise<void>((done) => {
            const header = document.querySelector('[data-testid="layers"]');
            if (!header) throw new Error('no [data-testid="layers"] in the page');
            const observer = new MutationObserver(() => check());
            const check = () => {
              const value = header.getAttribute(attribute);
              if (value === null || Number(value) < documents) return;
              observer.disconnect();
              done();
            };
            observer.observe(header, { attributes: true, attributeFilter: [attribute] });
            check();
          }),
        { attribute: `data-${opts.askAt}`, documents: expected },
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        reached,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new BenchError(`timeout: not ${opts.askAt} after ${opts.timeoutMs / 1000} s`)),
            left(),
          );
        }),
      ]).finally(() => clearTimeout(timer));
      const state = since();
      const probe = await askOnce(page, questions[0], left());
      attempts = 1;
      const steps = await page.evaluate(async () =>
        (globalThis as unknown as { conceptragDiagnostics: Diagnostics }).conceptragDiagnostics.askTimings(),
      );
      askedAt = { state, probe, steps };
      // A content question is answered from the library in memory: where the query worker's last load of it spent its
      // time (null: none yet), and when it began against the click (beganAtEpochMs − clickedAt).
      const askLoad = await page.evaluate(async () =>
        (globalThis as unknown as { conceptragDiagnostics: Diagnostics }).conceptragDiagnostics.loadTimings(),
      );
      console.log(
        `  the query worker's last library load: ${JSON.stringify(askLoad)}` +
          `${askLoad?.beganAtEpochMs ? ` (began ${(askLoad.beganAtEpochMs - probe.clickedAt).toFixed(0)} ms after the click)` : ''}`,
      );
      if (probe.evidence > 0) firstAnswerSeconds = state + probe.ms / 1000;
      const themes = await page.locator('[data-testid="theme"]').count();
      console.log(
        `${opts.askAt} (the app's data-${opts.askAt} = ${expected}) after ${state.toFixed(1)} s; the question ` +
          `asked then answered in ${probe.ms.toFixed(0)} ms (${probe.evidence} passages` +
          `${steps?.startedAt ? `; the worker began it ${(steps.startedAt - probe.clickedAt).toFixed(0)} ms after the click` : ''}` +
          `${themes > 0 ? `, the themes answer with ${themes} themes` : ''}); the query worker's steps: ` +
          `${JSON.stringify(steps && Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, round(v, 1)])))}` +
          ` (load ${load()})`,
      );
    }
    while (firstAnswerSeconds === null && askedAt === null) {
      if (watchError) throw watchError;
      const r = await askOnce(page, questions[0], left());
      if (!r.empty) attempts += 1;
      if (r.evidence > 0) {
        firstAnswerSeconds = since();
        // A corpus-wide question ("What is this about?") is answered by the library's themes (issue 48).
        const themes = await page.locator('[data-testid="theme"]').count();
        console.log(
          `first answer after ${firstAnswerSeconds.toFixed(1)} s (${attempts} ask(s), ${r.evidence} passages` +
            `${themes > 0 ? `, the themes answer with ${themes} themes` : ''}); searchable ` +
            `${searchableAt() === null ? 'not yet' : `after ${searchableAt()!.toFixed(1)} s`}`,
        );
        break;
      }
      await sleep(r.empty ? 250 : 1000);
    }

    // --ask-every: the question again and again while the drop goes on, until idle and the target state.
    let repeatedAsks = 0;
    /** The first repeated ask begun once the target state was reached: when it began (s), and its answer. */
    let repeatedAfterTarget: { at: number; probe: AskProbe } | null = null;
    if (opts.askEverySeconds !== null) {
      while (!(targetReached() && idleSeconds !== null)) {
        if (watchError) throw watchError;
        const t = Date.now();
        const at = since();
        const reached = targetReached();
        const r = await askOnce(page, questions[0], left());
        if (!r.empty) repeatedAsks += 1;
        if (reached && repeatedAfterTarget === null && !r.empty) {
          repeatedAfterTarget = { at, probe: r };
          console.log(
            `first repeated ask after ${opts.until}: first evidence ${r.firstEvidenceMs.toFixed(0)} ms ` +
              `(${r.firstEvidenceStage}), result ${r.ms.toFixed(0)} ms, ${r.evidence} passages (load ${load()})`,
          );
        }
        await sleep(Math.max(0, opts.askEverySeconds * 1000 - (Date.now() - t)));
      }
      console.log(
        `asked ${repeatedAsks} more time(s) every ${opts.askEverySeconds} s until idle; the query worker's peak so ` +
          `far: ${(Math.max(0, ...[...(sampler?.realmPeaks ?? new Map<string, number>())].filter(([r]) => r.startsWith('query')).map(([, b]) => b)) / MB).toFixed(1)} MB`,
      );
    }

    if (askedAt !== null && opts.stopAfterAsk) {
      watching = false;
      await watcher;
      console.log(
        `ASK-AT ${JSON.stringify({ askAt: opts.askAt, stateSeconds: round(askedAt.state), answerMs: round(askedAt.probe.ms, 0), clickedAt: askedAt.probe.clickedAt, evidence: askedAt.probe.evidence, steps: askedAt.steps, commit, load: load() })}`,
      );
      console.log(`stopped after the question (--stop-after-ask); load ${load()}`);
      return;
    }

    while (!targetReached()) {
      if (watchError) throw watchError;
      if (Date.now() > deadline) {
        throw new BenchError(
          `timeout: not ${opts.until} after ${opts.timeoutMs / 1000} s (--timeout-seconds); last state ` +
            JSON.stringify(last),
        );
      }
      await sleep(250);
    }

    // Questions once the target state is reached.
    const firstAskAt = since();
    const first = await askOnce(page, questions[0], left());
    const firstAskMs = first.ms;
    // A question asked the moment the target state was reached is answered by then: by the first answer when that came
    // later (the question was being asked from the drop on), else by the question asked now (issue 48's "within 2 s
    // of searchable").
    const reachedAt =
      opts.until === 'embedded' ? embeddedSeconds : opts.until === 'graph' ? graphSeconds : searchableSeconds;
    const targetToAnswerSeconds =
      reachedAt === null
        ? null
        : firstAnswerSeconds !== null && firstAnswerSeconds >= reachedAt
          ? firstAnswerSeconds - reachedAt
          : repeatedAfterTarget !== null
            ? repeatedAfterTarget.at - reachedAt + repeatedAfterTarget.probe.ms / 1000
            : firstAskAt - reachedAt + firstAskMs / 1000;
    // The answer says when it is over the documents searchable so far, with more being added (askAgain.ts).
    const partial = (
      await page
        .locator('[data-testid="awaiting-graph"]')
        .textContent()
        .catch(() => null)
    )?.trim();
    // Where the query worker's last library load spent its time (the reload after the last change, if any).
    const firstAskWorkerLoad = await page.evaluate(async () =>
      (globalThis as unknown as { conceptragDiagnostics: Diagnostics }).conceptragDiagnostics.loadTimings(),
    );
    console.log(
      `first question after ${opts.until}: first evidence ${first.firstEvidenceMs.toFixed(0)} ms ` +
        `(${first.firstEvidenceStage}), result ${firstAskMs.toFixed(0)} ms, ${first.evidence} passages` +
        `${(await page.locator('[data-testid="theme"]').count()) > 0 ? ' (the themes answer)' : ''}; ` +
        `${partial ? `${partial.replace(/\s+/g, ' ')}; ` : ''}` +
        `the query worker's last load: ${JSON.stringify(firstAskWorkerLoad)}`,
    );
    if (targetToAnswerSeconds !== null)
      console.log(
        `a question asked when ${opts.until} was reached is answered ${targetToAnswerSeconds.toFixed(2)} s after it ` +
          `(${(firstAnswerSeconds ?? 0) >= (reachedAt ?? 0) ? 'the first answer, asked from the drop on' : repeatedAfterTarget ? 'the first repeated ask begun then' : 'the question asked then'}; load ${load()})`,
      );
    if (opts.stopAfterAsk) {
      watching = false;
      await watcher;
      console.log(`stopped after the question (--stop-after-ask); load ${load()}`);
      return;
    }
    const series = opts.askCount > 0 && opts.questions ? questions.slice(0, opts.askCount) : [];
    const times: number[] = [];
    let noEvidence = 0;
    let errors = 0;
    for (const q of series) {
      const r = await askOnce(page, q, left());
      times.push(r.ms);
      if (r.error) errors += 1;
      else if (r.evidence === 0) noEvidence += 1;
    }
    times.sort((a, b) => a - b);

    // Storage once the app is done with the drop (idle, nothing waiting): the library's final size.
    while (idleSeconds === null && !watchError && Date.now() < deadline) await sleep(250);
    watching = false;
    await watcher;
    if (watchError) throw watchError;
    const stillIndexing = idleSeconds === null;
    const usage = await cdp.send('Storage.getUsageAndQuota', { origin: server.origin });
    const idbBytes = usage.usageBreakdown.find((b) => b.storageType === 'indexeddb')?.usage ?? 0;
    const estimate = await page.evaluate(async () => {
      const e = (await navigator.storage.estimate()) as StorageEstimate & {
        usageDetails?: { indexedDB?: number };
      };
      return e.usageDetails?.indexedDB ?? null;
    });
    const text = await page.evaluate(storedTextBytes);
    const counts = await page.evaluate(probeLibrary, false);
    const vectors = await page.evaluate(vectorRows);
    await sampler.stop();
    const s = sampler;
    sampler = null;

    const idbMB = idbBytes / MB;
    const textMB = text.bytes / MB;
    const result = {
      input: given.input,
      splitLines: opts.splitLines,
      inputFiles: files.length,
      inputMB: round(inputBytes / MB, 3),
      expectedDocuments: expected,
      questions: opts.questions,
      until: opts.until,
      lexicalOnly: opts.lexical,
      commit,
      date: new Date().toISOString(),
      loadAverage: { start: loadStart, end: load() },
      searchableSeconds: round(searchableSeconds),
      // The browser's CPU seconds from the drop to searchable (all its processes and threads).
      searchableCpuSeconds,
      recordedSeconds: round(recordedSeconds),
      searchableSignal,
      firstAnswerSeconds: round(firstAnswerSeconds),
      firstAnswerAsks: attempts,
      askAt:
        askedAt === null
          ? null
          : {
              state: opts.askAt,
              stateSeconds: round(askedAt.state),
              answerMs: round(askedAt.probe.ms, 0),
              evidence: askedAt.probe.evidence,
              steps: askedAt.steps,
            },
      repeatedAsks,
      askEverySeconds: opts.askEverySeconds,
      embeddedSeconds: round(embeddedSeconds),
      graphSeconds: round(graphSeconds),
      // Until the app was idle with nothing waiting (indexing, embedding and concept graph done).
      idleSeconds: round(idleSeconds),
      peakHeapMB: round(s.source.startsWith('performance') ? s.peakJs / MB : s.peakPage / MB, 1),
      peakHeapTotalMB: round(s.peakTotal / MB, 1),
      peakPageHeapMB: round(s.peakPage / MB, 1),
      // Per realm (page, each worker script): its share of the peak sample, and its own peak.
      peakHeapRealms: s.atPeak,
      realmPeakMB: Object.fromEntries(
        [...s.realmPeaks].sort((a, b) => b[1] - a[1]).map(([realm, bytes]) => [realm, round(bytes / MB, 1)]),
      ),
      heapSource: s.source,
      heapSamples: s.samples,
      idbMB: round(idbMB, 3),
      idbSource: "CDP Storage.getUsageAndQuota usageBreakdown 'indexeddb'",
      idbEstimateMB: estimate === null ? null : round(estimate / MB, 3),
      textMB: round(textMB, 3),
      textSource: 'UTF-8 bytes of the stored documents’ extracted text (IndexedDB documents.text)',
      idbMBPerTextMB: textMB > 0 ? round(idbMB / textMB, 2) : null,
      stillIndexingAtEnd: stillIndexing,
      counts: { ...counts, vectors: vectors.vectors },
      firstAskMs: round(firstAskMs, 0),
      targetToAnswerSeconds: round(targetToAnswerSeconds),
      firstAskPartial: partial ?? null,
      firstAskEvidence: first.evidence,
      // The first evidence on screen: early lexical evidence (stale: from the library before its last change,
      // which the query worker answers from while it loads the new one), or the result when none came first.
      firstAskFirstEvidenceMs: round(first.firstEvidenceMs, 0),
      firstAskFirstEvidenceStage: first.firstEvidenceStage,
      firstAskWorkerLoad,
      askMs: {
        n: times.length,
        p50: round(percentile(times, 50), 0),
        p95: round(percentile(times, 95), 0),
        noEvidence,
        errors,
      },
    };
    if (opts.json) {
      await mkdir(dirname(opts.json), { recursive: true });
      await writeFile(opts.json, JSON.stringify({ ...result, heapTimeline: s.timeline }, null, 2) + '\n');
    }
    const f = (x: number | null, unit: string) => (x === null ? '–' : `${x}${unit}`);
    console.log(
      `drop ${files.length} file(s) ${result.inputMB} MB: searchable ${f(result.searchableSeconds, ' s')}, ` +
        `first answer ${f(result.firstAnswerSeconds, ' s')}, embedded ${f(result.embeddedSeconds, ' s')}, ` +
        `peak heap ${f(result.peakHeapMB, ' MB')}, IndexedDB ${f(result.idbMB, ' MB')} for ` +
        `${f(result.textMB, ' MB')} text (${f(result.idbMBPerTextMB, '×')}), first ask ${f(result.firstAskMs, ' ms')}, ` +
        `ask p50 ${f(result.askMs.p50, ' ms')} p95 ${f(result.askMs.p95, ' ms')} (n=${times.length}); ` +
        `load ${loadStart} → ${result.loadAverage.end}` +
        (opts.json ? `; ${opts.json}` : ''),
    );
    console.log(
      `peak heap by realm: ${s.atPeak.map((r) => `${r.realm}${r.workers > 1 ? ` ×${r.workers}` : ''} ${r.MB} MB`).join(', ')}; ` +
        `each realm's own peak: ${Object.entries(result.realmPeakMB)
          .map(([realm, mb]) => `${realm} ${mb} MB`)
          .join(', ')}`,
    );
    if (opts.heapSnapshot) {
      const heap = await snapshotWorker(context, page, 'query', opts.heapSnapshot);
      await writeFile(`${opts.heapSnapshot}.summary.json`, JSON.stringify(heap, null, 2) + '\n');
      console.log(`heap snapshot of ${heap.worker}: ${heap.totalMB} MB (${opts.heapSnapshot})`);
      console.log(
        `  by constructor: ${heap.byConstructor.map((g) => `${g.name} ${g.MB} MB (${g.count})`).join('; ')}`,
      );
      console.log(`  by holder: ${heap.byHolder.map((g) => `${g.name} ${g.MB} MB (${g.count})`).join('; ')}`);
    }
  } finally {
    // A run that ends early (timeout, error) still says each realm's peak over what it sampled.
    if (sampler && sampler.realmPeaks.size > 0)
      console.log(
        `each realm's own peak before the run ended: ${[...sampler.realmPeaks]
          .sort((a, b) => b[1] - a[1])
          .map(([realm, bytes]) => `${realm} ${(bytes / MB).toFixed(1)} MB`)
          .join(', ')} (${sampler.samples} samples; load ${load()})`,
      );
    await sampler?.stop().catch(() => undefined);
    await context.close().catch(() => undefined);
    await server.close();
    await rm(profile, { recursive: true, force: true });
    if (splitFolder) await rm(splitFolder, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof BenchError ? `drop bench: ${error.message}` : error);
  process.exit(1);
});

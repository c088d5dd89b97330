// A large folder dropped in headless Chromium on the built app, lexical layer only (issue 25): the folder made by
// scale-corpus.ts goes through the Library view's folder input with sentence vectors off (the setting the app's
// own "lexical only" choice stores), and the bench prints
//   - searchableSeconds: from the drop until every file's document is stored with its chunks (IndexedDB counts;
//     each file of a scale corpus is one document with a distinct text), or the app idle with nothing waiting;
//   - the peak JS heap of the page and of each worker realm (lib/heapSampler.ts: measureUserAgentSpecificMemory
//     per realm, and the page's CDP heap), over the drop and over the questions after it;
//   - IndexedDB size: CDP Storage.getUsageAndQuota ('indexeddb'), navigator.storage.estimate (usageDetails), the
//     profile's IndexedDB folder on disk, and the stores' row counts;
//   - the first question once searchable, then the page is closed and the app opened again in a new page (same
//     profile): the time from that navigation to the first question's first evidence on screen;
//   - --ask-count questions (default 30) spread over <folder>.questions.jsonl: ask p50/p95 and, coarsely, how
//     many gold paragraph titles show in the evidence cards (copy 0's documents among their renamed copies).
// When the tab crashes (out of memory), the browser dies, or --timeout-minutes passes, the bench stops there and
// prints what it measured so far with the phase and the reason: at this scale that is a result too.
// Usage: node --import tsx test/bench/scale-browser.ts --folder /work/scale-data/mb100 [--questions <qa.jsonl>]
//        [--ask-count 30] [--timeout-minutes 90] [--stall-seconds 60] [--max-reloads 3] [--no-build] [--json <out.json>]
//   A queue that stops (the app idle while files wait, for --stall-seconds) is recorded with what the page shows
//   and a screenshot, and the page is reloaded (a page that starts resumes the queue it finds), at most
//   --max-reloads times; the stalls are in the result, and the searchable time includes them.
//   Builds the app into E2E_DIST (default dist/) unless --no-build; CHROMIUM_PATH (default /usr/bin/chromium).
//   --ask-during <s>: from 30 s after the drop, the bench goes to the Ask view (the drop goes on) and asks a question
//   every <s> seconds until the library is searchable: each one's time, evidence, where it was answered from (the
//   results' data-from: 'pages', or memory) or the app's refusal (issue 25: no question of a drop is refused); the
//   drop's heap peaks then include the query worker's answering.
// The bench's own cost: it reads the store's counts every --probe-every seconds (default 5: count()s that Chromium
// answers by walking each store, on the browser's IndexedDB thread) and every realm's heap every --heap-every
// seconds (default 5: with ForceEagerMeasureMemory each measurement collects garbage in every realm); each log line
// (every --log-every seconds) prints the wall seconds both spent so far, the documents per second since the line
// before, and the CPU seconds of each busy browser thread meanwhile (lib/threadCpu.ts). --cpu-profile <out> records
// the page's main thread with CDP's Profiler for --profile-seconds (30) once --profile-at (2000) documents
// are stored, writes the .cpuprofile and prints the functions with the most self time (with the CPU seconds of
// every browser thread over the same window: the browser's IndexedDB threads do not show in the page's profile).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { isSupportedFile } from '../../src/core/parse/formats.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import {
  documentsWithChunks,
  probeLibrary,
  timedAsk,
  workerShare,
  type AskProbe,
  watchEvidence,
  type LibraryProbe,
} from './lib/dropProbes.ts';
import { browserCpuSeconds } from './lib/cpuTime.ts';
import { startHeapSampler, type HeapPeaks, type HeapSampler } from './lib/heapSampler.ts';
import { threadCpu, threadDelta, threadLine, type ThreadCpu } from './lib/threadCpu.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE =
  'usage: node --import tsx test/bench/scale-browser.ts --folder <folder> [--questions <qa.jsonl>] ' +
  '[--ask-count 30] [--timeout-minutes 90] [--stall-seconds 60] [--max-reloads 3] [--no-build] [--json <out.json>] ' +
  '[--probe-every 5] [--heap-every 5] [--log-every 30] [--cpu-profile <out.cpuprofile> [--profile-at 2000] ' +
  '[--profile-seconds 30]] [--profile <dir> [--port 41731] [--reopen-only]]';
const MiB = 1024 * 1024;
/** The drop bench's flags (test/bench/drop.ts): eager memory measurement, no network of Chromium's own. */
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
/** src/services/ingest/ingestProtocol.ts SENTENCE_VECTORS_SETTING: false keeps the library lexical only. */
const SENTENCE_VECTORS_SETTING = 'sentenceVectors';

class BenchError extends Error {}
function fail(message: string): never {
  process.stderr.write(`scale-browser: ${message}\n${USAGE}\n`);
  process.exit(2);
}

const { values: opts } = parseArgs({
  options: {
    folder: { type: 'string' },
    questions: { type: 'string' },
    'ask-count': { type: 'string', default: '30' },
    'timeout-minutes': { type: 'string', default: '90' },
    'no-build': { type: 'boolean', default: false },
    'stall-seconds': { type: 'string', default: '60' },
    'max-reloads': { type: 'string', default: '3' },
    json: { type: 'string' },
    'probe-every': { type: 'string', default: '5' },
    'heap-every': { type: 'string', default: '5' },
    'log-every': { type: 'string', default: '30' },
    'cpu-profile': { type: 'string' },
    'profile-at': { type: 'string', default: '2000' },
    'profile-seconds': { type: 'string', default: '30' },
    profile: { type: 'string' },
    port: { type: 'string', default: '41731' },
    'reopen-only': { type: 'boolean', default: false },
    'ask-during': { type: 'string', default: '0' },
  },
});
if (!opts.folder) fail('--folder is required');
const folder = resolve(opts.folder);
if (!existsSync(folder) || !statSync(folder).isDirectory()) fail(`--folder ${folder} is not a folder`);
const askCount = Number(opts['ask-count']);
const timeoutMs = Number(opts['timeout-minutes']) * 60_000;
if (!Number.isInteger(askCount) || askCount < 0) fail('--ask-count must be an integer ≥ 0');
if (!(timeoutMs > 0)) fail('--timeout-minutes must be a positive number');
const stallSeconds = Number(opts['stall-seconds']);
const maxReloads = Number(opts['max-reloads']);
if (!(stallSeconds > 0)) fail('--stall-seconds must be a positive number');
if (!Number.isInteger(maxReloads) || maxReloads < 0) fail('--max-reloads must be an integer ≥ 0');
const probeEverySeconds = Number(opts['probe-every']);
const heapEverySeconds = Number(opts['heap-every']);
const logEverySeconds = Number(opts['log-every']);
const profileAt = Number(opts['profile-at']);
const profileSeconds = Number(opts['profile-seconds']);
if (!(probeEverySeconds > 0)) fail('--probe-every must be a positive number of seconds');
if (!(heapEverySeconds > 0)) fail('--heap-every must be a positive number of seconds');
if (!(logEverySeconds > 0)) fail('--log-every must be a positive number of seconds');
if (!(profileAt >= 0)) fail('--profile-at must be a number of documents ≥ 0');
if (!(profileSeconds > 0)) fail('--profile-seconds must be a positive number');
const askDuringSeconds = Number(opts['ask-during']);
if (!(askDuringSeconds >= 0))
  fail('--ask-during must be a number of seconds ≥ 0 (0: no question during the drop)');
const keptProfile = opts.profile ? resolve(opts.profile) : null;
const reopenOnly = opts['reopen-only'];
if (reopenOnly && !keptProfile) fail('--reopen-only needs --profile <dir> (a profile a drop was kept in)');
if (reopenOnly && !existsSync(keptProfile!)) fail(`--profile ${keptProfile!} does not exist`);
const questionsPath = resolve(opts.questions ?? `${folder}.questions.jsonl`);

interface Question {
  id: string;
  question: string;
  supporting_titles?: string[];
}
const questions: Question[] = existsSync(questionsPath)
  ? readFileSync(questionsPath, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Question)
  : [];
if (questions.length === 0) fail(`no questions at ${questionsPath} (give --questions)`);
// Spread over the sets (the file lists hotpotqa, then 2wiki, musique, vuedocs).
const n = Math.max(1, askCount);
const picked = Array.from({ length: n }, (_, i) => questions[Math.floor((i * questions.length) / n)]);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const round = (x: number, digits = 1) => Number(x.toFixed(digits));
function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Supported files below `dir` and their bytes: the app stores one document per file of a scale corpus. */
function countFiles(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || e.name.startsWith('.') || !isSupportedFile(e.name)) continue;
    files += 1;
    bytes += statSync(join(e.parentPath, e.name)).size;
  }
  return { files, bytes };
}

/** Bytes on disk of the profile's IndexedDB folders (LevelDB files and blobs). */
function profileIdbBytes(profile: string): number {
  const r = spawnSync('sh', ['-c', 'du -sb "$1"/Default/IndexedDB 2>/dev/null | cut -f1', 'sh', profile], {
    encoding: 'utf8',
  });
  return Number(r.stdout.trim()) || 0;
}

/**
 * The sizes (MB, largest first) of the files in the profile's IndexedDB blob folders: Chromium keeps each stored Blob
 * (the library's pages) as one file there, and a replaced one until no realm holds a handle to it
 * (test/bench/idb-blob-replace-browser.ts).
 */
function profileBlobFilesMB(profile: string): number[] {
  const r = spawnSync(
    'sh',
    ['-c', 'find "$1"/Default/IndexedDB -path "*.blob/*" -type f -printf "%s\\n" 2>/dev/null', 'sh', profile],
    { encoding: 'utf8' },
  );
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((b) => round(Number(b) / MiB))
    .sort((a, b) => b - a);
}

/** The database's own files (LevelDB: its log, tables, manifest) with their sizes in MB, largest first. */
function profileDatabaseFiles(profile: string): string[] {
  const r = spawnSync(
    'sh',
    [
      '-c',
      'find "$1"/Default/IndexedDB -type f -not -path "*.blob/*" -printf "%s %f\\n" 2>/dev/null',
      'sh',
      profile,
    ],
    { encoding: 'utf8' },
  );
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ') as [string, string])
    .sort((a, b) => Number(b[0]) - Number(a[0]))
    .filter(([bytes]) => Number(bytes) >= 64 * 1024)
    .map(([bytes, name]) => `${name} ${round(Number(bytes) / MiB)}`);
}

const result: Record<string, unknown> = {};
let phase = 'start';
/** Why the page is gone, when it is: a tab crash, the browser closing. */
let gone: string | null = null;

function finish(error: unknown): void {
  result.phase = phase;
  result.loadEnd = load();
  if (error) {
    result.stoppedBy = error instanceof Error ? error.message : String(error);
    console.log(`scale-browser: stopped in phase "${phase}": ${String(result.stoppedBy)}`);
  }
  if (opts.json) writeFileSync(resolve(opts.json), JSON.stringify(result, null, 2) + '\n');
  console.log(`scale-browser result ${JSON.stringify(result)}`);
}

/** Throws when the tab or the browser is gone, or the time is up. */
let deadline = Infinity;
function check(): void {
  if (gone) throw new BenchError(gone);
  if (Date.now() > deadline)
    throw new BenchError(`timeout: ${opts['timeout-minutes']} min passed (--timeout-minutes)`);
}

function heapLine(p: HeapPeaks): string {
  return (
    `peak JS heap ${p.peakJsMB ?? '–'} MB (page + workers), page alone ${p.peakPageMB} MB; each realm's peak: ` +
    Object.entries(p.realmPeakMB)
      .map(([realm, mb]) => `${realm} ${mb} MB`)
      .join(', ')
  );
}

async function openPage(context: BrowserContext, since: () => number): Promise<Page> {
  const page = await context.newPage();
  page.on('crash', () => {
    gone = `the tab crashed ${since().toFixed(0)} s after the drop (phase "${phase}")`;
    console.log(`  ${gone}`);
  });
  page.on('pageerror', (error) => console.log(`  page error: ${error.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') console.log(`  console: ${msg.text().slice(0, 500)}`);
  });
  return page;
}

/** IndexedDB size three ways and the stores' counts. */
async function storageSnapshot(page: Page, cdp: CDPSession, origin: string, profile: string) {
  const usage = await cdp.send('Storage.getUsageAndQuota', { origin });
  const estimate = await page.evaluate(async () => {
    const e = (await navigator.storage.estimate()) as StorageEstimate & {
      usageDetails?: { indexedDB?: number };
    };
    return { usage: e.usage ?? null, indexedDB: e.usageDetails?.indexedDB ?? null };
  });
  return {
    cdpIndexedDbMB: round(
      (usage.usageBreakdown.find((b) => b.storageType === 'indexeddb')?.usage ?? 0) / MiB,
    ),
    estimateIndexedDbMB: estimate.indexedDB === null ? null : round(estimate.indexedDB / MiB),
    estimateUsageMB: estimate.usage === null ? null : round(estimate.usage / MiB),
    profileIndexedDbFolderMB: round(profileIdbBytes(profile) / MiB),
    blobFilesMB: profileBlobFilesMB(profile),
    databaseFiles: profileDatabaseFiles(profile),
    counts: await page.evaluate(probeLibrary, false),
  };
}

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** The functions with the most self time in a CDP CPU profile (samples × their intervals). */
function topSelf(
  profile: { nodes: CpuProfileNode[]; samples?: number[]; timeDeltas?: number[] },
  n: number,
): { fn: string; selfSeconds: number }[] {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  samples.forEach((id, i) => {
    const frame = byNode.get(id)?.callFrame;
    if (!frame) return;
    const file = frame.url.split('/').pop() ?? '';
    const key = `${frame.functionName || '(anonymous)'} ${file}${file ? `:${frame.lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + (deltas[i + 1] ?? deltas[i] ?? 0) / 1e6);
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([fn, s]) => ({ fn, selfSeconds: round(s, 2) }));
}

async function askOnce(
  page: Page,
  q: Question,
): Promise<{ ms: number; evidence: number; gold: number; worker: AskProbe['worker'] }> {
  await page.fill('[data-testid="question"]', q.question);
  const r = await page.evaluate(timedAsk, Math.max(1000, deadline - Date.now()));
  if (r.error) throw new BenchError(`the app answered with an error: ${r.error}`);
  const cards = await page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="results"] [data-testid="evidence"]')].map(
      (c) => c.textContent ?? '',
    ),
  );
  const gold = (q.supporting_titles ?? []).filter((t) => t && cards.some((c) => c.includes(t))).length;
  return { ms: r.ms, evidence: r.evidence, gold, worker: r.worker };
}

async function main(): Promise<void> {
  const size = countFiles(folder);
  if (size.files === 0) throw new BenchError(`${folder} holds no supported file`);
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: root,
    encoding: 'utf8',
  }).stdout.trim();
  Object.assign(result, {
    folder,
    files: size.files,
    folderMB: round(size.bytes / MiB),
    questions: questionsPath,
    commit,
    date: new Date().toISOString(),
    machine: `${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
    loadStart: load(),
  });
  console.log(
    `scale-browser: ${folder}: ${size.files} files, ${(size.bytes / MiB).toFixed(1)} MiB; ${picked.length} ` +
      `questions; commit ${commit}; ${result.machine as string}; load ${load()}`,
  );

  const dist = resolve(process.env.E2E_DIST ?? join(root, 'dist'));
  if (!opts['no-build']) {
    phase = 'build';
    console.log(`building the app (vite build into ${dist})…`);
    const built = spawnSync(
      'npx',
      ['vite', 'build', '--logLevel', 'warn', '--outDir', dist, '--emptyOutDir'],
      { cwd: root, stdio: 'inherit' },
    );
    if (built.status !== 0) throw new BenchError(`the build failed (vite build exited with ${built.status})`);
  }
  if (!existsSync(join(dist, 'index.html')))
    throw new BenchError(`no built app at ${dist} (drop --no-build)`);

  // A kept profile is served from a fixed port: its IndexedDB belongs to that origin.
  const server = await serveStatic(dist, keptProfile ? { port: Number(opts.port) } : {});
  const profile = keptProfile ?? (await mkdtemp(join(tmpdir(), 'conceptrag-scale-profile-')));
  const removeProfile = () =>
    keptProfile ? Promise.resolve() : rm(profile, { recursive: true, force: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1200, height: 900 },
  });
  context.on('close', () => {
    gone ??= `the browser closed (phase "${phase}")`;
  });
  // tsx compiles with esbuild's keepNames, which wraps the functions handed to page.evaluate in __name(...).
  await context.addInitScript({ content: 'globalThis.__name ??= (fn) => fn;' });
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      void context
        .close()
        .catch(() => undefined)
        .then(removeProfile)
        .finally(() => process.exit(130));
    });
  deadline = Date.now() + timeoutMs;
  let t0 = performance.now();
  const since = () => (performance.now() - t0) / 1000;
  let sampler: HeapSampler | null = null;
  /** The page being measured and its CDP session, for what the stop path can still read. */
  let live: { page: Page; cdp: CDPSession } | null = null;
  try {
    // --reopen-only: the library a kept profile holds is measured from its reopening on.
    if (!reopenOnly) {
      phase = 'open';
      const page = await openPage(context, since);
      for (const p of context.pages()) if (p !== page) await p.close();
      await page.goto(`${server.origin}/#library`);
      await page.waitForSelector('[data-indexing]', { timeout: 60_000 });
      if (!(await page.evaluate(() => crossOriginIsolated)))
        throw new BenchError('the page is not cross-origin isolated (COOP/COEP headers missing)');
      // Lexical only: the setting the app stores when the user picks "lexical layer only"; read at every run.
      while (!(await page.evaluate(probeLibrary, false)).ready) {
        check();
        await sleep(200);
      }
      await page.evaluate(async (key) => {
        const db = await new Promise<IDBDatabase>((res, rej) => {
          const r = indexedDB.open('conceptrag');
          r.onsuccess = () => res(r.result);
          r.onerror = () => rej(r.error);
        });
        await new Promise<void>((res, rej) => {
          const tx = db.transaction('settings', 'readwrite');
          tx.objectStore('settings').put({ key, value: false });
          tx.oncomplete = () => res();
          tx.onerror = () => rej(tx.error);
        });
        db.close();
      }, SENTENCE_VECTORS_SETTING);
      await page.reload();
      await page.waitForSelector('[data-indexing]', { timeout: 60_000 });
      const cdp = await context.newCDPSession(page);
      await cdp.send('Performance.enable');
      sampler = startHeapSampler(page, cdp, heapEverySeconds * 1000);
      live = { page, cdp };

      phase = 'drop';
      t0 = performance.now();
      // The browser's own CPU seconds from the drop on (lib/cpuTime.ts): on a shared machine the wall time grows with
      // the load, the CPU seconds with the work.
      const cpu0 = browserCpuSeconds(profile);
      await page.setInputFiles('input[type="file"][webkitdirectory]', folder, {
        timeout: Math.max(1000, deadline - Date.now()),
      });
      result.filesPickedSeconds = round(since());
      console.log(`the folder's ${size.files} files handed to the page after ${since().toFixed(1)} s`);
      // A folder the Library view's memory (or space) estimate says will not fit asks before anything is queued:
      // the bench answers "Index here anyway" (sentence vectors are already off) and records what was asked.
      const question = page.locator('[data-testid="memory-full"], [data-testid="space-full"]').first();
      void question
        .waitFor({ state: 'visible', timeout: 120_000 })
        .then(async () => {
          const asked = await question.locator('xpath=ancestor::section[1]').innerText();
          result.askedBeforeDrop = asked.replace(/\s+/g, ' ').trim();
          console.log(`  the page asked before queuing: ${result.askedBeforeDrop}`);
          await question.click();
          console.log('  answered "Index here anyway"');
        })
        .catch(() => undefined);
      let last: LibraryProbe | null = null;
      let lastLog = 0;
      let lastLogDocuments = 0;
      let threadsAtLog = threadCpu(profile);
      /** Wall seconds spent in the bench's store probes (the heap sampler counts its own). */
      let probeSeconds = 0;
      const probe = async (light: boolean): Promise<LibraryProbe> => {
        const t = performance.now();
        try {
          return await page.evaluate(probeLibrary, light);
        } finally {
          probeSeconds += (performance.now() - t) / 1000;
        }
      };
      const stretches: {
        atSeconds: number;
        documents: number;
        perSecond: number;
        cpuSeconds: number;
        cpuMsPerDocument: number;
        threads: string;
      }[] = [];
      result.stretches = stretches;
      let profiling: { from: number; documents: number; threads: ThreadCpu } | null = null;
      let profiled = !opts['cpu-profile'];
      let searchable: number | null = null;
      let signal = '';
      /** Questions asked during the drop (--ask-during). */
      const during: {
        atSeconds: number;
        documents: number;
        chunks: number;
        ms: number;
        evidence: number;
        from: string | null;
        refused: string | null;
      }[] = [];
      if (askDuringSeconds > 0) result.askedDuringDrop = during;
      let nextAskAt = 30;
      /** Since when the app has said idle with files still waiting (a stalled queue), or null. */
      let stalledSince: number | null = null;
      const stalls: {
        atSeconds: number;
        documents: number;
        waiting: number;
        shown: string[];
        screenshot: string;
      }[] = [];
      result.stalls = stalls;
      while (searchable === null) {
        check();
        // Light between the log lines (documents and the queue only), full for each line.
        const logLine = since() - lastLog >= logEverySeconds;
        const p = await probe(!logLine);
        if (p.chunks >= 0) last = p;
        const at = since();
        const idle = p.ready && p.indexing === 'idle' && p.pendingWaiting === 0;
        if (p.documents >= size.files && (await page.evaluate(documentsWithChunks)) >= size.files) {
          searchable = at;
          signal = `IndexedDB: ${p.documents} documents, all with chunks`;
        } else if (idle && at > 5 && p.documents > 0) {
          searchable = at;
          signal = `app idle, nothing waiting (${p.documents} of ${size.files} documents; ${p.pendingFailed} failed)`;
        } else if (idle && at > 60 && p.documents === 0) {
          throw new BenchError(`the app is idle ${at.toFixed(0)} s after the drop with no document stored`);
        }
        // The app idle while files wait: its queue stopped. After --stall-seconds the bench records what the page
        // shows and reloads it, as a person would (a page that starts resumes a queue it finds).
        const stalled = p.ready && p.indexing === 'idle' && p.pendingWaiting > 0;
        stalledSince = stalled ? (stalledSince ?? at) : null;
        if (stalledSince !== null && at - stalledSince >= stallSeconds) {
          if (stalls.length >= maxReloads)
            throw new BenchError(
              `the queue stalled again (${p.documents} documents, ${p.pendingWaiting} files waiting, app idle) ` +
                `after ${stalls.length} reload(s)`,
            );
          const shown = await page.evaluate(() =>
            [
              ...document.querySelectorAll(
                '[role="alert"], [role="status"], .message, [data-testid$="message"]',
              ),
            ]
              .map((e) => (e.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 300))
              .filter(Boolean),
          );
          const screenshot = `${opts.json ? resolve(opts.json) : join(tmpdir(), 'scale-browser')}.stall-${stalls.length + 1}.png`;
          await page.screenshot({ path: screenshot, fullPage: true }).catch(() => undefined);
          stalls.push({
            atSeconds: round(at),
            documents: p.documents,
            waiting: p.pendingWaiting,
            shown,
            screenshot,
          });
          console.log(
            `  stalled: app idle for ${(at - stalledSince).toFixed(0)} s with ${p.pendingWaiting} files waiting and ` +
              `${p.documents} documents stored; the page shows ${JSON.stringify(shown)}; screenshot ${screenshot}; ` +
              'reloading the page',
          );
          await page.reload();
          await page.waitForSelector('[data-indexing]', { timeout: 60_000 });
          stalledSince = null;
        }
        if (!profiled && !profiling && p.documents >= profileAt) {
          if (opts['cpu-profile']) {
            await cdp.send('Profiler.enable');
            await cdp.send('Profiler.start');
          }
          profiling = { from: at, documents: p.documents, threads: threadCpu(profile) };
          console.log(`  ${at.toFixed(0)} s: profiling starts (${p.documents} documents)`);
        } else if (profiling && at - profiling.from >= profileSeconds) {
          const threads = threadDelta(profiling.threads, threadCpu(profile));
          const window = {
            fromSeconds: round(profiling.from),
            seconds: round(at - profiling.from),
            documents: [profiling.documents, p.documents],
            threads,
          };
          console.log(
            `  profiled ${(at - profiling.from).toFixed(0)} s, ${profiling.documents} → ${p.documents} documents; ` +
              `threads meanwhile: ${threadLine(threads, 12)}`,
          );
          if (opts['cpu-profile']) {
            const { profile: cpuProfile } = await cdp.send('Profiler.stop');
            const out = resolve(opts['cpu-profile']);
            writeFileSync(out, JSON.stringify(cpuProfile));
            result.cpuProfile = { ...window, file: out, topSelf: topSelf(cpuProfile, 25) };
            console.log(`  the page's main thread (${out}), self time:`);
            for (const f of topSelf(cpuProfile, 25))
              console.log(`    ${f.selfSeconds.toFixed(2)} s  ${f.fn}`);
          }
          profiling = null;
          profiled = true;
        }
        if (logLine) {
          const threadsNow = threadCpu(profile);
          const delta = threadDelta(threadsAtLog, threadsNow, 0);
          const threads = threadLine(delta);
          const cpuSeconds = delta.reduce((sum, t) => sum + t.seconds, 0);
          const perSecond =
            lastLog === 0 ? p.documents / at : (p.documents - lastLogDocuments) / (at - lastLog);
          const cpuPerDocument = cpuSeconds / Math.max(1, p.documents - lastLogDocuments);
          stretches.push({
            atSeconds: round(at),
            documents: p.documents,
            perSecond: round(perSecond, 2),
            cpuSeconds: round(cpuSeconds),
            cpuMsPerDocument: Math.round(cpuPerDocument * 1000),
            threads,
          });
          console.log(
            `  ${at.toFixed(0)} s: ${p.documents} documents (${perSecond.toFixed(1)}/s), ${p.chunks} chunks, ` +
              `${p.pendingWaiting} files waiting, ${p.pendingFailed} failed, indexing ${p.indexing}; heap so far ` +
              `${sampler.peaks().peakJsMB} MB; the bench's probes so far ${probeSeconds.toFixed(1)} s, its heap ` +
              `sampling ${sampler.peaks().busySeconds} s; load ${load()}\n    the browser's CPU since the line before: ` +
              `${cpuSeconds.toFixed(1)} s (${Math.round(cpuPerDocument * 1000)} ms a document): ${threads}`,
          );
          lastLog = at;
          lastLogDocuments = p.documents;
          threadsAtLog = threadsNow;
        }
        if (askDuringSeconds > 0 && searchable === null && at >= nextAskAt && p.documents > 0) {
          nextAskAt = at + askDuringSeconds;
          if (during.length === 0) {
            await page.click('a[href="#ask"]');
            await page.waitForSelector('[data-testid="question"]', { timeout: 60_000 });
          }
          const q = picked[during.length % Math.max(1, picked.length)];
          await page.fill('[data-testid="question"]', q?.question ?? 'Where is the library?');
          const r = await page.evaluate(timedAsk, Math.max(1000, Math.min(300_000, deadline - Date.now())));
          const from = await page.evaluate(
            () => document.querySelector('[data-testid="results"]')?.getAttribute('data-from') ?? null,
          );
          during.push({
            atSeconds: round(at),
            documents: p.documents,
            chunks: p.chunks,
            ms: Math.round(r.ms),
            evidence: r.evidence,
            from: r.error ? null : (from ?? 'memory'),
            refused: r.error,
          });
          console.log(
            `  asked at ${at.toFixed(0)} s (${p.documents} documents stored): ` +
              (r.error
                ? `REFUSED: ${r.error}`
                : `${r.evidence} passages from ${from ?? 'memory'} in ${r.ms.toFixed(0)} ms`) +
              `; heap so far ${sampler.peaks().peakJsMB} MB; load ${load()}`,
          );
        }
        if (searchable === null) await sleep(probeEverySeconds * 1000);
      }
      if (during.length > 0)
        console.log(
          `questions during the drop: ${during.length}, refused ${during.filter((d) => d.refused).length}, ` +
            `from pages ${during.filter((d) => d.from === 'pages').length}, from memory ` +
            `${during.filter((d) => d.from === 'memory').length}`,
        );
      const dropPeaks = sampler.peaks();
      result.benchOverhead = {
        probeEverySeconds,
        heapEverySeconds,
        probeSeconds: round(probeSeconds),
        heapSamplingSeconds: dropPeaks.busySeconds,
      };
      Object.assign(result, {
        searchableSeconds: round(searchable),
        searchableSignal: signal,
        searchableCpuSeconds: (() => {
          const now = browserCpuSeconds(profile);
          return now === null || cpu0 === null ? null : round(now - cpu0);
        })(),
        counts: last,
        dropHeap: dropPeaks,
        loadAtSearchable: load(),
      });
      console.log(
        `searchable after ${searchable.toFixed(1)} s (${signal}); the browser used ` +
          `${String(result.searchableCpuSeconds ?? '–')} CPU s meanwhile; load ${load()}`,
      );
      console.log(`  over the drop: ${heapLine(dropPeaks)}`);

      phase = 'idle after the drop';
      while (true) {
        check();
        const p = await page.evaluate(probeLibrary, false);
        if (p.indexing === 'idle' && p.pendingWaiting === 0) break;
        await sleep(1000);
      }
      result.idleSeconds = round(since());

      phase = 'storage';
      const storage = await storageSnapshot(page, cdp, server.origin, profile);
      result.storage = storage;
      console.log(
        `IndexedDB: ${storage.cdpIndexedDbMB} MB (CDP usage), ${storage.estimateIndexedDbMB} MB ` +
          `(navigator.storage.estimate), ${storage.profileIndexedDbFolderMB} MB on disk (Blob files, MB: ` +
          `${storage.blobFilesMB.join(', ')}; database files of 64 KiB or more, MB: ${storage.databaseFiles.join(', ')}); ` +
          `${JSON.stringify(storage.counts)}`,
      );

      phase = 'first question';
      await page.click('a[href="#ask"]');
      await page.waitForSelector('[data-testid="question"]', { timeout: 60_000 });
      const first = await askOnce(page, picked[0]);
      result.firstAskAfterDrop = { ...first, ms: Math.round(first.ms) };
      console.log(
        `first question after the drop: ${first.ms.toFixed(0)} ms, ${first.evidence} passages (the query worker ` +
          `loads the library first); load ${load()}`,
      );
      await sampler.stop();
      sampler = null;

      await page.close();
    }

    if (reopenOnly) {
      // The kept profile's service worker holds the build it was made with: its caches go (the library in
      // IndexedDB stays), and a first visit installs this build's, as the drop's own page did before the reopen.
      phase = 'service worker';
      const warm = await openPage(context, since);
      const cdp = await context.newCDPSession(warm);
      await cdp.send('Storage.clearDataForOrigin', {
        origin: server.origin,
        storageTypes: 'service_workers,cache_storage',
      });
      await warm.goto(`${server.origin}/#library`);
      await warm.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      await warm.close();
    }
    phase = 'reopen';
    const again = await openPage(context, since);
    for (const p of context.pages()) if (p !== again) await p.close();
    const cdp2 = await context.newCDPSession(again);
    await cdp2.send('Performance.enable');
    await again.goto(`${server.origin}/#ask`, { waitUntil: 'commit' });
    sampler = startHeapSampler(again, cdp2, heapEverySeconds * 1000);
    live = { page: again, cdp: cdp2 };
    await again.fill('[data-testid="question"]', picked[0].question, { timeout: 5 * 60_000 });
    await again.waitForSelector('[data-testid="ask"]:not([disabled])', { timeout: 10 * 60_000 });
    const clickedAt = await again.evaluate(() => performance.now());
    await again.click('[data-testid="ask"]');
    const reopened = await again.evaluate(watchEvidence, Math.max(1000, deadline - Date.now()));
    result.reopen = {
      askClickedMs: Math.round(clickedAt),
      firstEvidenceMs: Math.round(reopened.firstEvidenceMs),
      firstEvidenceStage: reopened.firstEvidenceStage,
      resultMs: Math.round(reopened.resultMs),
      evidence: reopened.evidence,
      note: 'ms after the new page’s navigation',
    };
    console.log(
      `reopened: first evidence ${(reopened.firstEvidenceMs / 1000).toFixed(1)} s after navigation ` +
        `(${reopened.firstEvidenceStage}), result ${(reopened.resultMs / 1000).toFixed(1)} s, Ask clicked at ` +
        `${(clickedAt / 1000).toFixed(1)} s; load ${load()}`,
    );
    // Where the query worker's time went (src/services/query/queryService.ts pagesTimings), in ms after the
    // navigation: an app built before it gives nothing.
    const steps = (await again.evaluate(async () => {
      const d = (
        globalThis as { conceptragDiagnostics?: { pagesTimings?(): Promise<Record<string, number> | null> } }
      ).conceptragDiagnostics;
      const marks = typeof d?.pagesTimings === 'function' ? await d.pagesTimings() : null;
      if (!marks) return null;
      const began = marks.beganAtEpochMs - performance.timeOrigin;
      return Object.fromEntries(
        Object.entries(marks)
          .filter(([k]) => k !== 'beganAtEpochMs')
          .map(([k, v]) => [k, Math.round(began + v)])
          .concat([['began', Math.round(began)]]),
      );
    })) as Record<string, number> | null;
    if (steps) {
      (result.reopen as Record<string, unknown>).pagesSteps = steps;
      console.log(
        `  the stored pages, ms after navigation: ${Object.entries(steps)
          .sort((x, y) => x[1] - y[1])
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
      );
    }

    phase = 'questions';
    const times: number[] = [];
    const workers: Array<AskProbe['worker']> = [];
    let goldFound = 0;
    let goldAll = 0;
    let noEvidence = 0;
    for (const q of picked.slice(0, askCount)) {
      check();
      const r = await askOnce(again, q);
      times.push(r.ms);
      workers.push(r.worker);
      goldFound += r.gold;
      goldAll += q.supporting_titles?.length ?? 0;
      if (r.evidence === 0) noEvidence += 1;
    }
    times.sort((a, b) => a - b);
    result.ask = {
      n: times.length,
      p50Ms: Math.round(percentile(times, 50) ?? NaN),
      p95Ms: Math.round(percentile(times, 95) ?? NaN),
      maxMs: Math.round(times.at(-1) ?? NaN),
      noEvidence,
      goldTitlesShown: `${goldFound}/${goldAll}`,
      worker: workerShare(workers),
    };
    const afterPeaks = sampler.peaks();
    result.reopenHeap = afterPeaks;
    console.log(
      `${times.length} questions: p50 ${percentile(times, 50)?.toFixed(0)} ms, p95 ${percentile(times, 95)?.toFixed(0)} ` +
        `ms; ${noEvidence} without evidence; gold titles in the evidence cards ${goldFound}/${goldAll}; load ${load()}`,
    );
    console.log(`  ${workerShare(workers)}`);
    console.log(`  after reopening: ${heapLine(afterPeaks)}`);
    // Again after the reopening: the drop's page and its workers are gone, so no realm holds a replaced pages Blob.
    phase = 'storage after reopening';
    const reopenedStorage = await storageSnapshot(again, cdp2, server.origin, profile);
    result.storageAfterReopen = reopenedStorage;
    console.log(
      `IndexedDB after reopening: ${reopenedStorage.cdpIndexedDbMB} MB (CDP usage), ` +
        `${reopenedStorage.estimateIndexedDbMB} MB (navigator.storage.estimate), ` +
        `${reopenedStorage.profileIndexedDbFolderMB} MB on disk (Blob files, MB: ${reopenedStorage.blobFilesMB.join(', ')}; ` +
        `database files of 64 KiB or more, MB: ${reopenedStorage.databaseFiles.join(', ')})`,
    );
    phase = 'done';
    finish(null);
  } catch (error) {
    if (sampler) result.heapAtStop = sampler.peaks();
    // What the library holds at the stop (a timeout, a stall): unless the tab is gone, its counts and size.
    if (live && !gone) {
      const snapshot = await Promise.race([
        storageSnapshot(live.page, live.cdp, server.origin, profile).catch(() => null),
        sleep(60_000).then(() => null),
      ]);
      if (snapshot) {
        result.storageAtStop = snapshot;
        console.log(`at the stop: ${JSON.stringify(snapshot)}`);
      }
    }
    // A crash first shows as a failed evaluate ("Target crashed"): the crash is the reason to print.
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    finish(gone ? new Error(`${gone} (${message})`) : error);
    process.exitCode = 1;
  } finally {
    await sampler?.stop().catch(() => undefined);
    await context.close().catch(() => undefined);
    await server.close();
    await removeProfile();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof BenchError ? `scale-browser: ${error.message}` : error);
  process.exit(1);
});

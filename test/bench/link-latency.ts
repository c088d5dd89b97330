// A shared link on a slow network, in headless Chromium through the built app (issue 47: "Chromium with network
// emulation (10 Mbit/s, 100 ms round trip) on a loopback static host, app shell cached: first evidence ≤ 1.5 s and
// settled answer ≤ 3 s at 100 MiB, p50 over 20 questions").
// - The host: our static server (test/e2e/lib/staticServer.ts) on loopback, ranges on (several ranges a request
//   answered multipart, as nginx), serving the built app and each bundle (a symlink under the served folder).
// - The link: Chromium's own network emulation (CDP Network.emulateNetworkConditions on the page's target: latency
//   --latency-ms, --mbps down and up), not the server's pacing. The query worker's reads are the page's dedicated
//   worker's fetches; the bench checks that the emulation reached them (see "reached" below) and fails if not.
// - The app shell cached: a first visit at #ask without emulation waits for the service worker to control the page
//   (its install precached the shell); every measured visit then counts what the server sent for any path other
//   than the bundle (printed as "shell bytes": 0 when the shell came from the service worker's cache).
// - Each question cold: the browser's HTTP cache is cleared (Network.clearBrowserCache; the service worker's
//   CacheStorage, which holds the shell, is not touched), and the link is opened anew (?bundle=<url>#library, a new
//   document and so a new query worker with nothing of the bundle). Once the Library view says the bundle is read
//   by ranges (the opening's reads are done: "open"), the Ask view is shown, the question typed and Ask clicked;
//   timed in the page from the click to the first evidence card on screen (early lexical evidence or the result)
//   and to the settled answer (the Ask button no longer "Searching…"/"Refining…", as the e2e specs wait on).
// - Bytes: the bundle's response bodies as the server sent them, for the opening and for the question apart.
// - Waiting on the network: the question's own wait on reads (the Ask view's reads line, data-wait-ms: the
//   section reader's time waiting on the block store), and the same question asked again without emulation right
//   after (a pair under the same load): the difference is the link's share, the rest is CPU and the page.
//   "reached": with emulation every round of reads waits at least one round trip, so a question whose wait is below
//   rounds × latency was not throttled (the emulation missed the worker) and the bench stops.
// Usage: npm run build && node --import tsx test/bench/link-latency.ts "<name>=<x.bundle>,<questions.jsonl>" [...]
//          [--n 20] [--latency-ms 100] [--mbps 10] [--no-pairs] [--multi-range <multipart|first>] [--json out.json]
//          [--waterfall] [--http2]
// --http2 (round twenty-three): the static server speaks HTTP/2 over TLS (a self-signed certificate it makes with
//   openssl, which Chromium is told to accept: certificateArgs; the page is then a secure origin and its service worker
//   registers and controls it as over plain HTTP on loopback), as the hosts people put a static site on do; with
//   --multi-range first, a host answering one range a request over HTTP/2 (S3 and CloudFront's way). Each question's
//   range requests are counted ("requests") and the most the server had open at once ("at once").
// CPU (round twenty): the CPU time of Chromium's processes (every descendant of this process, from /proc: the browser,
//   the renderer and its workers, the network and GPU services) from the Ask click to the settled answer, printed as
//   "cpu": what the question cost the machine whatever its load; the static server's own CPU (it runs in this
//   process) apart, as "server cpu". Linux only (0 elsewhere).
//   --waterfall (round fourteen): prints each emulated question's bundle requests as the server saw them, from the
//   navigation (the opening's) and from the Ask click (the question's): start and end in ms, ranges, KB, and the first
//   evidence's time among them, to see round trips that wait on each other.
//   --n: questions a set, spread over the file. --no-pairs: only the emulated runs. --multi-range first: the host
//   answers one range a request (the first asked), as many static hosts do; multipart (nginx's way) by default.
//   The built app is read from E2E_DIST or ./dist; Chromium from CHROMIUM_PATH or /usr/bin/chromium.
// --think-ms <n> (round twenty-seven): the time a person takes before asking, from the Library view saying open to
//   going to the Ask view (0 by default: at once, as before). Meanwhile a link reads the hash pages it reads ahead
//   (BlockStore.readUpperPages); their bytes are printed apart ("ahead": sent between open and the Ask click), and the
//   question's bytes are those sent from the click on.
// --type-ms <n> (round thirty): the question typed into the Ask box a key at a time, n ms apart (150: a fast typist,
//   80 words a minute), as a person types it, then Ask clicked; the time counts from the click. Meanwhile the Ask box
//   has the words finished so far read ahead (QueryService.prepare); their bytes are "ahead" too. 0 by default: the
//   question filled in at once, as before.
import { access, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import type { CDPSession, Page } from 'playwright-core';
import { openHarness } from '../e2e/lib/harness.ts';
import { certificateArgs, serveStatic, type RangeLog, type StaticServer } from '../e2e/lib/staticServer.ts';
import { controlledByWorker, watchSettled } from './lib/linkProbes.ts';
import { arg } from './lib/args.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE =
  'usage: npm run build && node --import tsx test/bench/link-latency.ts "<name>=<x.bundle>,<questions.jsonl>" [...] ' +
  '[--n 20] [--latency-ms 100] [--mbps 10] [--no-pairs] [--multi-range <multipart|first>] [--json out.json] ' +
  '[--waterfall] [--http2] [--think-ms <n>] [--type-ms <n>]';
const STEP_TIMEOUT_MS = 10 * 60_000;
const N = Number(arg('n', '20'));
const LATENCY_MS = Number(arg('latency-ms', '100'));
const MBPS = Number(arg('mbps', '10'));
const PAIRS = !process.argv.includes('--no-pairs');
const MULTI_RANGE = arg('multi-range', 'multipart');
const WATERFALL = process.argv.includes('--waterfall');
const HTTP2 = process.argv.includes('--http2');
const THINK_MS = Number(arg('think-ms', '0'));
/** --type-ms (round thirty): the question typed a key at a time, this many ms apart; 0: filled in at once. */
const TYPE_MS = Number(arg('type-ms', '0'));

interface SetSpec {
  name: string;
  bundle: string;
  questions: string;
}

interface Run {
  set: string;
  question: string;
  emulated: boolean;
  /** Navigation → the Library view says the bundle is read by ranges. */
  openMs: number;
  /** Click on Ask → first evidence card on screen, and → the settled answer. */
  firstEvidenceMs: number;
  firstEvidenceStage: string;
  settledMs: number;
  evidence: number;
  /** The Ask view's reads line: the question's bytes, rounds and wait on reads (null when not shown). */
  readBytes: number | null;
  rounds: number | null;
  waitMs: number | null;
  /** Bundle response bodies the server sent for the opening and for the question. */
  openBytes: number;
  /** Bundle bodies sent between open and the Ask click (what was read ahead while the person looked: --think-ms). */
  aheadBytes: number;
  questionBytes: number;
  /** The question's range requests to the bundle, and the most of them the server had open at once. */
  requests: number;
  atOnce: number;
  /** Bodies the server sent for anything but the bundle during this visit (the shell, when not cached). */
  shellBytes: number;
  shellPaths: string[];
  load: number;
  /** CPU ms of Chromium's processes, and of this process (the static server), from the Ask click to settled. */
  cpuMs: number;
  /** The same by Chromium process type (renderer: the page and its query worker; utility: the network service…). */
  cpuByType: Record<string, number>;
  serverCpuMs: number;
}

/** Clock ticks a second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;

/**
 * CPU ms (user + system) used so far by every live descendant of this process (Chromium's processes), by process
 * type (its --type=, "browser" without one); empty without /proc.
 */
async function descendantsCpuMs(): Promise<Map<string, number>> {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  const pids = await readdir('/proc').catch(() => [] as string[]);
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue;
    const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // After the command's ")" (a command may hold spaces): state, ppid, … utime (14th field), stime (15th).
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    if (f.length < 13) continue;
    stats.set(Number(pid), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
  }
  const out = new Map<string, number>();
  for (const [pid, s] of stats) {
    let p = s.ppid;
    while (p > 1 && p !== process.pid) p = stats.get(p)?.ppid ?? 0;
    if (p !== process.pid || pid === process.pid) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    const type = /--type=([\w-]+)/.exec(cmdline)?.[1] ?? 'browser';
    out.set(type, (out.get(type) ?? 0) + (s.ticks * 1000) / TICKS_PER_S);
  }
  return out;
}

/** CPU ms by process type between two readings (a process gone meanwhile counts nothing). */
function cpuSince(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...after].map(([type, msNow]) => [type, msNow - (before.get(type) ?? 0)]));
}

function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

let visits = 0;

function parseSets(): SetSpec[] {
  const args = process.argv.slice(2);
  const sets = args
    .filter((a, i) => a.includes('=') && !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')))
    .map((a) => {
      const [name, rest] = [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)];
      const [bundle, questions] = rest.split(',');
      if (!bundle || !questions) throw new Error(USAGE);
      return { name, bundle: resolve(bundle), questions: resolve(questions) };
    });
  if (sets.length === 0) throw new Error(USAGE);
  return sets;
}

/** `n` questions spread over the file (its order, every len/n-th). */
async function pickQuestions(file: string, n: number): Promise<string[]> {
  const all = (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { question: string }).question);
  if (all.length <= n) return all;
  return Array.from({ length: n }, (_, i) => all[Math.floor((i * all.length) / n)]);
}

async function emulate(cdp: CDPSession, on: boolean): Promise<void> {
  await cdp.send(
    'Network.emulateNetworkConditions',
    on
      ? {
          offline: false,
          latency: LATENCY_MS,
          downloadThroughput: (MBPS * 1e6) / 8,
          uploadThroughput: (MBPS * 1e6) / 8,
        }
      : // -1: no throttling.
        { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 },
  );
}

function sentExcept(server: StaticServer, path: string): Map<string, number> {
  return new Map([...server.served].filter(([p]) => p !== path));
}

/** One cold question: the link opened anew, the bundle opened, the question asked and timed in the page. */
async function coldQuestion(
  page: Page,
  cdp: CDPSession,
  server: StaticServer,
  set: string,
  path: string,
  question: string,
  emulated: boolean,
): Promise<Run> {
  const load = loadavg()[0];
  await emulate(cdp, emulated);
  // Nothing of the bundle in the HTTP cache; the shell is in the service worker's CacheStorage, which this keeps.
  await cdp.send('Network.clearBrowserCache');
  const others = sentExcept(server, path);
  const bundleBefore = server.served.get(path) ?? 0;
  // The server runs in this process: its request log's clock is this performance.now().
  const logFrom = server.requests.length;
  const navigatedAt = performance.now();
  // A parameter of its own each visit: the same URL but for its hash would be a same-document navigation (no new
  // page, no new worker, the bundle still open).
  await page.goto(`${server.origin}/?bundle=${path}&visit=${++visits}#library`, { waitUntil: 'commit' });
  await page.waitForSelector('[data-testid="read-by-ranges"]', { timeout: STEP_TIMEOUT_MS });
  const openMs = await page.evaluate(() => performance.now());
  const opened = server.served.get(path) ?? 0;
  if (THINK_MS > 0) await page.waitForTimeout(THINK_MS);
  await page.click('a[href="#ask"]');
  if (TYPE_MS > 0)
    await page
      .locator('[data-testid="question"]')
      .pressSequentially(question, { delay: TYPE_MS, timeout: STEP_TIMEOUT_MS + question.length * TYPE_MS });
  else await page.fill('[data-testid="question"]', question, { timeout: STEP_TIMEOUT_MS });
  await page.waitForSelector('[data-testid="ask"]:not([disabled])', { timeout: STEP_TIMEOUT_MS });
  const clickedAt = await page.evaluate(() => performance.now());
  const clickedHere = performance.now();
  const cpuBefore = await descendantsCpuMs();
  const serverCpuBefore = ownCpuMs();
  const clicked = server.served.get(path) ?? 0;
  await page.click('[data-testid="ask"]');
  const r = await page.evaluate(watchSettled, STEP_TIMEOUT_MS);
  const serverCpuMs = ownCpuMs() - serverCpuBefore;
  const cpuByType = cpuSince(cpuBefore, await descendantsCpuMs());
  const cpuMs = Object.values(cpuByType).reduce((a, b) => a + b, 0);
  const reads = await page.evaluate(() => {
    const span = document.querySelector('[data-testid="reads"]');
    if (!span) return null;
    return {
      bytes: Number(span.getAttribute('data-bytes')),
      rounds: Number(span.getAttribute('data-rounds')),
      waitMs: Number(span.getAttribute('data-wait-ms')),
    };
  });
  if (WATERFALL && emulated) {
    const line = (q: (typeof server.requests)[number], from: number) =>
      `    ${(q.start - from).toFixed(0).padStart(6)} → ${(q.end - from).toFixed(0).padStart(6)} ms  ` +
      `${String(q.ranges).padStart(3)} ranges  ${(q.bytes / 1e3).toFixed(1).padStart(8)} KB`;
    const logged = server.requests.slice(logFrom).filter((q) => q.path === path);
    console.log(`  waterfall, from the navigation (opening):`);
    for (const q of logged.filter((q) => q.start < clickedHere)) console.log(line(q, navigatedAt));
    console.log(
      `  waterfall, from the Ask click (first evidence at ${(r.firstEvidenceMs - clickedAt).toFixed(0)} ms):`,
    );
    for (const q of logged.filter((q) => q.start >= clickedHere)) console.log(line(q, clickedHere));
  }
  const asked = server.requests.slice(logFrom).filter((q) => q.path === path && q.start >= clickedHere);
  // The last responses' bodies are counted when they end; the answer is settled once they were read, so they have.
  const after = sentExcept(server, path);
  const shellPaths = [...after].filter(([p, b]) => b !== (others.get(p) ?? 0)).map(([p]) => p);
  return {
    set,
    question,
    emulated,
    openMs,
    firstEvidenceMs: r.firstEvidenceMs - clickedAt,
    firstEvidenceStage: r.firstEvidenceStage,
    settledMs: r.resultMs - clickedAt,
    evidence: r.evidence,
    readBytes: reads?.bytes ?? null,
    rounds: reads?.rounds ?? null,
    waitMs: reads?.waitMs ?? null,
    openBytes: opened - bundleBefore,
    aheadBytes: clicked - opened,
    questionBytes: (server.served.get(path) ?? 0) - clicked,
    requests: asked.length,
    atOnce: mostAtOnce(asked),
    shellBytes: shellPaths.reduce((n, p) => n + (after.get(p) ?? 0) - (others.get(p) ?? 0), 0),
    shellPaths,
    load,
    cpuMs,
    cpuByType,
    serverCpuMs,
  };
}

/** The most requests open at once among `log` (each from its arrival to its end). */
function mostAtOnce(log: readonly RangeLog[]): number {
  const edges = log.flatMap((q) => [
    [q.start, 1],
    [q.end, -1],
  ]);
  // An end before a start at the same instant: a request that ended is not open beside the next.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (open += d));
  return most;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.ceil(s.length / 2) - 1];
}
const ms = (x: number): string => `${x.toFixed(0)} ms`;
const kb = (x: number): string => `${(x / 1e3).toFixed(0)} kB`;

function summary(runs: Run[]): string {
  const f = (pick: (r: Run) => number, fmt: (x: number) => string) =>
    `${fmt(median(runs.map(pick)))} / ${fmt(Math.max(...runs.map(pick)))}`;
  const waits = runs.filter((r) => r.waitMs !== null);
  return (
    `open ${f((r) => r.openMs, ms)}, first evidence ${f((r) => r.firstEvidenceMs, ms)}, settled ` +
    `${f((r) => r.settledMs, ms)}, question's wait on reads ${waits.length ? f((r) => r.waitMs!, ms) : '–'}, ` +
    `bytes open ${f((r) => r.openBytes, kb)}, ahead ${f((r) => r.aheadBytes, kb)}, question ${f((r) => r.questionBytes, kb)}, shell ` +
    `${f((r) => r.shellBytes, kb)}, requests ${f((r) => r.requests, String)} (at once ${f((r) => r.atOnce, String)}), cpu ${f((r) => r.cpuMs, ms)} (renderer ${f((r) => r.cpuByType.renderer ?? 0, ms)}), server cpu ${f((r) => r.serverCpuMs, ms)} ` +
    `(p50 / max of ${runs.length}); load ${f(
      (r) => r.load,
      (x) => x.toFixed(2),
    )}`
  );
}

async function main(): Promise<void> {
  const sets = parseSets();
  const dist = resolve(process.env.E2E_DIST ?? join(root, 'dist'));
  await access(join(dist, 'index.html')).catch(() => {
    throw new Error(`link-latency bench: no built app at ${dist} (run npm run build, or set E2E_DIST)`);
  });
  const folder = `link-latency-${process.pid}`;
  await mkdir(join(dist, folder), { recursive: true });
  if (MULTI_RANGE !== 'multipart' && MULTI_RANGE !== 'first') throw new Error(USAGE);
  // Every range request logged: each question's count, and the most at once.
  const server = await serveStatic(dist, { ranges: true, multiRange: MULTI_RANGE, log: true, http2: HTTP2 });
  // Not blocking: routing every request through the runner would add its own delay to each range (browser.ts).
  const { harness, close } = await openHarness(
    server.origin,
    dist,
    'link-latency',
    false,
    certificateArgs(server),
  );
  const all: Run[] = [];
  try {
    const { page, context } = harness;
    // First visit, on the plain host: the service worker installs (precaching the shell) and takes the page.
    await page.goto(`${server.origin}/#ask`);
    await page.waitForFunction(controlledByWorker, undefined, { timeout: STEP_TIMEOUT_MS, polling: 200 });
    const shellFirstVisit = [...server.served.values()].reduce((a, b) => a + b, 0);
    console.log(
      `first visit: the service worker controls the page; ${kb(shellFirstVisit)} sent for the shell and its ` +
        `precache; link ${MBPS} Mbit/s, ${LATENCY_MS} ms round trip (Chromium's emulation); several ranges a ` +
        `request answered ${MULTI_RANGE === 'first' ? 'with the first range only' : 'multipart'}; ${HTTP2 ? 'HTTP/2 over TLS' : 'HTTP/1.1'}`,
    );
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');

    for (const set of sets) {
      const size = (await stat(set.bundle)).size;
      // A name as a path segment the server's tally matches ("100 MiB" was sent as "100%20MiB" and counted as shell).
      const file = `${set.name.replace(/[^\w.-]+/g, '-')}.bundle`;
      await symlink(set.bundle, join(dist, folder, file));
      const path = `/${folder}/${file}`;
      const questions = await pickQuestions(set.questions, N);
      console.log(
        `\n${set.name}: ${set.bundle} (${(size / 1e6).toFixed(2)} MB), ${questions.length} questions`,
      );
      for (const [i, q] of questions.entries()) {
        for (const emulated of PAIRS ? [true, false] : [true]) {
          const r = await coldQuestion(page, cdp, server, set.name, path, q, emulated);
          all.push(r);
          if (emulated && r.rounds !== null && r.waitMs !== null && r.waitMs < r.rounds * LATENCY_MS)
            throw new Error(
              `link-latency bench: "${q}" waited ${r.waitMs} ms on ${r.rounds} rounds of reads, less than one ` +
                `${LATENCY_MS} ms round trip each: the emulation did not reach the query worker`,
            );
          console.log(
            `  ${String(i + 1).padStart(2)} ${emulated ? 'slow' : 'fast'}: open ${ms(r.openMs)} ` +
              `(${kb(r.openBytes)}), first evidence ${ms(r.firstEvidenceMs)} (${r.firstEvidenceStage}), settled ` +
              `${ms(r.settledMs)} (${r.evidence} passages), read ${r.readBytes === null ? '–' : kb(r.readBytes)} in ` +
              `${r.rounds ?? '–'} rounds, waited ${r.waitMs === null ? '–' : ms(r.waitMs)}, sent ` +
              `${kb(r.questionBytes)} in ${r.requests} requests (${r.atOnce} at once), shell ${kb(r.shellBytes)}${r.shellPaths.length ? ` (${r.shellPaths.join(' ')})` : ''}, ` +
              `cpu ${ms(r.cpuMs)} (${Object.entries(r.cpuByType)
                .filter(([, t]) => t > 0)
                .map(([type, t]) => `${type} ${ms(t)}`)
                .join(', ')}; server ${ms(r.serverCpuMs)}); ` +
              `load ${r.load.toFixed(2)}`,
          );
        }
      }
    }
    harness.assertPrivate('link-latency bench');
  } finally {
    await close();
    await server.close();
    await rm(join(dist, folder), { recursive: true, force: true });
  }
  console.log('\nsummary (p50 / max):');
  for (const set of sets) {
    for (const emulated of PAIRS ? [true, false] : [true]) {
      const runs = all.filter((r) => r.set === set.name && r.emulated === emulated);
      console.log(
        `${set.name}, ${emulated ? `${MBPS} Mbit/s ${LATENCY_MS} ms` : 'loopback'}: ${summary(runs)}`,
      );
    }
    if (PAIRS) {
      const slow = all.filter((r) => r.set === set.name && r.emulated);
      const fast = all.filter((r) => r.set === set.name && !r.emulated);
      const diff = slow.map((r, i) => r.settledMs - fast[i].settledMs);
      console.log(
        `${set.name}: settled slow − loopback, same question back to back: p50 ${ms(median(diff))}`,
      );
    }
  }
  const out = process.argv.includes('--json') ? arg('json', '') : '';
  if (out) {
    await writeFile(out, JSON.stringify({ latencyMs: LATENCY_MS, mbps: MBPS, runs: all }, null, 2) + '\n');
    console.log(`link-latency bench: wrote ${out}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

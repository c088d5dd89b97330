// Opening a bundle read-only in headless Chromium, through the built app: the page is opened at
// ?bundle=<url>#ask, a question is typed and asked as soon as the Ask view lets it, and the bench prints the
// milliseconds from navigation to the first evidence on screen (early lexical evidence or the result), to the
// result (the mode with the question's vector), and the query worker's own marks (bundle read and decoded,
// library and engine ready, question model loaded and warm, from openBundle). Run 1 is a fresh profile (nothing
// cached); later runs reload the page in the same profile (the model and the app cached by the service worker).
// Usage: npm run build && node --import tsx test/bench/bundle-open-browser.ts <x.bundle>
//        [--question "<text>"] [--runs 2] [--questions qa.jsonl [--ask-count 50]] [--json out.json]
//   With --questions, after the last run the first --ask-count questions of the QA file are asked one after the
//   other in the same page (warm), each timed from the click on Ask to the result on screen (as bench:drop's
//   askMs): p50 and p95 are printed.
//   With --ranges the server answers HTTP Range requests (as static hosts do): a bundle with pages (cli index --pages)
//   is then read by ranges, and the bench prints the bytes of the bundle each run and each question fetched, and per
//   later question its range requests as the server saw them: how many, the ranges they asked, their bursts (a burst
//   is requests overlapping in time: one round of reads, or one stage of a round) and the time the network was busy
//   (first request to last response of each burst, summed) beside the worker's own wait on reads. --timeline N prints
//   question N's bursts one by one. --multi-range <multipart|first|whole|refuse> sets how the server answers a
//   request for several ranges (multipart, as nginx, by default; 'first' is a host that honours one range a request).
//   --mode M asks every question in mode M (default ppr; kg and hybrid need a bundle built with --kg).
//   --latency-ms N and --mbps M make the server a static host farther away: every response waits N ms before its
//   headers, and all bodies share M Mbit/s (staticServer.ts, link).
//   --http2 serves over HTTP/2 with TLS (a self-signed certificate Chromium is told to accept), as real static hosts
//   speak; HTTP/1.1 by default.
//   --host nginx|nginx-bare|python serves the app and the bundle from a real static host instead of our test server
//   (lib/realHosts.ts): nginx with the README's headers, nginx sending none of its own (as GitHub Pages), or
//   `python3 -m http.server` (no ranges: the whole bundle is downloaded). Ranges are then the host's own (--ranges,
//   --multi-range, --latency-ms and --mbps are our server's); what it sent is read from its log.
//   --offline-copy (with ranges): after run 1 the bundle is kept for offline use (the Library view's "Keep for
//   offline use", timed to its end), the browser goes offline, and the later runs and the questions are read from
//   that copy (the server sends nothing).
//   The built app is read from E2E_DIST or ./dist; Chromium from CHROMIUM_PATH or /usr/bin/chromium.
import { access, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { openHarness } from '../e2e/lib/harness.ts';
import { timedAsk, watchEvidence, workerShare, type AskProbe } from './lib/dropProbes.ts';
import { certificateArgs, serveStatic, type MultiRangeMode, type RangeLog } from '../e2e/lib/staticServer.ts';
import { arg, positional } from './lib/args.ts';
import { serveWithHost, type RealHost } from './lib/realHosts.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DEFAULT_QUESTION =
  'Who introduced a system of musical notation in the 14th century that is used in the area where most of the ' +
  'invasion of the eastern Roman Empire took place?';
const USAGE =
  'usage: node --import tsx test/bench/bundle-open-browser.ts <x.bundle> [--question "<text>"] [--runs 2] ' +
  '[--questions qa.jsonl [--ask-count 50]] [--ranges [--multi-range multipart|first|whole|refuse] [--timeline N]] ' +
  '[--http2] [--host nginx|nginx-bare|python] [--latency-ms N] [--mbps M] [--mode ppr|bm25|kg|hybrid|…] ' +
  '[--offline-copy] [--json out.json]';
const STEP_TIMEOUT_MS = 10 * 60_000;

interface OpenRun {
  run: number;
  /** Navigation start → the question could be asked (Ask button enabled after typing). */
  askableMs: number;
  /** Navigation start → first evidence card on screen (early or settled). */
  firstEvidenceMs: number;
  firstEvidenceStage: string;
  /** Navigation start → the result (settled evidence, Ask no longer searching). */
  resultMs: number;
  evidence: number;
  layer: string | null;
  /** The query worker's marks, ms after openBundle was called. */
  worker: Record<string, number> | null;
  load: number[];
}

async function openOnce(
  page: Page,
  url: string,
  question: string,
  run: number,
  mode: string,
): Promise<OpenRun> {
  const load = loadavg().map((x) => Math.round(x * 100) / 100);
  await page.goto(url, { waitUntil: 'commit' });
  await page.fill('[data-testid="question"]', question, { timeout: STEP_TIMEOUT_MS });
  // The mode list keeps its choice for the page's life: later questions are asked in the same mode.
  if (mode !== 'ppr') await page.selectOption('[data-testid="mode"]', mode, { timeout: STEP_TIMEOUT_MS });
  const askable = await page.evaluate(() => performance.now());
  // The click goes in as soon as the button takes it: a question asked while the bundle downloads waits for it.
  await page.click('[data-testid="ask"]', { timeout: STEP_TIMEOUT_MS });
  const r = await page.evaluate(watchEvidence, STEP_TIMEOUT_MS);
  const worker = await page.evaluate(async () => {
    const d = (
      globalThis as { conceptragDiagnostics?: { openTimings?(): Promise<Record<string, number> | null> } }
    ).conceptragDiagnostics;
    // An app built before openTimings existed has no marks to give.
    return typeof d?.openTimings === 'function' ? d.openTimings() : null;
  });
  return { run, askableMs: askable, ...r, worker, load };
}

/**
 * Warm questions in the open page, each timed from the click on Ask to the result on screen (ms), with the bundle
 * bytes the server sent for it.
 */
async function askSeries(
  page: Page,
  questions: string[],
  servedBytes: () => number,
  requests: RangeLog[],
): Promise<{
  times: number[];
  bytes: number[];
  workers: Array<AskProbe['worker']>;
  reads: RangeLog[][];
}> {
  const times: number[] = [];
  const workers: Array<AskProbe['worker']> = [];
  const bytes: number[] = [];
  const reads: RangeLog[][] = [];
  for (const q of questions) {
    await page.fill('[data-testid="question"]', q);
    const before = servedBytes();
    const first = requests.length;
    const r = await page.evaluate(timedAsk, STEP_TIMEOUT_MS);
    if (r.error) throw new Error(`bundle-open bench: "${q}" failed: ${r.error}`);
    times.push(r.ms);
    workers.push(r.worker);
    bytes.push(servedBytes() - before);
    reads.push(requests.slice(first));
  }
  return { times, bytes, workers, reads };
}

/** Requests overlapping in time, in order: a burst starts when a request arrives with none in flight. */
function bursts(log: readonly RangeLog[]): RangeLog[][] {
  const out: RangeLog[][] = [];
  let busyUntil = -Infinity;
  for (const r of [...log].sort((a, b) => a.start - b.start)) {
    if (r.start > busyUntil) out.push([]);
    out.at(-1)!.push(r);
    busyUntil = Math.max(busyUntil, r.end);
  }
  return out;
}

/** Requests in flight at once at most (the server's view: over HTTP/1.1 a browser opens at most 6 a host). */
function maxInFlight(log: readonly RangeLog[]): number {
  const events = log.flatMap((r) => [
    [r.start, 1],
    [r.end, -1],
  ]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let max = 0;
  for (const [, d] of events) max = Math.max(max, (now += d));
  return max;
}

/** One question's range requests as the server saw them. */
function readsLine(log: readonly RangeLog[], wait: number | null): string {
  const b = bursts(log);
  const busy = b.reduce((n, x) => n + Math.max(...x.map((r) => r.end)) - x[0].start, 0);
  const ranges = log.reduce((n, r) => n + r.ranges, 0);
  const bytes = log.reduce((n, r) => n + r.bytes, 0);
  return (
    `${log.length} requests (${ranges} ranges, ${(bytes / 1e6).toFixed(2)} MB) in ${b.length} bursts, ` +
    `network busy ${busy.toFixed(0)} ms, worker waited ${wait === null ? '–' : wait.toFixed(0)} ms, ` +
    `at most ${maxInFlight(log)} in flight`
  );
}

/** A question's bursts one by one: when each began (after the first request), its requests, bytes and duration. */
function timeline(log: readonly RangeLog[]): string[] {
  const b = bursts(log);
  const t0 = b[0]?.[0].start ?? 0;
  let lastEnd = t0;
  return b.map((x, i) => {
    const end = Math.max(...x.map((r) => r.end));
    const sizes = x.map((r) => r.bytes).sort((p, q) => p - q);
    const line =
      `  burst ${i + 1}: at ${(x[0].start - t0).toFixed(0)} ms (${(x[0].start - lastEnd).toFixed(0)} ms after ` +
      `the last), ${x.length} requests, ${x.reduce((n, r) => n + r.ranges, 0)} ranges, ` +
      `${(x.reduce((n, r) => n + r.bytes, 0) / 1e3).toFixed(0)} kB (median request ${sizes[sizes.length >> 1]} B), ` +
      `${(end - x[0].start).toFixed(0)} ms first request to last response, ${maxInFlight(x)} in flight at most`;
    lastEnd = end;
    return line;
  });
}

/** The Library view's "Keep for offline use", clicked and waited for: its time and the bundle bytes sent for it. */
async function keepOffline(page: Page, servedBytes: () => number): Promise<{ ms: number; bytes: number }> {
  await page.click('a[href="#library"]');
  const before = servedBytes();
  const t0 = Date.now();
  await page.click('[data-testid="offline-keep"]', { timeout: STEP_TIMEOUT_MS });
  await page.waitForSelector('[data-testid="offline-copy"][data-state="kept"]', { timeout: STEP_TIMEOUT_MS });
  const ms = Date.now() - t0;
  await page.click('a[href="#ask"]');
  return { ms, bytes: servedBytes() - before };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  const given = positional();
  if (!given) throw new Error(USAGE);
  const bundle = resolve(given);
  const info = await stat(bundle).catch(() => null);
  if (!info?.isFile()) throw new Error(`bundle-open bench: ${bundle} does not exist or is not a file`);
  const dist = resolve(process.env.E2E_DIST ?? join(root, 'dist'));
  await access(join(dist, 'index.html')).catch(() => {
    throw new Error(`bundle-open bench: no built app at ${dist} (run npm run build, or set E2E_DIST)`);
  });
  const runs = Number(arg('runs', '2'));
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`bundle-open bench: --runs must be ≥ 1`);
  const question = arg('question', DEFAULT_QUESTION);
  // The mode the questions are asked in (the mode list's value): kg and hybrid for a bundle built with --kg.
  const mode = arg('mode', 'ppr');
  // Served from the app's own origin (only same-origin bundles open): a link in dist/, removed afterwards.
  const name = `bench-open-${process.pid}.bundle`;
  await symlink(bundle, join(dist, name));
  const host = process.argv.includes('--host') ? (arg('host', '') as RealHost) : undefined;
  if (host && !['nginx', 'nginx-bare', 'python'].includes(host)) {
    throw new Error(`bundle-open bench: --host must be nginx, nginx-bare or python`);
  }
  // A real host's ranges are its own: nginx answers them (several a request as multipart), Python's server does not.
  const ranges = host ? host !== 'python' : process.argv.includes('--ranges');
  const http2 = process.argv.includes('--http2');
  const multiRange = arg('multi-range', 'multipart') as MultiRangeMode;
  if (!['multipart', 'first', 'whole', 'refuse'].includes(multiRange)) {
    throw new Error(`bundle-open bench: --multi-range must be multipart, first, whole or refuse`);
  }
  // A static host farther than loopback: --latency-ms a response (its round trip), --mbps for every body together.
  const latencyMs = Number(arg('latency-ms', '0'));
  const mbps = Number(arg('mbps', '0'));
  if (!(latencyMs >= 0) || !(mbps >= 0))
    throw new Error('bundle-open bench: --latency-ms and --mbps must be ≥ 0');
  const link = latencyMs > 0 || mbps > 0 ? { latencyMs, mbps: mbps || 1e6 } : undefined;
  if (host && link)
    throw new Error("bundle-open bench: --latency-ms and --mbps are our server's, not --host's");
  if (link) console.log(`bundle-open bench: a link of ${latencyMs} ms a response and ${mbps || '∞'} Mbit/s`);
  const server = host
    ? await serveWithHost(host, dist, { http2 })
    : await serveStatic(dist, { ranges, multiRange, http2, log: ranges, link });
  const servedBytes = (): number => server.served.get(`/${name}`) ?? 0;
  // Requests are watched, not intercepted: a question read by ranges sends hundreds to thousands of them, and
  // routing each through Playwright would time the test runner rather than the app.
  const { harness, close } = await openHarness(
    server.origin,
    dist,
    'bundle-open',
    false,
    certificateArgs(server),
  );
  const offlineCopy = process.argv.includes('--offline-copy');
  if (offlineCopy && !ranges)
    throw new Error('bundle-open bench: --offline-copy keeps a bundle read by ranges');
  let kept: { ms: number; bytes: number } | null = null;
  const results: OpenRun[] = [];
  let series: {
    n: number;
    p50: number;
    p95: number;
    times: number[];
    bytes: number[];
    load: string[];
  } | null = null;
  try {
    console.log(
      `bundle ${bundle}: ${(info.size / 1048576).toFixed(2)} MB; app from ${dist}; ` +
        `${http2 ? 'HTTP/2 (TLS)' : 'HTTP/1.1'}` +
        (host
          ? `, served by ${host}${ranges ? ' (its own ranges)' : ' (no ranges)'}`
          : ranges
            ? `, ranges on, several a request: ${multiRange}`
            : ''),
    );
    for (let run = 1; run <= runs; run++) {
      // A new query string each run: the same URL with a hash would not load the page again.
      const url = `${server.origin}/?bundle=/${name}&run=${run}#ask`;
      const before = servedBytes();
      const firstRequest = server.requests.length;
      const abortedBefore = server.aborted;
      const r = await openOnce(harness.page, url, question, run, mode);
      results.push(r);
      const fetched = servedBytes() - before;
      if (ranges) {
        const log = server.requests.slice(firstRequest).filter((x) => x.path === `/${name}`);
        console.log(`run ${run}: ${readsLine(log, null)}`);
      }
      const aborted = server.aborted - abortedBefore;
      console.log(
        `run ${run}: the server sent ${fetched} bytes of the bundle ` +
          `(${((100 * fetched) / info.size).toFixed(1)}% of ${info.size})${ranges ? ' (ranges on)' : ''}` +
          (aborted > 0 ? `, counting ${aborted} responses the browser closed before their end` : ''),
      );
      console.log(
        `run ${run}${run === 1 ? ' (fresh profile)' : ' (same profile, reloaded)'}: first evidence ` +
          `${r.firstEvidenceMs.toFixed(0)} ms (${r.firstEvidenceStage}), result ${r.resultMs.toFixed(0)} ms ` +
          `(${r.evidence} passages, ${r.layer}); question typed at ${r.askableMs.toFixed(0)} ms; worker ` +
          `${JSON.stringify(r.worker)}; load ${r.load.join(' ')}`,
      );
      if (offlineCopy && run === 1) {
        kept = await keepOffline(harness.page, servedBytes);
        console.log(
          `kept for offline use: ${kept.bytes} bytes sent for it in ${kept.ms.toFixed(0)} ms ` +
            `(${(kept.bytes / 1e6 / (kept.ms / 1000)).toFixed(1)} MB/s); offline from here on; load ` +
            loadavg()
              .map((x) => x.toFixed(2))
              .join(' '),
        );
        await harness.page.context().setOffline(true);
      }
    }
    const qa = process.argv.includes('--questions') ? arg('questions', '') : '';
    if (qa) {
      const count = Number(arg('ask-count', '50'));
      const questions = (await readFile(qa, 'utf8'))
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => String((JSON.parse(l) as { question: unknown }).question))
        .slice(0, count);
      const load = loadavg().map((x) => x.toFixed(2));
      const { times, bytes, workers, reads } = await askSeries(
        harness.page,
        questions,
        servedBytes,
        server.requests,
      );
      if (ranges) {
        const detail = Number(arg('timeline', '0'));
        reads.forEach((log, i) => {
          console.log(
            `question ${i + 1}: ${times[i].toFixed(0)} ms; ${readsLine(log, workers[i]?.waitMs ?? null)}`,
          );
          if (i + 1 === detail) for (const line of timeline(log)) console.log(line);
        });
      }
      const sorted = [...times].sort((a, b) => a - b);
      series = {
        n: times.length,
        p50: percentile(sorted, 50),
        p95: percentile(sorted, 95),
        times,
        bytes,
        load,
      };
      const bySize = [...bytes].sort((a, b) => a - b);
      const share = (b: number): string => `${((100 * b) / info.size).toFixed(2)}%`;
      console.log(
        `bundle bytes per question: p50 ${percentile(bySize, 50)} (${share(percentile(bySize, 50))}), ` +
          `p95 ${percentile(bySize, 95)} (${share(percentile(bySize, 95))}), max ${bySize.at(-1)} ` +
          `(${share(bySize.at(-1) ?? 0)}) of ${info.size}`,
      );
      console.log(
        `${times.length} warm questions: ask p50 ${series.p50.toFixed(0)} ms, p95 ${series.p95.toFixed(0)} ms ` +
          `(click to result on screen); load ${load.join(' ')} → ${loadavg()
            .map((x) => x.toFixed(2))
            .join(' ')}`,
      );
      console.log(`  ${workerShare(workers)}`);
    }
    harness.assertPrivate('bundle-open bench');
  } finally {
    await close();
    await server.close();
    await rm(join(dist, name), { force: true });
  }
  const out = process.argv.includes('--json') ? arg('json', '') : '';
  if (out) {
    await writeFile(
      out,
      JSON.stringify({ bundle, bytes: info.size, question, runs: results, kept, askMs: series }, null, 2) +
        '\n',
    );
    console.log(`bundle-open bench: wrote ${out}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

// Where a question's time goes on the slow link in Chromium (round twenty-four, issue 47): one cold question at a time
// as link-latency.ts asks it (the built app, Chromium's emulation of --mbps and --latency-ms on the page's target, the
// shell cached by the service worker, the HTTP cache cleared, a new document and so a new query worker), with the query
// worker's own timeline:
// - the reader's User Timing marks (src/core/paged/timeline.ts, turned on in the worker from DevTools before the
//   question): each run of the engine (run → ran), each load's stages (stage → decoded), each request handed to the
//   source (send), its bytes back (got) and its blocks checked (checked);
// - the worker's Resource Timing of each bundle request (fetchStart: fetch() called; requestStart: sent on a
//   connection; responseStart: first byte; responseEnd: last byte; transferSize).
// Every millisecond from the Ask click to the settled answer is put in one class, first that applies: "run" (the
// engine's synchronous run), "first byte" (a request in flight, none receiving: its round trip, or queued for a
// connection), "transfer" (a response's bytes arriving), "after last byte" (inside a load, nothing in flight: checking,
// decoding, follow-ups, the hand-over to the next stage), "other" (the page ↔ worker hops, the Ask view, the early
// evidence's choice of cards). Beside each stage, link-sim's model of its requests (each its round trip, then its
// transfer bytes down one shared link after those ahead of it, 6 at once): where the stage's network time exceeds it.
// Usage: npm run build && node --import tsx test/bench/link-timeline.ts <x.bundle> <questions.jsonl> [--n 5]
//          [--latency-ms 100] [--mbps 10] [--stages] [--json out.json]
//   --stages: also each stage's line (requests, KB, its send → last byte, the model's, first fetch() → first byte).
//   --from <in.json>: no Chromium: the timelines of an earlier run's --json, read again (its questions, its loads).
//   --http2, --multi-range <multipart|first> (round twenty-eight): the host as link-latency.ts serves it with them
//   (HTTP/2 over TLS; `first`: one range a request, S3's way); the model's slots are then 100 (the source's streams).
// Round twenty-seven: the worker's CPU while nothing is on the link (no request waiting for its first byte or
// receiving), the question's critical path, by what runs then: a round's run (`run` marks, round ≥ 1), the early
// evidence's runs (round 0), the walk run beside the early evidence (`walk` marks, library.ts), the decoding and
// counting between a load's responses (`arrive` marks, blockStore.ts arrived), and none of these (the hand-over to the
// page, the Ask view, the checks of a load's last response); and of it, what lies after the question's last byte.
//   The built app is read from E2E_DIST or ./dist; Chromium from CHROMIUM_PATH or /usr/bin/chromium.
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import type { CDPSession } from 'playwright-core';
import { controlledByWorker, watchSettled } from './lib/linkProbes.ts';
import { arg } from './lib/args.ts';
import { openLinkHost } from './lib/linkHost.ts';
import { questionsOf, spread } from './lib/questions.ts';
import { WorkerSessions } from './lib/workerSessions.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const STEP_TIMEOUT_MS = 10 * 60_000;
const N = Number(arg('n', '5'));
const LATENCY_MS = Number(arg('latency-ms', '100'));
const MBPS = Number(arg('mbps', '10'));
const STAGES = process.argv.includes('--stages');
const HTTP2 = process.argv.includes('--http2');
const MULTI_RANGE = arg('multi-range', 'multipart');
/**
 * Requests Chromium keeps out to one HTTP/1.1 host (link-sim's and the block store's 6); over HTTP/2 to a host answering
 * one range a request, the source's streams (src/services/bundleBytes/rangeSources.ts: 100 from round twenty-eight, 64
 * in builds before it).
 */
const SLOTS = HTTP2 && MULTI_RANGE === 'first' ? 100 : 6;

interface Mark {
  name: string;
  at: number;
  detail: Record<string, number> | null;
}
interface Fetched {
  fetchStart: number;
  requestStart: number;
  responseStart: number;
  responseEnd: number;
  transferSize: number;
}
interface Stage {
  /** Its first request handed to the source, its last byte, its end (decoded), all ms from the click. */
  send: number;
  lastByte: number;
  end: number;
  requests: Fetched[];
  /** link-sim's model of its requests from its first send: ms to its last byte. */
  modelMs: number;
}
interface Timeline {
  question: string;
  load: number;
  settledMs: number;
  firstEvidenceMs: number;
  rounds: number;
  stages: number;
  requests: number;
  kb: number;
  /** Ms of the question by class (they add up to settledMs). */
  split: Record<(typeof CLASSES)[number], number>;
  /** The stages' network time (first send → last byte), and link-sim's model of the same requests. */
  networkMs: number;
  modelMs: number;
  /** The stages' first fetch() → first byte (what a round trip costs there), mean. */
  firstByteMs: number;
  stageLines: string[];
  /** Ms with nothing on the link, by the CPU running then (they add up to idleMs); and after the last byte. */
  idle: Record<(typeof IDLE_CLASSES)[number], number>;
  idleMs: number;
  tail: Record<(typeof IDLE_CLASSES)[number], number>;
  tailMs: number;
  /** Each run (kind, round), its ms and its ms with nothing on the link (--stages). */
  runLines: string[];
  /** The worker's marks and bundle requests, ms from the click (in --json). */
  marks: Mark[];
  fetched: Fetched[];
}
const CLASSES = ['run', 'first byte', 'transfer', 'after last byte', 'other'] as const;
const IDLE_CLASSES = ['round run', 'early run', 'walk beside', 'arrival', 'none'] as const;

/** The [start, end) spans between each `open` mark and the `close` mark after it, with the open mark's detail. */
function spansOf(marks: readonly Mark[], open: string, close: string): Array<[number, number, Mark]> {
  const spans: Array<[number, number, Mark]> = [];
  let from: Mark | undefined;
  for (const m of marks) {
    if (m.name === open) from = m;
    if (m.name === close && from !== undefined) {
      spans.push([from.at, m.at, from]);
      from = undefined;
    }
  }
  return spans;
}

/** link-sim's link: each request its round trip from its start, then its bytes after those ahead; SLOTS at once. */
function modelled(sizes: readonly number[]): number {
  const rate = (MBPS * 1e6) / 8 / 1000; // bytes a ms
  const slots = Array.from({ length: SLOTS }, () => 0);
  let linkFree = 0;
  let last = 0;
  for (const bytes of sizes) {
    const slot = slots.indexOf(Math.min(...slots));
    const ready = slots[slot] + LATENCY_MS;
    const end = Math.max(linkFree, ready) + bytes / rate;
    linkFree = end;
    slots[slot] = end;
    last = Math.max(last, end);
  }
  return last;
}

/** The worker's marks and bundle requests, from the click, as one question's timeline. */
function timelineOf(
  question: string,
  load: number,
  marks: Mark[],
  fetched: Fetched[],
  settledMs: number,
  firstEvidenceMs: number,
): Timeline {
  const runs: Array<[number, number]> = [];
  let open: number | undefined;
  for (const m of marks) {
    if (m.name === 'run') open = m.at;
    if (m.name === 'ran' && open !== undefined) {
      runs.push([open, m.at]);
      open = undefined;
    }
  }
  // Stages: from a `stage` mark to its `decoded`; the requests fetched between its first send and its end.
  const stages: Stage[] = [];
  let from: number | undefined;
  for (const m of marks) {
    if (m.name === 'stage') from = m.at;
    if (m.name === 'decoded' && from !== undefined) {
      const sends = marks.filter((s) => s.name === 'send' && s.at >= from! && s.at <= m.at);
      const requests = fetched.filter((f) => f.fetchStart >= from! - 1 && f.fetchStart <= m.at);
      if (sends.length > 0 && requests.length > 0) {
        const send = sends[0].at;
        const lastByte = Math.max(...requests.map((r) => r.responseEnd));
        // The model sends each request when the reader handed it over (the stage's later ones may wait for a slot).
        stages.push({
          send,
          lastByte,
          end: m.at,
          requests,
          modelMs: modelled(requests.map((r) => r.transferSize)),
        });
      }
      from = undefined;
    }
  }
  const split = Object.fromEntries(CLASSES.map((c) => [c, 0])) as Timeline['split'];
  const inside = (t: number, spans: ReadonlyArray<readonly [number, number]>) =>
    spans.some(([a, b]) => t >= a && t < b);
  const loads = stages.map((s): [number, number] => [s.send, s.end]);
  const waiting = fetched.map((f): [number, number] => [f.fetchStart, f.responseStart]);
  const receiving = fetched.map((f): [number, number] => [f.responseStart, f.responseEnd]);
  for (let t = 0; t < settledMs; t++) {
    const c = inside(t, runs)
      ? 'run'
      : inside(t, receiving)
        ? 'transfer'
        : inside(t, waiting)
          ? 'first byte'
          : inside(t, loads)
            ? 'after last byte'
            : 'other';
    split[c]++;
  }
  const stageLines = stages.map(
    (s, i) =>
      `    stage ${String(i + 1).padStart(2)} at ${s.send.toFixed(0).padStart(5)} ms: ${String(s.requests.length).padStart(2)} requests ` +
      `${(s.requests.reduce((n, r) => n + r.transferSize, 0) / 1e3).toFixed(0).padStart(5)} KB (largest ` +
      `${(Math.max(...s.requests.map((r) => r.transferSize)) / 1e3).toFixed(0)}), to last byte ` +
      `${(s.lastByte - s.send).toFixed(0).padStart(5)} ms (model ${s.modelMs.toFixed(0).padStart(5)}), fetch() → sent ` +
      `${Math.max(...s.requests.map((r) => r.requestStart - r.fetchStart)).toFixed(0)} ms most, first byte after ` +
      `${Math.min(...s.requests.map((r) => r.responseStart - r.fetchStart)).toFixed(0)}–` +
      `${Math.max(...s.requests.map((r) => r.responseStart - r.fetchStart)).toFixed(0)} ms, then to its end ` +
      `${(s.end - s.lastByte).toFixed(0)} ms`,
  );
  // The critical path's CPU: each ms with no request waiting or receiving, by the span of work covering it.
  const inFlight = fetched.map((f): [number, number] => [f.fetchStart, f.responseEnd]);
  const allRuns = spansOf(marks, 'run', 'ran');
  const cpu: Record<(typeof IDLE_CLASSES)[number], Array<readonly [number, number]>> = {
    'round run': allRuns.filter(([, , m]) => (m.detail?.round ?? 1) !== 0).map(([a, b]) => [a, b]),
    'early run': allRuns.filter(([, , m]) => m.detail?.round === 0).map(([a, b]) => [a, b]),
    'walk beside': spansOf(marks, 'walk', 'walked').map(([a, b]) => [a, b]),
    arrival: spansOf(marks, 'arrive', 'arrived').map(([a, b]) => [a, b]),
    none: [[0, settledMs]],
  };
  const idle = Object.fromEntries(IDLE_CLASSES.map((c) => [c, 0])) as Timeline['idle'];
  const tail = Object.fromEntries(IDLE_CLASSES.map((c) => [c, 0])) as Timeline['tail'];
  const lastByte = Math.max(0, ...fetched.map((f) => f.responseEnd));
  for (let t = 0; t < settledMs; t++) {
    if (inside(t, inFlight)) continue;
    const c = IDLE_CLASSES.find((k) => inside(t, cpu[k]))!;
    idle[c]++;
    if (t >= lastByte) tail[c]++;
  }
  const idleOf = ([a, b]: readonly [number, number]) => {
    let n = 0;
    for (let t = Math.max(0, Math.ceil(a)); t < b; t++) if (!inside(t, inFlight)) n++;
    return n;
  };
  const runLines = [
    ...allRuns.map(([a, b, m]) => ({ a, b, what: `run round ${m.detail?.round ?? '?'}` })),
    ...spansOf(marks, 'walk', 'walked').map(([a, b]) => ({ a, b, what: 'walk beside' })),
  ]
    .sort((x, y) => x.a - y.a)
    .map(
      ({ a, b, what }) =>
        `    ${what.padEnd(12)} at ${a.toFixed(0).padStart(5)} ms: ${(b - a).toFixed(0).padStart(4)} ms, ` +
        `${idleOf([a, b])} with nothing on the link`,
    );
  const firstBytes = fetched.map((f) => f.responseStart - f.fetchStart);
  return {
    question,
    load,
    settledMs,
    firstEvidenceMs,
    rounds: runs.filter(([a]) => marks.find((m) => m.at === a && m.name === 'run')?.detail?.round !== 0)
      .length,
    stages: stages.length,
    requests: fetched.length,
    kb: fetched.reduce((n, f) => n + f.transferSize, 0) / 1e3,
    split,
    networkMs: stages.reduce((n, s) => n + s.lastByte - s.send, 0),
    modelMs: stages.reduce((n, s) => n + s.modelMs, 0),
    firstByteMs: firstBytes.reduce((a, b) => a + b, 0) / Math.max(1, firstBytes.length),
    stageLines,
    idle,
    idleMs: IDLE_CLASSES.reduce((n, c) => n + idle[c], 0),
    tail,
    tailMs: IDLE_CLASSES.reduce((n, c) => n + tail[c], 0),
    runLines,
    marks,
    fetched,
  };
}

async function emulate(cdp: CDPSession): Promise<void> {
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: LATENCY_MS,
    downloadThroughput: (MBPS * 1e6) / 8,
    uploadThroughput: (MBPS * 1e6) / 8,
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.ceil(s.length / 2) - 1];
}

async function main(): Promise<void> {
  if (process.argv.includes('--from')) return again(arg('from', ''));
  const [bundle, questionsFile] = process.argv
    .slice(2)
    .filter(
      (a, i, all) =>
        !a.startsWith('--') && !(i > 0 && all[i - 1].startsWith('--') && all[i - 1] !== '--stages'),
    );
  if (!bundle || !questionsFile)
    throw new Error(
      'usage: link-timeline.ts <x.bundle> <questions.jsonl> [--n 5] [--stages] [--json out.json]',
    );
  // The same questions as link-latency.ts and question-bytes.ts pick for --n: spread over the set.
  const questions = spread(await questionsOf(questionsFile), N);
  const dist = resolve(process.env.E2E_DIST ?? join(root, 'dist'));
  const folder = `link-timeline-${process.pid}`;
  await mkdir(join(dist, folder), { recursive: true });
  await symlink(resolve(bundle), join(dist, folder, 'b.bundle'));
  const path = `/${folder}/b.bundle`;
  const { server, harness, close } = await openLinkHost(dist, 'link-timeline', MULTI_RANGE, HTTP2);
  const out: Timeline[] = [];
  try {
    const { page, context } = harness;
    await page.goto(`${server.origin}/#ask`);
    await page.waitForFunction(controlledByWorker, undefined, { timeout: STEP_TIMEOUT_MS, polling: 200 });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const sessions = new WorkerSessions(cdp);
    for (const [i, q] of questions.entries()) {
      const load = loadavg()[0];
      await emulate(cdp);
      await cdp.send('Network.clearBrowserCache');
      const worker = await sessions.questionReady(
        page,
        `${server.origin}/?bundle=${path}&visit=${i}#library`,
        q,
        'link-timeline',
        STEP_TIMEOUT_MS,
      );
      const evaluate = async <T>(expression: string): Promise<T> =>
        (
          await sessions.send<{ result: { value: T } }>(worker, 'Runtime.evaluate', {
            expression,
            returnByValue: true,
          })
        ).result.value;
      // Nothing of the opening's: the question's marks and requests only.
      await evaluate(
        'globalThis.pagedTimeline = true; performance.clearMarks(); performance.clearResourceTimings(); ' +
          'performance.setResourceTimingBufferSize(5000); true',
      );
      const clicked = await page.evaluate(() => performance.timeOrigin + performance.now());
      await page.click('[data-testid="ask"]');
      const r = await page.evaluate(watchSettled, STEP_TIMEOUT_MS);
      const pageOrigin = await page.evaluate(() => performance.timeOrigin);
      const got = await evaluate<{ origin: number; marks: Mark[]; fetched: Fetched[] }>(
        `({ origin: performance.timeOrigin,
            marks: performance.getEntriesByType('mark').filter((m) => m.name.startsWith('paged:'))
              .map((m) => ({ name: m.name.slice(6), at: m.startTime, detail: m.detail ?? null })),
            fetched: performance.getEntriesByType('resource').filter((e) => e.name.includes(${JSON.stringify(path)}))
              .map((e) => ({ fetchStart: e.fetchStart, requestStart: e.requestStart, responseStart: e.responseStart,
                responseEnd: e.responseEnd, transferSize: e.transferSize })) })`,
      );
      // The worker's clock to ms from the click (both clocks from their own time origins, in wall ms).
      const shift = got.origin - clicked;
      const marks = got.marks.map((m) => ({ ...m, at: m.at + shift }));
      const fetched = got.fetched
        .map((f) => ({
          ...f,
          fetchStart: f.fetchStart + shift,
          requestStart: f.requestStart + shift,
          responseStart: f.responseStart + shift,
          responseEnd: f.responseEnd + shift,
        }))
        .sort((a, b) => a.fetchStart - b.fetchStart);
      const t = timelineOf(
        q,
        load,
        marks,
        fetched,
        pageOrigin + r.resultMs - clicked,
        pageOrigin + r.firstEvidenceMs - clicked,
      );
      out.push(t);
      report(t, i);
    }
    harness.assertPrivate('link-timeline bench');
  } finally {
    await close();
    await server.close();
    await rm(join(dist, folder), { recursive: true, force: true });
  }
  summary(out);
  const file = process.argv.includes('--json') ? arg('json', '') : '';
  if (file) await writeFile(file, JSON.stringify(out, null, 2) + '\n');
}

function report(t: Timeline, i: number): void {
  console.log(
    `${String(i + 1).padStart(2)} settled ${t.settledMs.toFixed(0)} ms (first evidence ${t.firstEvidenceMs.toFixed(0)}), ` +
      `${t.rounds} runs, ${t.stages} stages, ${t.requests} requests, ${t.kb.toFixed(0)} KB; ` +
      CLASSES.map((c) => `${c} ${t.split[c]}`).join(', ') +
      `; stages' network ${t.networkMs.toFixed(0)} ms (model ${t.modelMs.toFixed(0)}), first byte after ` +
      `${t.firstByteMs.toFixed(0)} ms mean; load ${t.load.toFixed(2)}`,
  );
  console.log(
    `   nothing on the link ${t.idleMs} ms: ` +
      IDLE_CLASSES.map((c) => `${c} ${t.idle[c]}`).join(', ') +
      `; after the last byte ${t.tailMs}: ` +
      IDLE_CLASSES.map((c) => `${c} ${t.tail[c]}`).join(', '),
  );
  if (STAGES) for (const line of [...t.stageLines, ...t.runLines]) console.log(line);
}

function summary(out: readonly Timeline[]): void {
  const p50 = (pick: (t: Timeline) => number) => median(out.map(pick)).toFixed(0);
  console.log(
    `\np50 of ${out.length}: settled ${p50((t) => t.settledMs)} ms; ` +
      CLASSES.map((c) => `${c} ${p50((t) => t.split[c])}`).join(', ') +
      `; stages' network ${p50((t) => t.networkMs)} (model ${p50((t) => t.modelMs)}); stages ${p50((t) => t.stages)}, ` +
      `requests ${p50((t) => t.requests)}, KB ${p50((t) => t.kb)}; load ${p50((t) => t.load)}`,
  );
  console.log(
    `nothing on the link ${p50((t) => t.idleMs)} ms p50: ` +
      IDLE_CLASSES.map((c) => `${c} ${p50((t) => t.idle[c])}`).join(', ') +
      `; after the last byte ${p50((t) => t.tailMs)}: ` +
      IDLE_CLASSES.map((c) => `${c} ${p50((t) => t.tail[c])}`).join(', '),
  );
}

/** --from: an earlier run's --json read again (no Chromium). */
async function again(file: string): Promise<void> {
  const saved = JSON.parse(await readFile(file, 'utf8')) as Timeline[];
  const out = saved.map((t) =>
    timelineOf(t.question, t.load, t.marks, t.fetched, t.settledMs, t.firstEvidenceMs),
  );
  out.forEach(report);
  summary(out);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

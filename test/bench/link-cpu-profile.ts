// Where a cold question's CPU goes in the browser (round twenty, issue 47): the built app in headless Chromium on a
// loopback static host (no network emulation: the link's share is link-latency.ts's), a bundle opened as a link, and
// for each question the V8 CPU profile of the query worker (the dedicated worker that reads the bundle by ranges and
// answers) and of the page, from the Ask click to the settled answer, summed over the questions and printed as self
// time by source file and by function (the bundle's sourcemap is not read: names are the built chunks' and their
// functions', which keep their names in the production build only in part; the file column says which chunk).
// Each question cold: a new document (?bundle=…&visit=n#library), so a new query worker with nothing of the bundle.
// The worker's busy time a question is its profiled time less its idle samples (printed first).
// --alloc (round twenty-three): also samples the query worker's allocations (V8's sampling heap profiler, objects
// collected since included: what the garbage collector's time comes from), printed as bytes allocated a question by
// function. Names are readable in a build without minification (vite build --minify false).
// --inclusive: also the query worker's time by function with what it calls (each sample counted once a function on
// its stack): where a run's time goes from the top down.
// --http2 and --multi-range <multipart|first> (round twenty-eight): the host as link-latency.ts serves it with them
//   (HTTP/2 over TLS; `first`: one range a request, S3's way), to see what a request costs the worker there.
// Usage: npm run build && node --import tsx test/bench/link-cpu-profile.ts <x.bundle> <questions.jsonl> [--n 5]
//          [--top 30] [--alloc] [--inclusive] [--http2] [--multi-range <multipart|first>]
import { mkdir, rm, symlink } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { watchSettled } from './lib/linkProbes.ts';
import { arg } from './lib/args.ts';
import { openLinkHost } from './lib/linkHost.ts';
import { questionsOf, spread } from './lib/questions.ts';
import { WorkerSessions } from './lib/workerSessions.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const N = Number(arg('n', '5'));
const TOP = Number(arg('top', '30'));
const ALLOC = process.argv.includes('--alloc');
const INCLUSIVE = process.argv.includes('--inclusive');
const HTTP2 = process.argv.includes('--http2');
const MULTI_RANGE = arg('multi-range', 'multipart');
const STEP_TIMEOUT_MS = 10 * 60_000;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

interface AllocationNode {
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: AllocationNode[];
}

/**
 * Bytes allocated by function (self) of a sampling heap profile, added into the map; a native function's (a typed
 * array's subarray, an iterator's next) named with the script function that called it.
 */
function addAllocations(node: AllocationNode, byFunction: Map<string, number>, caller = ''): void {
  const native = !node.callFrame.url;
  const fn = frameName(node.callFrame) + (native && caller ? ` ← ${caller}` : '');
  if (node.selfSize > 0) byFunction.set(fn, (byFunction.get(fn) ?? 0) + node.selfSize);
  for (const child of node.children)
    addAllocations(child, byFunction, native ? caller : frameName(node.callFrame));
}

const frameName = (frame: ProfileNode['callFrame']): string =>
  `${frame.functionName || '(anonymous)'} ${frame.url ? frame.url.replace(/^.*\//, '') : '(native)'}:${frame.lineNumber + 1}`;

/**
 * Self time (µs) by file and by function of a V8 CPU profile, added into the two maps; with `inclusive`, each
 * sample's time also to every function on its stack (once a function).
 */
function addSelfTimes(
  profile: Profile,
  byFile: Map<string, number>,
  byFunction: Map<string, number>,
  inclusive?: Map<string, number>,
): void {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id)?.callFrame;
    if (!frame) return;
    const us = profile.timeDeltas[i] ?? 0;
    const file = frame.url ? frame.url.replace(/^.*\//, '') : '(native)';
    const fn = frameName(frame);
    byFile.set(file, (byFile.get(file) ?? 0) + us);
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    if (!inclusive) return;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = frameName(nodes.get(at)!.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
  });
}

async function main(): Promise<void> {
  const [bundle, questionsFile] = process.argv
    .slice(2)
    .filter((a) => !a.startsWith('--') && !/^\d+$/.test(a));
  if (!bundle || !questionsFile)
    throw new Error('usage: link-cpu-profile.ts <x.bundle> <questions.jsonl> [--n 5] [--top 30]');
  // The same questions as link-latency.ts and question-bytes.ts pick for --n: spread over the set.
  const questions = spread(await questionsOf(questionsFile), N);
  const dist = resolve(process.env.E2E_DIST ?? join(root, 'dist'));
  const folder = `link-cpu-${process.pid}`;
  await mkdir(join(dist, folder), { recursive: true });
  await symlink(resolve(bundle), join(dist, folder, 'b.bundle'));
  const path = `/${folder}/b.bundle`;
  const { server, harness, close } = await openLinkHost(dist, 'link-cpu-profile', MULTI_RANGE, HTTP2);
  const worker = { file: new Map<string, number>(), fn: new Map<string, number>() };
  const pageTimes = { file: new Map<string, number>(), fn: new Map<string, number>() };
  const allocated = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let settledTotal = 0;
  let profiled = 0;
  try {
    const { page, context } = harness;
    const cdp = await context.newCDPSession(page);
    const sessions = new WorkerSessions(cdp);
    await cdp.send('Profiler.enable');
    for (const [i, q] of questions.entries()) {
      const load = loadavg()[0];
      // The query worker only (the graph worker idles during a question).
      const querySession = await sessions.questionReady(
        page,
        `${server.origin}/?bundle=${path}&visit=${i}#library`,
        q,
        'link-cpu-profile',
        STEP_TIMEOUT_MS,
      );
      const live = sessions.workers.filter((w) => w.sessionId === querySession);
      profiled++;
      for (const w of live) {
        await sessions.send(w.sessionId, 'Profiler.enable');
        await sessions.send(w.sessionId, 'Profiler.setSamplingInterval', { interval: 200 });
        await sessions.send(w.sessionId, 'Profiler.start');
        if (ALLOC)
          await sessions.send(w.sessionId, 'HeapProfiler.startSampling', {
            samplingInterval: 1024,
            includeObjectsCollectedByMajorGC: true,
            includeObjectsCollectedByMinorGC: true,
          });
      }
      await cdp.send('Profiler.start');
      const clickedAt = await page.evaluate(() => performance.now());
      await page.click('[data-testid="ask"]');
      const r = await page.evaluate(watchSettled, STEP_TIMEOUT_MS);
      const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
      addSelfTimes(profile, pageTimes.file, pageTimes.fn);
      for (const w of live) {
        const stopped = await sessions.send<{ profile: Profile }>(w.sessionId, 'Profiler.stop');
        addSelfTimes(stopped.profile, worker.file, worker.fn, INCLUSIVE ? inclusive : undefined);
        if (ALLOC) {
          const sampled = await sessions.send<{ profile: { head: AllocationNode } }>(
            w.sessionId,
            'HeapProfiler.stopSampling',
          );
          addAllocations(sampled.profile.head, allocated);
        }
      }
      settledTotal += r.resultMs - clickedAt;
      console.log(
        `${String(i + 1).padStart(2)} settled ${(r.resultMs - clickedAt).toFixed(0)} ms (loopback), workers ` +
          `profiled ${live.length} (${live.map((w) => w.url.replace(/^.*\//, '')).join(' ')}); load ${load.toFixed(2)}`,
      );
    }
    harness.assertPrivate('link-cpu-profile bench');
  } finally {
    await close();
    await server.close();
    await rm(join(dist, folder), { recursive: true, force: true });
  }
  const print = (title: string, m: Map<string, number>, self = true) => {
    const total = [...m.values()].reduce((a, b) => a + b, 0);
    console.log(
      self
        ? `\n${title}: ${(total / 1000 / profiled).toFixed(0)} ms a question (self time, mean)`
        : `\n${title} (mean a question):`,
    );
    for (const [name, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, TOP))
      console.log(`  ${(us / 1000 / profiled).toFixed(1).padStart(8)} ms  ${name}`);
  };
  console.log(`\nsettled (loopback) mean ${(settledTotal / questions.length).toFixed(0)} ms`);
  const idle = [...worker.fn].reduce((n, [name, us]) => (name.startsWith('(idle)') ? n + us : n), 0);
  const profiledUs = [...worker.fn.values()].reduce((a, b) => a + b, 0);
  console.log(
    `query worker busy ${((profiledUs - idle) / 1000 / profiled).toFixed(0)} ms a question (profiled less idle)`,
  );
  print('query worker, by file', worker.file);
  print('query worker, by function', worker.fn);
  if (INCLUSIVE) print('query worker, by function with what it calls', inclusive, false);
  if (ALLOC) {
    const total = [...allocated.values()].reduce((a, b) => a + b, 0);
    console.log(
      `\nquery worker, allocated: ${(total / 1e6 / profiled).toFixed(1)} MB a question (sampled, by function)`,
    );
    for (const [name, bytes] of [...allocated].sort((a, b) => b[1] - a[1]).slice(0, TOP))
      console.log(`  ${(bytes / 1e6 / profiled).toFixed(2).padStart(8)} MB  ${name}`);
  }
  print('page, by file', pageTimes.file);
  print('page, by function', pageTimes.fn);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

// Embedding a corpus through an OpenAI-compatible service with `cli index --embedder openai:…`: texts per second at
// several concurrencies, and what a run that meets a server failure and a SIGKILL leaves behind once the same
// command is run again. The service is the scripted server on loopback (test/support/scriptedLlmServer.ts) with a
// fixed latency per request, as a real one has; every CLI run is a real child process.
// Usage: node --import tsx test/bench/embed-service.ts [--corpus <jsonl>] [--latency 40] [--dimension 384]
//   [--batch 32] [--concurrency 1,4,16] [--kill-at 0.4]
//   BENCH_DIR (default: ../shared/bench next to the repo) locates the default corpus, musique/corpus.jsonl.
// Wall-clock rates depend on what else runs on the machine: the load average is printed with them, and the CPU
// seconds the CLI spent embedding (from its summary line) and the server (this process) spent answering.
// "latency bound" is concurrency × batch / latency: the rate if the client and the server cost no time.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { readBundleFile } from '../../src/cli/bundleIo.ts';
import { cacheFileName, cachedEmbedder } from '../../src/cli/embeddingCache.ts';
import { EMBEDDINGS_KEY_ENV } from '../../src/cli/keys.ts';
import type { Embedder } from '../../src/core/types.ts';
import { scriptedEmbedding, startScriptedLlmServer } from '../support/scriptedLlmServer.ts';
import { arg } from './lib/args.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const benchDir = process.env.BENCH_DIR ?? resolve(root, '..', 'shared', 'bench');
const corpus = resolve(arg('corpus', join(benchDir, 'musique', 'corpus.jsonl')));
const latencyMs = Number(arg('latency', '40'));
const dimension = Number(arg('dimension', '384'));
const batch = Number(arg('batch', '32'));
const levels = arg('concurrency', '1,4,16').split(',').map(Number);
const killAt = Number(arg('kill-at', '0.4'));
const KEY = 'sk-bench-embed-service';
const MODEL = 'scripted-embedder';

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  seconds: number;
}

/** Runs `cli index` as a child process; `watch` is polled while it runs and may kill it. */
function runCli(args: string[], watch?: (child: ReturnType<typeof spawn>) => void): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'index', ...args], {
    cwd: root,
    env: { ...process.env, [EMBEDDINGS_KEY_ENV]: KEY },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = watch ? setInterval(() => watch(child), 10) : undefined;
  return new Promise((done) =>
    child.on('exit', (code, signal) => {
      clearInterval(timer);
      done({ code, signal, stderr, seconds: (performance.now() - started) / 1000 });
    }),
  );
}

/** The figures of the CLI's last "embedded N texts in S s (R texts/s)" line. */
function summaryOf(stderr: string): { embedded: number; seconds: number; rate: number; cpu: number } {
  const m = /embedded ([\d,]+) texts in ([\d.]+) s \((\d+) texts\/s, ([\d.]+) CPU-s\)/.exec(stderr);
  if (!m)
    throw new Error(`embed-service bench: no summary line in the CLI's output:\n${stderr.slice(-2000)}`);
  return {
    embedded: Number(m[1].replace(/,/g, '')),
    seconds: Number(m[2]),
    rate: Number(m[3]),
    cpu: Number(m[4]),
  };
}

/** The server's vector for a text, normalized in float64. */
function serverVector(text: string): Float64Array {
  const v = scriptedEmbedding(text, dimension);
  const norm = Math.hypot(...v);
  return Float64Array.from(v, (x) => (norm ? x / norm : 0));
}

/** Largest |stored − server| over rows of `texts`; and how many rows differ by more than 1e-6. */
function compare(texts: string[], rows: Float32Array): { maxDiff: number; wrong: number } {
  let maxDiff = 0;
  let wrong = 0;
  texts.forEach((t, i) => {
    const want = serverVector(t);
    let rowMax = 0;
    for (let j = 0; j < dimension; j++)
      rowMax = Math.max(rowMax, Math.abs(rows[i * dimension + j] - want[j]));
    maxDiff = Math.max(maxDiff, rowMax);
    if (rowMax > 1e-6) wrong++;
  });
  return { maxDiff, wrong };
}

const server = await startScriptedLlmServer({
  apiKey: KEY,
  embeddingModels: [MODEL],
  embeddingDimension: dimension,
  embeddingLatencyMs: latencyMs,
});
const spec = `openai:${server.baseUrl}#${MODEL}`;
const work = await mkdtemp(join(tmpdir(), 'conceptrag-embed-service-'));
const indexArgs = (cacheDir: string, concurrency: number, out: string): string[] => [
  corpus,
  '--out',
  out,
  '--embedder',
  spec,
  '--vectors',
  'f32',
  '--no-graph-mask',
  '--cache',
  cacheDir,
  '--concurrency',
  String(concurrency),
  '--batch',
  String(batch),
];

try {
  console.log(
    `corpus ${corpus}; server latency ${latencyMs} ms per request, ${dimension}-d; --batch ${batch}; ` +
      `load average at start ${load()}`,
  );

  // ---- Throughput: a fresh cache for each concurrency ------------------------------------------------------
  let distinct: string[] = [];
  console.log(
    '\n| --concurrency | texts embedded | embedding s | texts/s | latency bound texts/s | requests | max in flight | ' +
      'CLI CPU-s (embedding) | server CPU-s | whole run s | load avg (1/5/15) |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const c of levels) {
    server.reset();
    const out = join(work, `c${c}.bundle`);
    const cpu0 = process.cpuUsage();
    const run = await runCli(indexArgs(join(work, `cache-c${c}`), c, out));
    const serverCpu = process.cpuUsage(cpu0);
    if (run.code !== 0)
      throw new Error(`embed-service bench: the CLI failed at --concurrency ${c}:\n${run.stderr}`);
    const s = summaryOf(run.stderr);
    const requests = server.requests.filter((r) => r.path === '/v1/embeddings').length;
    console.log(
      `| ${c} | ${s.embedded} | ${s.seconds.toFixed(1)} | ${s.rate} | ` +
        `${latencyMs > 0 ? Math.round((c * batch * 1000) / latencyMs) : '∞'} | ${requests} | ` +
        `${server.maxEmbeddingsInFlight()} | ${s.cpu.toFixed(1)} | ` +
        `${((serverCpu.user + serverCpu.system) / 1e6).toFixed(1)} | ${run.seconds.toFixed(1)} | ${load()} |`,
    );
    if (distinct.length === 0) {
      distinct = [...new Set((await readBundleFile(out)).sentences.map((x) => x.text))];
    }
  }

  // ---- One server failure, one dropped reply, one SIGKILL, then the same command again ------------------------
  const c = 4;
  const cacheDir = join(work, 'cache-kill');
  const out = join(work, 'kill.bundle');
  server.reset();
  // The 11th request gets a 500 and the 22nd's reply is dropped after the server embedded it (a retry re-embeds).
  server.scriptEmbeddings(
    ...Array.from({ length: 10 }, () => ({ kind: 'ok' as const })),
    { kind: 'server-error', status: 500 },
    ...Array.from({ length: 10 }, () => ({ kind: 'ok' as const })),
    { kind: 'drop' },
  );
  let atKill = { embedded: 0, inFlight: 0 };
  const killed = await runCli(indexArgs(cacheDir, c, out), (child) => {
    if (atKill.embedded === 0 && server.embeddedTexts.length >= killAt * distinct.length) {
      atKill = { embedded: server.embeddedTexts.length, inFlight: server.embeddingsInFlight() };
      child.kill('SIGKILL');
    }
  });
  if (killed.signal !== 'SIGKILL')
    throw new Error(`embed-service bench: the run was not killed:\n${killed.stderr}`);
  const cacheFile = join(cacheDir, cacheFileName(spec));
  const recordBytes = 32 + 4 * dimension;
  const afterKill = await stat(cacheFile);
  const tornBytes = (afterKill.size - 16) % recordBytes;
  const storedAtKill = Math.floor((afterKill.size - 16) / recordBytes);
  const firstRunTexts = server.embeddedTexts.length;
  const resumed = await runCli(indexArgs(cacheDir, c, out));
  if (resumed.code !== 0) throw new Error(`embed-service bench: the second run failed:\n${resumed.stderr}`);
  const resumedSummary = summaryOf(resumed.stderr);

  const times = new Map<string, number>();
  for (const t of server.embeddedTexts) times.set(t, (times.get(t) ?? 0) + 1);
  const twice = [...times.values()].filter((n) => n > 1).length;
  const extra = [...times.values()].reduce((s, n) => s + n - 1, 0);
  const dropped = server.requests.find((r) => r.outcome === 'drop')?.body as { input?: string[] } | undefined;
  const failures = server.requests.filter((r) => r.outcome !== 'ok').map((r) => r.outcome);
  const retries = (killed.stderr.match(/index: retry /g) ?? []).length;

  // What the cache holds, read back with an embedder that must never be called.
  const refuse: Embedder = {
    id: spec,
    dimension,
    embed: () => Promise.reject(new Error('embed-service bench: a text is missing from the cache')),
  };
  const cache = cachedEmbedder(refuse, cacheDir);
  const missing = await cache.missing(distinct);
  const cacheRecords = ((await stat(cacheFile)).size - 16) / recordBytes;
  const fromCache = missing.length === 0 ? compare(distinct, await cache.embed(distinct)) : null;
  const bundle = await readBundleFile(out);
  let bundleRows = 0;
  const bundleCheck = { maxDiff: 0, wrong: 0 };
  for (const doc of bundle.documents) {
    const rows = bundle.sentences.filter((x) => x.docId === doc.id).sort((a, b) => a.index - b.index);
    const v = bundle.vectors.get(doc.id);
    if (!v || v.length !== rows.length * dimension) continue;
    bundleRows += rows.length;
    const r = compare(
      rows.map((x) => x.text),
      v,
    );
    bundleCheck.maxDiff = Math.max(bundleCheck.maxDiff, r.maxDiff);
    bundleCheck.wrong += r.wrong;
  }

  console.log(`\nkill and resume (--concurrency ${c}, --batch ${batch}), load average ${load()}:`);
  console.log(`- server faults met: ${failures.join(', ')}; retries logged by the killed run: ${retries}`);
  console.log(
    `- SIGKILL after ${killed.seconds.toFixed(1)} s, when the server had embedded ${atKill.embedded} texts ` +
      `(${atKill.inFlight} requests not yet answered by it); the cache then held ${storedAtKill} whole records` +
      `${tornBytes ? ` and a torn tail of ${tornBytes} bytes` : ''}; the server embedded ${firstRunTexts} texts in that run`,
  );
  console.log(
    `- second run: embedded ${resumedSummary.embedded} texts in ${resumedSummary.seconds.toFixed(1)} s ` +
      `(${resumedSummary.rate} texts/s); whole run ${resumed.seconds.toFixed(1)} s`,
  );
  console.log(`- distinct texts: ${distinct.length}; sentences in the bundle: ${bundle.sentences.length}`);
  console.log(`- vectors in the cache: ${cacheRecords}; sentence vectors in the bundle: ${bundleRows}`);
  console.log(`- texts missing from the cache: ${missing.length}`);
  console.log(
    `- texts the server embedded more than once: ${twice} (${extra} extra embeddings); the dropped reply's batch ` +
      `accounts for ${dropped?.input?.length ?? 0}, the rest were in flight at the kill ` +
      `(at most ${c} × ${batch} = ${c * batch})`,
  );
  console.log(
    `- cache vectors equal to the server's: ${fromCache ? `${distinct.length - fromCache.wrong}/${distinct.length} (max |Δ| ${fromCache.maxDiff.toExponential(1)})` : 'not checked (texts missing)'}`,
  );
  console.log(
    `- bundle vectors equal to the server's: ${bundleRows - bundleCheck.wrong}/${bundleRows} (max |Δ| ${bundleCheck.maxDiff.toExponential(1)})`,
  );
  // ---- Ctrl-C instead of SIGKILL: the requests in flight are stored before the process exits ----------------
  const termDir = join(work, 'cache-term');
  server.reset();
  let termAt = 0;
  const termed = await runCli(indexArgs(termDir, c, join(work, 'term.bundle')), (child) => {
    if (termAt === 0 && server.embeddedTexts.length >= killAt * distinct.length) {
      termAt = server.embeddedTexts.length;
      child.kill('SIGTERM');
    }
  });
  const termStored = Math.floor(((await stat(join(termDir, cacheFileName(spec)))).size - 16) / recordBytes);
  const termServer = server.embeddedTexts.length;
  const termResumed = await runCli(indexArgs(termDir, c, join(work, 'term.bundle')));
  const termTimes = new Map<string, number>();
  for (const t of server.embeddedTexts) termTimes.set(t, (termTimes.get(t) ?? 0) + 1);
  const termTwice = [...termTimes.values()].filter((n) => n > 1).length;
  const termMissing = await cachedEmbedder(refuse, termDir).missing(distinct);
  console.log(`\nSIGTERM (as Ctrl-C) and resume (--concurrency ${c}), load average ${load()}:`);
  console.log(
    `- SIGTERM when the server had embedded ${termAt} texts; the run exited with code ${termed.code} after the ` +
      `server had embedded ${termServer}, and the cache held ${termStored} records`,
  );
  console.log(
    `- second run exit ${termResumed.code}; texts missing after it: ${termMissing.length}; ` +
      `texts the server embedded more than once: ${termTwice}`,
  );

  const ok =
    termMissing.length === 0 &&
    termResumed.code === 0 &&
    missing.length === 0 &&
    fromCache?.wrong === 0 &&
    bundleCheck.wrong === 0 &&
    bundleRows === bundle.sentences.length;
  console.log(ok ? '\nverdict: complete and exact' : '\nverdict: FAILED (see above)');
  process.exitCode = ok ? 0 : 1;
} finally {
  await server.close();
  await rm(work, { recursive: true, force: true });
}

// The embedding pool in headless Chromium: sentences per second of USE-lite on 1 embedding worker against a pool,
// on TF.js's WASM backend against WebGL (software GL: SwiftShader), and the cosine between their vectors.
// It builds a one-page app around src/services/embed/embedPool.ts and the real embed worker (workers/embed.worker.ts)
// with Vite into a temporary folder, serves it with the app's cross-origin isolation and CSP headers, and embeds
// N real sentences (MuSiQue passages split as the ingest pipeline splits them) in two ways: one call of N texts,
// and calls of 128 one after another (what the ingest pipeline does today).
// WebGL on SwiftShader is far slower than WASM here, so it embeds only the first --webgl-n sentences (and warms up
// on 32); the cosine is taken over the sentences both embedded. Run `node src/tools/copy-assets.mjs` first in a
// fresh clone (the model and the TF.js WASM files come from public/).
// Usage: node --import tsx test/bench/embed-pool-browser.ts [--n 2000] [--webgl-n 100] [--workers 1,2]
//        [--backends wasm,webgl] [--corpus <jsonl>]
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import wasm from 'vite-plugin-wasm';
import { prepareFile } from '../../src/core/prepare.ts';
import { DEFAULT_INDEX_PARAMS } from '../../src/core/types.ts';
import { CHROMIUM_PATH } from '../e2e/lib/browser.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { arg } from './lib/args.ts';
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// The page: one pool per run, warmed up on other sentences (model loads, WebGL shader compiles), then timed.
// Vectors of the first run are kept as the reference the others are compared with.
const PAGE_SCRIPT = `
import { createEmbedPool } from '/src/services/embed/embedPool.ts';
import { spawnEmbedWorker } from '/src/services/embed/embedders.ts';

let reference = null;

function cosines(a, b, dim) {
  let min = 1, sum = 0;
  const n = Math.min(a.length, b.length) / dim;
  for (let r = 0; r < n; r++) {
    let dot = 0, na = 0, nb = 0;
    for (let i = r * dim; i < (r + 1) * dim; i++) { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
    const c = dot / Math.sqrt(na * nb);
    min = Math.min(min, c);
    sum += c;
  }
  return { min, mean: sum / n };
}

function renderer() {
  const gl = document.createElement('canvas').getContext('webgl2');
  if (!gl) return null;
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  return String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
}

window.embedBench = {
  renderer,
  async run(texts, warm, workers, backend) {
    const t0 = performance.now();
    const pool = await createEmbedPool({ size: workers, spawn: () => spawnEmbedWorker({ spec: 'use', backend }), name: 'use' });
    try {
      // Enough texts that every worker starts and embeds a few batches.
      await pool.embed(warm);
      const loadSeconds = (performance.now() - t0) / 1000;
      let t = performance.now();
      const rows = await pool.embed(texts);
      const oneCall = texts.length / ((performance.now() - t) / 1000);
      t = performance.now();
      for (let i = 0; i < texts.length; i += 128) await pool.embed(texts.slice(i, i + 128));
      const calls128 = texts.length / ((performance.now() - t) / 1000);
      const result = { backend: pool.backend, liveWorkers: pool.liveWorkers, loadSeconds, oneCall, calls128 };
      if (!reference) { reference = rows; return { ...result, cosine: null }; }
      return { ...result, rows: rows.length / pool.dimension, cosine: cosines(reference, rows, pool.dimension) };
    } finally {
      await pool.dispose();
    }
  },
};
`;

async function buildPage(outDir: string): Promise<void> {
  // The page's HTML must sit inside the Vite root; it lives there only while the build runs.
  const pageDir = await mkdtemp(join(root, 'test', 'bench', 'embed-pool-page-'));
  try {
    const html = join(pageDir, 'index.html');
    await writeFile(
      html,
      `<!doctype html><html><head><meta charset="utf-8"><title>embed pool bench</title></head>` +
        `<body><script type="module">${PAGE_SCRIPT}</script></body></html>`,
    );
    await build({
      configFile: false,
      root,
      publicDir: join(root, 'public'),
      logLevel: 'warn',
      plugins: [wasm()],
      worker: { format: 'es', plugins: () => [wasm()] },
      build: {
        outDir,
        emptyOutDir: true,
        target: 'es2022',
        chunkSizeWarningLimit: 8000,
        rollupOptions: { input: html },
      },
    });
  } finally {
    await rm(pageDir, { recursive: true, force: true });
  }
}

async function sentencesOf(corpus: string, n: number): Promise<string[]> {
  const lines = (await readFile(corpus, 'utf8')).split('\n').filter((l) => l.trim());
  const out: string[] = [];
  // Enough passages for n sentences (MuSiQue passages hold about 3–5).
  const file = new TextEncoder().encode(lines.slice(0, Math.ceil(n / 2)).join('\n') + '\n');
  const { documents } = await prepareFile('passages.jsonl', file, {
    maxChunkTokens: DEFAULT_INDEX_PARAMS.maxChunkTokens,
  });
  for (const d of documents) for (const s of d.sentences) out.push(s.text);
  if (out.length < n) throw new Error(`embed-pool bench: only ${out.length} sentences in ${corpus}`);
  return out.slice(0, n);
}

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

async function main(): Promise<void> {
  const corpus = arg('corpus', join(root, '..', 'shared', 'bench', 'musique', 'corpus.jsonl'));
  const n = Number(arg('n', '2000'));
  const webglN = Number(arg('webgl-n', '100'));
  const workerCounts = arg('workers', '1,2').split(',').map(Number);
  const backends = arg('backends', 'wasm,webgl').split(',');
  const all = await sentencesOf(corpus, n + 300);
  const texts = all.slice(0, n);
  const warm = all.slice(n);
  const outDir = await mkdtemp(join(tmpdir(), 'conceptrag-embed-pool-'));
  let t = performance.now();
  await buildPage(outDir);
  console.log(`built the bench page in ${((performance.now() - t) / 1000).toFixed(0)} s (load ${load()})`);
  const server = await serveStatic(outDir);
  // Software WebGL (SwiftShader through ANGLE): headless Chromium here has no GPU. Playwright gives the browser a
  // fresh temporary profile.
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--ignore-gpu-blocklist',
    ],
  });
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') console.error(`page ${m.type()}: ${m.text()}`);
    });
    await page.goto(`${server.origin}/test/bench/${await pageFolder(outDir)}/index.html`);
    await page.waitForFunction(() => 'embedBench' in window);
    const renderer = await page.evaluate(() =>
      (window as unknown as { embedBench: { renderer(): string | null } }).embedBench.renderer(),
    );
    console.log(`${texts.length} sentences of ${corpus}; ${warm.length} others to warm up`);
    console.log(
      `cores: ${await page.evaluate(() => navigator.hardwareConcurrency)}; WebGL renderer: ${renderer}`,
    );
    console.log(
      'backend      workers     load+warm s  one call s/s  calls of 128 s/s  cosine vs first (min / mean)  load avg',
    );
    for (const backend of backends) {
      for (const workers of workerCounts) {
        t = performance.now();
        const r = await page.evaluate(
          ([x, w, k, b]) =>
            (
              window as unknown as {
                embedBench: {
                  run(
                    texts: string[],
                    warm: string[],
                    workers: number,
                    backend: string,
                  ): Promise<{
                    backend: string;
                    liveWorkers: number;
                    loadSeconds: number;
                    oneCall: number;
                    calls128: number;
                    rows?: number;
                    cosine: { min: number; mean: number } | null;
                  }>;
                };
              }
            ).embedBench.run(x, w, k, b),
          [
            backend === 'webgl' ? texts.slice(0, webglN) : texts,
            backend === 'webgl' ? warm.slice(0, 32) : warm,
            workers,
            backend,
          ] as const,
        );
        const cos = r.cosine
          ? `${r.cosine.min.toFixed(5)} / ${r.cosine.mean.toFixed(6)} on ${r.rows}`
          : `(reference, ${texts.length})`;
        console.log(
          `${`${backend}→${r.backend}`.padEnd(13)} ${String(workers).padStart(2)} (${r.liveWorkers} live)` +
            `  ${r.loadSeconds.toFixed(1).padStart(6)}  ${r.oneCall.toFixed(0).padStart(8)}` +
            `  ${r.calls128.toFixed(0).padStart(10)}       ${cos.padEnd(22)}  ${load()}`,
        );
      }
    }
  } finally {
    await browser.close();
    await server.close();
    await rm(outDir, { recursive: true, force: true });
  }
}

/** The temporary page folder's name as built (Vite keeps the HTML's path below the root). */
async function pageFolder(outDir: string): Promise<string> {
  const name = (await readdir(join(outDir, 'test', 'bench'))).find((x) => x.startsWith('embed-pool-page-'));
  if (!name) throw new Error(`embed-pool bench: no built page under ${outDir}/test/bench`);
  return name;
}

await main();

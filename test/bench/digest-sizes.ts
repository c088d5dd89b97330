// How a dedicated worker in Chromium best digests the many short messages a question checks (round twenty-three,
// issue 47): a batch of `--count` messages of each size digested by WebCrypto (all at once, as blockDigests did:
// Promise.all of crypto.subtle.digest), by the bundle's pure SHA-256 with a hasher a message (new Sha256()), and by
// sha256() (one hasher reset a message, no allocation but the digest). A question at 100 MiB checks ~2,000–4,000 row
// blocks of ~128 bytes and, version 13, up to three nodes of 33 bytes a block checked by its path
// (src/core/paged/blockPaths.ts); the query worker's profile (link-cpu-profile.ts) counted ~100 ms a question in
// WebCrypto's digest calls. Prints, by size, the median of `--reps` batches (methods alternated within a rep) in
// ms a batch and µs a message, and which is fastest: where blockDigest.ts should stop hashing synchronously.
// Usage: node --import tsx test/bench/digest-sizes.ts [--count 4000] [--reps 9] [--sizes 33,128,256,512,1024,2048,4096]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { openHarness } from '../e2e/lib/harness.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { arg } from './lib/args.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const COUNT = Number(arg('count', '4000'));
const REPS = Number(arg('reps', '9'));
const SIZES = arg('sizes', '33,128,256,512,1024,2048,4096').split(',').map(Number);

/** The worker: answers {sizes, count, reps} with the batches' times by method and size. */
const WORKER_ENTRY = `
import { Sha256, sha256 } from './src/core/bundle/sha256.ts';
const methods = {
  webcrypto: async (blocks) => (await Promise.all(blocks.map((b) => crypto.subtle.digest('SHA-256', b)))).map((d) => new Uint8Array(d)),
  'pure, a hasher a message': async (blocks) => blocks.map((b) => new Sha256().update(b).digest()),
  'sha256() (one hasher)': async (blocks) => blocks.map((b) => sha256(b)),
};
self.onmessage = async (e) => {
  const { sizes, count, reps } = e.data;
  const out = [];
  let seed = 1;
  for (const size of sizes) {
    const blocks = Array.from({ length: count }, () => {
      const b = new Uint8Array(size);
      for (let i = 0; i < size; i++) b[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
      return b;
    });
    const names = Object.keys(methods);
    // The three agree (a method that hashed wrongly would be timed for nothing).
    const first = await Promise.all(names.map((n) => methods[n](blocks.slice(0, 8))));
    for (const d of first) for (let k = 0; k < 8; k++) if (d[k].join() !== first[0][k].join()) throw new Error('digests differ at ' + size);
    const times = Object.fromEntries(names.map((n) => [n, []]));
    for (let r = 0; r < reps; r++) {
      for (let j = 0; j < names.length; j++) {
        const name = names[(j + r) % names.length];
        const t0 = performance.now();
        await methods[name](blocks);
        times[name].push(performance.now() - t0);
      }
    }
    out.push({ size, times });
  }
  self.postMessage(out);
};
`;

interface SizeResult {
  size: number;
  times: Record<string, number[]>;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'digest-sizes-'));
  const built = await build({
    stdin: { contents: WORKER_ENTRY, resolveDir: root, loader: 'js' },
    bundle: true,
    write: false,
    format: 'iife',
    minify: true,
  });
  await writeFile(join(dir, 'worker.js'), built.outputFiles[0].text);
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>digest sizes</title>');
  const server = await serveStatic(dir);
  const { harness, close } = await openHarness(server.origin, dir, 'digest-sizes');
  const loadBefore = loadavg()[0];
  const started = new Date().toISOString().slice(11, 19);
  let results: SizeResult[];
  try {
    const { page } = harness;
    await page.goto(`${server.origin}/index.html`);
    results = await page.evaluate(
      (input) =>
        new Promise<SizeResult[]>((done, fail) => {
          const worker = new Worker('/worker.js');
          worker.onmessage = (e: MessageEvent<SizeResult[]>) => done(e.data);
          worker.onerror = (e) => fail(new Error(e.message));
          worker.postMessage(input);
        }),
      { sizes: SIZES, count: COUNT, reps: REPS },
    );
    harness.assertPrivate('digest-sizes bench');
  } finally {
    await close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(
    `${COUNT} messages a batch, median of ${REPS} batches; UTC ${started}, load ${loadBefore.toFixed(2)} → ` +
      `${loadavg()[0].toFixed(2)}`,
  );
  const names = Object.keys(results[0].times);
  console.log(`| bytes | ${names.map((n) => `${n}: ms (µs a message)`).join(' | ')} | fastest |`);
  console.log(`| ----- | ${names.map(() => '---').join(' | ')} | --- |`);
  for (const { size, times } of results) {
    const med = names.map((n) => median(times[n]));
    const best = names[med.indexOf(Math.min(...med))];
    console.log(
      `| ${size} | ${med.map((m) => `${m.toFixed(1)} (${((m * 1000) / COUNT).toFixed(2)})`).join(' | ')} | ${best} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

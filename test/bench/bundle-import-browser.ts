// Bundle import benchmark in headless Chromium. Part 1, through the built app's own UI: seconds from choosing the
// bundle in the Library view's bundle input until the "Imported …" message (read + validate + decode + one
// IndexedDB transaction + concept graph rebuild when needed), then seconds of the first question after the import
// (the query worker loads the corpus, the graph and the embedding model). Part 2, the store code alone on real
// IndexedDB (src/store bundled with esbuild into a bare page): import from a fetch stream, export back to a Blob,
// and the same write without vectors, to show what the vectors cost.
// Usage: npm run build && node --import tsx test/bench/bundle-import-browser.ts <x.bundle>
//        [--question "<text>"] [--raw-runs 2]   (--raw-runs 0 skips part 2)
//   The built app is read from E2E_DIST or ./dist; Chromium from CHROMIUM_PATH or /usr/bin/chromium.
import { access, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import type { readIndexBundle } from '../../src/core/bundle/index.ts';
import type { exportLibraryBlob } from '../../src/store/bundleExport.ts';
import type { ImportResult, writeSnapshot } from '../../src/store/bundleImport.ts';
import type { openDatabase } from '../../src/store/db.ts';
import { importBundle, openApp, readCounts } from '../e2e/lib/app.ts';
import { openHarness } from '../e2e/lib/harness.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { arg, positional } from './lib/args.ts';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DEFAULT_QUESTION =
  'Who introduced a system of musical notation in the 14th century that is used in the area where most of the ' +
  'invasion of the eastern Roman Empire took place?';
const USAGE =
  'usage: node --import tsx test/bench/bundle-import-browser.ts <x.bundle> [--question "<text>"] [--raw-runs 2]';
/** A large bundle takes minutes on a loaded machine: generous, but a hang still ends. */
const STEP_TIMEOUT_MS = 20 * 60_000;

/** The store functions part 2 calls in the page, put on globalThis by the esbuild-bundled entry below. */
interface BenchStore {
  readIndexBundle: typeof readIndexBundle;
  writeSnapshot: typeof writeSnapshot;
  openDatabase: typeof openDatabase;
  exportLibraryBlob: typeof exportLibraryBlob;
}

const PAGE_ENTRY = `
import { readIndexBundle } from './src/core/bundle/index.ts';
import { exportLibraryBlob } from './src/store/bundleExport.ts';
import { writeSnapshot } from './src/store/bundleImport.ts';
import { openDatabase } from './src/store/db.ts';
globalThis.benchStore = { readIndexBundle, writeSnapshot, openDatabase, exportLibraryBlob };
`;

interface RawRun {
  importMs: number;
  readMs: number;
  added: ImportResult['added'];
  exportMs: number;
  exportBytes: number;
  noVectorsMs: number;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** Part 1: import through the Library view, then ask one question in the Ask view of the same page. */
async function appImport(dist: string, bundle: string, question: string): Promise<void> {
  const server = await serveStatic(dist);
  const { harness, close } = await openHarness(server.origin, dist, 'bench');
  try {
    const { page } = harness;
    await openApp(page, server.origin);
    const t0 = performance.now();
    await importBundle(page, bundle, STEP_TIMEOUT_MS);
    const importMs = performance.now() - t0;
    console.log(
      `app import (read + validate + decode + IndexedDB write + graph rebuild if needed): ${seconds(importMs)}; ` +
        JSON.stringify(await readCounts(page)),
    );

    await page.click('a[href="#ask"]');
    await page.fill('[data-testid="question"]', question);
    const t1 = performance.now();
    await page.click('[data-testid="ask"]');
    const outcome = await page.waitForSelector('[data-testid="results"], [role="alert"]', {
      timeout: STEP_TIMEOUT_MS,
    });
    const askMs = performance.now() - t1;
    if ((await outcome.getAttribute('role')) === 'alert') {
      throw new Error(`bundle-import bench: the question failed: ${(await outcome.textContent())?.trim()}`);
    }
    const summary = ((await page.textContent('[data-testid="results"] .summary')) ?? '')
      .replace(/\s+/g, ' ')
      .trim();
    console.log(
      `first question after the import (the query worker loads corpus, graph and model): ${seconds(askMs)}; ` +
        `app says: ${summary}`,
    );
    harness.assertPrivate('bundle-import bench');
  } finally {
    await close();
    await server.close();
  }
}

/** Runs in the page (serialized by Playwright): one timed import, export and vector-less write. */
async function rawImportInPage(url: string): Promise<RawRun> {
  const store = (globalThis as unknown as { benchStore: BenchStore }).benchStore;
  const emptyDb = async () => {
    const db = store.openDatabase('conceptrag-bench');
    await db.open();
    await db.transaction('rw', db.tables, async () => {
      for (const table of db.tables) await table.clear();
    });
    return db;
  };
  let db = await emptyDb();
  const t0 = performance.now();
  const response = await fetch(url);
  if (!response.ok || !response.body)
    throw new Error(`bundle-import bench: GET ${url} gave ${response.status}`);
  const snapshot = await store.readIndexBundle(response.body);
  const readMs = performance.now() - t0;
  const result = await store.writeSnapshot(db, snapshot);
  const importMs = performance.now() - t0;
  const t1 = performance.now();
  const blob = await store.exportLibraryBlob(db, { appVersion: 'bench' });
  const exportMs = performance.now() - t1;
  db.close();
  db = await emptyDb();
  const t2 = performance.now();
  await store.writeSnapshot(db, { ...snapshot, embedder: null, vectors: new Map() });
  const noVectorsMs = performance.now() - t2;
  db.close();
  return { importMs, readMs, added: result.added, exportMs, exportBytes: blob.size, noVectorsMs };
}

/** Part 2: the store code alone, bundled for the browser, on real IndexedDB in a fresh profile. */
async function rawImport(bundle: string, runs: number): Promise<void> {
  const tmp = await mkdtemp(join(tmpdir(), 'conceptrag-bench-import-'));
  try {
    await build({
      stdin: { contents: PAGE_ENTRY, resolveDir: root, loader: 'ts', sourcefile: 'bench-import-entry.ts' },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      outfile: join(tmp, 'import.js'),
      logLevel: 'warning',
    });
    await writeFile(
      join(tmp, 'index.html'),
      '<!doctype html><script type="module" src="/import.js"></script>\n',
    );
    await symlink(bundle, join(tmp, 'x.bundle'));
    const server = await serveStatic(tmp);
    const { harness, close } = await openHarness(server.origin, tmp, 'bench-raw');
    try {
      const page: Page = harness.page;
      await page.goto(`${server.origin}/`);
      await page.waitForFunction(() => 'benchStore' in globalThis, undefined, { timeout: 30_000 });
      for (let run = 1; run <= runs; run++) {
        const r = await page.evaluate(rawImportInPage, '/x.bundle');
        console.log(
          `raw run ${run}: import ${seconds(r.importMs)} (of which read + validate + decode ` +
            `${seconds(r.readMs)}) ${JSON.stringify(r.added)}; export ${seconds(r.exportMs)}, ` +
            `${(r.exportBytes / 1048576).toFixed(2)} MB; the same records without vectors written in ` +
            `${seconds(r.noVectorsMs)}`,
        );
      }
    } finally {
      await close();
      await server.close();
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const given = positional();
  if (!given) throw new Error(USAGE);
  const bundle = resolve(given);
  const info = await stat(bundle).catch(() => null);
  if (!info?.isFile())
    throw new Error(`bundle-import bench: bundle ${bundle} does not exist or is not a file`);
  const dist = resolve(process.env.E2E_DIST ?? join(root, 'dist'));
  await access(join(dist, 'index.html')).catch(() => {
    throw new Error(`bundle-import bench: no built app at ${dist} (run npm run build, or set E2E_DIST)`);
  });
  const runs = Number(arg('raw-runs', '2'));
  if (!Number.isInteger(runs) || runs < 0) {
    throw new Error(`bundle-import bench: --raw-runs must be an integer ≥ 0, got ${arg('raw-runs', '')}`);
  }
  console.log(`bundle ${bundle}: ${(info.size / 1048576).toFixed(2)} MB; app from ${dist}`);
  await appImport(dist, bundle, arg('question', DEFAULT_QUESTION));
  if (runs > 0) await rawImport(bundle, runs);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

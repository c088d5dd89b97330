import { statSync } from 'node:fs';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';
import { configDefaults, type TestProjectInlineConfiguration } from 'vitest/config';
import { VitePWA } from 'vite-plugin-pwa';
import wasm from 'vite-plugin-wasm';
import { securityHeadersPlugin } from './src/tools/csp.ts';

// WASM threads (onnxruntime-web, TF.js) need cross-origin isolation, in dev and in preview alike.
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** `TEST_TIER=scale`: the unit tests of the scale tier (`npm run test:scale`), not the default tier. */
const SCALE_TIER = process.env.TEST_TIER === 'scale';

/**
 * The unit folders whose files share one module graph (vitest's `isolate: false`): a module is loaded once for them
 * all, not once per file (a fresh graph per file cost 224 s of the tier's 1,371 s on CI in imports). Only these
 * passed in one graph in shuffled orders (docs/results/test-suite-round7-unit.md); in the rest, files failed after
 * others (a module's state left by an earlier file, a `vi.mock`, Dexie keeping the `indexedDB` it found first:
 * docs/results/test-suite-round6-unit.md). Each of these files leaves no global behind.
 */
const SHARED_FOLDERS = [
  ...['text', 'graph', 'metrics', 'logical', 'kg'],
  ...['atomic', 'store', 'docs', 'sw', 'llm'],
].map((f) => `test/unit/${f}/**`);

/** The scale tier: a fresh module graph per file, as before (four files, each long). */
const SCALE_PROJECT: TestProjectInlineConfiguration = {
  extends: true,
  test: { name: 'scale', include: ['test/unit/**/*.scale.test.ts'] },
};

const DEFAULT_PROJECTS: TestProjectInlineConfiguration[] = [
  {
    extends: true,
    test: {
      name: 'shared',
      include: SHARED_FOLDERS.map((f) => `${f}/*.test.ts`),
      exclude: [...configDefaults.exclude, 'test/unit/**/*.scale.test.ts'],
      isolate: false,
    },
  },
  {
    extends: true,
    test: {
      name: 'isolated',
      include: ['test/unit/**/*.test.ts'],
      exclude: [...configDefaults.exclude, 'test/unit/**/*.scale.test.ts', ...SHARED_FOLDERS],
    },
  },
];

// The offline service worker (src/sw/sw.ts): vite-plugin-pwa builds it with the Workbox modules bundled in (never
// a CDN) and injects the precache manifest of this build — every file with its hash or content revision.
const serviceWorker = VitePWA({
  strategies: 'injectManifest',
  srcDir: 'src/sw',
  filename: 'sw.ts',
  // src/sw/register.svelte.ts registers it through workbox-window and shows the "Reload" banner.
  injectRegister: false,
  manifest: false,
  injectManifest: {
    // Classic script: registered without { type: 'module' }, which older browsers' service workers lack.
    rollupFormat: 'iife',
    globPatterns: ['**/*.{html,js,css,wasm,json,md,txt}', 'models/use/group1-shard*', 'tesseract/lang/*.gz'],
    // The model shards are 4 MB, onnxruntime's WASM 10 MB, the recogniser's 4 MB (cached on first use, see
    // src/sw/manifest.ts).
    maximumFileSizeToCacheInBytes: 12 * 1024 * 1024,
    // Vite's /assets/ names carry a content hash already: no revision query needed.
    dontCacheBustURLsMatching: /^assets\//,
  },
  devOptions: { enabled: false },
});

/**
 * What the text recogniser's first use downloads from public/tesseract (src/tools/copy-assets.mjs), in bytes, for
 * the Library view's notice: tesseract.js's worker with the largest of the WASM builds, and each language's data.
 */
const nm = (path: string): number => statSync(new URL(`./node_modules/${path}`, import.meta.url)).size;
const ocrDownload = {
  recogniser:
    nm('tesseract.js/dist/worker.min.js') + nm('tesseract.js-core/tesseract-core-relaxedsimd-lstm.wasm.js'),
  eng: nm('@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz'),
  chi_sim: nm('@tesseract.js-data/chi_sim/4.0.0_best_int/chi_sim.traineddata.gz'),
};

export default defineConfig({
  define: { __OCR_DOWNLOAD__: JSON.stringify(ocrDownload) },
  // securityHeadersPlugin: the page's and the workers' CSP headers from `vite preview` (src/tools/csp.ts).
  plugins: [svelte(), wasm(), serviceWorker, securityHeadersPlugin()],
  worker: { format: 'es', plugins: () => [wasm()] },
  server: { headers: isolation, host: '127.0.0.1', port: 5173 },
  preview: { headers: isolation, host: '127.0.0.1', port: 4173 },
  build: { target: 'es2022', chunkSizeWarningLimit: 8000 },
  test: {
    testTimeout: 60_000,
    // A file's beforeAll builds a library or starts a loopback server: vitest's 10 s default failed two of them at
    // load 50-60 (globalAnswer, redirects), so hooks get the tests' own limit.
    hookTimeout: 60_000,
    pool: 'forks',
    // One fork on a 2-core machine (vitest's default, cores − 1): `npm test` runs the static checks and the build
    // beside it on the other core. Two forks were tried: with the cores busy, each CPU-bound test then takes about
    // twice as long, and one ran past its own 60 s time-out (openCompact, at load 25–30).
    // Two tiers (README, "How the tests are checked"): `npm test` runs every test/unit file but the scale tier's,
    // `npm run test:scale` (TEST_TIER=scale) runs only those — *.scale.test.ts, the long scale and hostile cases,
    // each behaviour of which a smaller case of the default tier also checks.
    projects: SCALE_TIER ? [SCALE_PROJECT] : DEFAULT_PROJECTS,
  },
});

import { statSync } from 'node:fs';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';
import { configDefaults } from 'vitest/config';
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
 * Unit files that get a fresh module graph each (vitest's `isolate`), apart from the shared one of the rest.
 */
const ISOLATED_FILES = [
  // They change a global their module graph reads once: Dexie keeps the `indexedDB` it found when first imported
  // (`fake-indexeddb/auto` must come first), and `csvFormulas` stubs `location` before importing what it tests.
  'test/unit/ui/embedderSettings.test.ts',
  'test/unit/services/embed/embedPoolSettings.test.ts',
  'test/unit/ui/csvFormulas.test.ts',
  // Each passes alone and failed after other files in one shared graph (a shuffled whole-tier run, seed 11): a
  // state of a module they share with an earlier file, not found yet (docs/results/test-suite-round6-unit.md).
  'test/unit/parse/ocrScan.test.ts',
  'test/unit/services/themes/corpusAnswer.test.ts',
  'test/unit/cli/indexOpenAi.test.ts',
  'test/unit/services/llm/kgBuildPages.test.ts',
];

/** The scale tier: a fresh module graph per file, as before (four files, each long). */
const SCALE_PROJECT = {
  extends: true,
  test: { name: 'scale', include: ['test/unit/**/*.scale.test.ts'] },
};

const DEFAULT_PROJECTS = [
  // Most files share one module graph (`isolate: false`): a fresh one per file cost a fifth of the tier's wall in
  // imports (226 s of 1,100 s on CI; docs/results/test-suite-round6-unit.md). None of them leaves a global behind:
  // spies are restored, env keys put back, IndexedDB injected per test.
  {
    extends: true,
    test: {
      name: 'shared',
      include: ['test/unit/**/*.test.ts'],
      exclude: [...configDefaults.exclude, 'test/unit/**/*.scale.test.ts', ...ISOLATED_FILES],
      isolate: false,
    },
  },
  { extends: true, test: { name: 'isolated', include: ISOLATED_FILES } },
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

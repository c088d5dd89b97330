/// <reference types="vitest/config" />
import { statSync } from 'node:fs';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import wasm from 'vite-plugin-wasm';
import { securityHeadersPlugin } from './src/tools/csp.ts';

// WASM threads (onnxruntime-web, TF.js) need cross-origin isolation, in dev and in preview alike.
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

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
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
  },
});

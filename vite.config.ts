/// <reference types="vitest/config" />
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';
import wasm from 'vite-plugin-wasm';

// WASM threads (onnxruntime-web, TF.js) need cross-origin isolation, in dev and in preview alike.
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  plugins: [svelte(), wasm()],
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

// ConceptRAG service worker: after one visit the app loads and answers with the network off.
// It caches only this origin's GET requests — the app shell, the built assets, the model files (/models/use/*),
// the TF.js and ONNX runtime files (/tfjs/*, /ort/*) and the samples — and never touches a request to another
// origin (the user's LLM endpoint goes straight to the network, uncached and unseen).
/* eslint-disable */
const CACHE = 'conceptrag-v1';
const SHELL = ['./', './index.html'];
const MODEL_DIR = './models/use/';
const TFJS = [
  'tfjs-backend-wasm.wasm',
  'tfjs-backend-wasm-simd.wasm',
  'tfjs-backend-wasm-threaded-simd.wasm',
];

/** Model shards are listed in model.json; caching them at install makes the first offline question work. */
async function modelFiles() {
  try {
    const response = await fetch(new URL(`${MODEL_DIR}model.json`, self.registration.scope));
    if (!response.ok) return [];
    const model = await response.json();
    const shards = (model.weightsManifest || []).flatMap((group) => group.paths || []);
    return ['model.json', 'vocab.json', ...shards].map((f) => `${MODEL_DIR}${f}`);
  } catch {
    return [];
  }
}

/** Script and style URLs referenced by the shell page (the hashed /assets/ files of the build). */
function shellAssets(html) {
  const urls = new Set();
  for (const m of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
    const url = new URL(m[1], self.registration.scope);
    if (url.origin === self.location.origin && !url.pathname.endsWith('/')) urls.add(url.href);
  }
  return [...urls];
}

async function precache() {
  const cache = await caches.open(CACHE);
  const scope = self.registration.scope;
  const shell = await fetch(new URL('./', scope), { cache: 'no-cache' });
  if (shell.ok) {
    await cache.put(new URL('./', scope).href, shell.clone());
    await cache.put(new URL('./index.html', scope).href, shell.clone());
  }
  const html = shell.ok ? await shell.text() : '';
  const urls = [
    ...shellAssets(html),
    ...(await modelFiles()),
    ...TFJS.map((f) => new URL(`./tfjs/${f}`, scope).href),
  ];
  // One failing file (e.g. an optional wasm variant) must not abort the whole install.
  await Promise.all(
    urls.map(async (url) => {
      try {
        const response = await fetch(url, { cache: 'no-cache' });
        if (response.ok) await cache.put(url, response);
      } catch {
        /* fetched again at run time */
      }
    }),
  );
}

self.addEventListener('install', (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) if (key !== CACHE) await caches.delete(key);
      await self.clients.claim();
    })(),
  );
});

/** The page sends the same-origin resources it loaded before this worker controlled it (first visit). */
self.addEventListener('message', (event) => {
  const data = event.data || {};
  if (data.type !== 'cache-urls' || !Array.isArray(data.urls)) return;
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      for (const raw of data.urls) {
        try {
          const url = new URL(raw, self.registration.scope);
          if (url.origin !== self.location.origin || (await cache.match(url.href))) continue;
          const response = await fetch(url.href);
          if (response.ok) await cache.put(url.href, response);
        } catch {
          /* best effort */
        }
      }
      event.source && event.source.postMessage({ type: 'cache-urls-done', count: data.urls.length });
    })(),
  );
});

function cacheable(request, url) {
  if (request.method !== 'GET' || url.origin !== self.location.origin) return false;
  if (request.headers.has('range')) return false;
  // Vite's dev server (HMR, module graph) must never be served from a cache.
  if (url.pathname.startsWith('/@') || url.pathname.includes('/node_modules/')) return false;
  return true;
}

/** Network first: pages and bundles (may change), the cache when offline. */
async function networkFirst(request, fallback) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(request, response.clone());
    return response;
  } catch (error) {
    const cached =
      (await cache.match(request, { ignoreSearch: true })) || (fallback && (await cache.match(fallback)));
    if (cached) return cached;
    throw error;
  }
}

/** Cache first: hashed build assets, models and runtimes never change under the same URL. */
async function cacheFirst(request) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  // Another origin (the LLM endpoint, anything else): not intercepted at all.
  if (!cacheable(request, url)) return;
  if (request.mode === 'navigate') {
    event.respondWith(networkFirst(request, new URL('./index.html', self.registration.scope).href));
    return;
  }
  if (
    url.pathname.endsWith('.bundle') ||
    (url.pathname.endsWith('.json') && url.pathname.includes('/samples/'))
  ) {
    event.respondWith(networkFirst(request));
    return;
  }
  event.respondWith(cacheFirst(request));
});

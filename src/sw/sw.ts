// ConceptRAG service worker, built by vite-plugin-pwa (injectManifest) with the Workbox modules bundled in — no
// CDN. After one visit the app loads and answers with the network off:
// - the build's files (app shell, hashed /assets/ bundles, the USE model, the TF.js WASM, the samples) are
//   precached from the manifest Workbox injects at build time; each entry is versioned (hashed file name or a
//   content revision), and on update only changed files are fetched and entries of the old build are deleted;
// - the onnxruntime WASM (38 MB, only for a transformers.js embedder) is cached on first use, in a cache whose
//   name carries those files' revisions, so a new runtime gets a new cache and the old one is deleted;
// - any other same-origin GET (an opened .bundle, a same-origin model folder) is network-first with expiry.
// Requests to another origin (the user's LLM or embedding endpoint) are never intercepted.
// A new version waits until the page asks it to take over (the "Reload" banner, src/sw/register.ts).
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { ExpirationPlugin } from 'workbox-expiration';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { CacheFirst, NetworkFirst } from 'workbox-strategies';
import { lazyCacheName, ownAnswer, splitManifest, LAZY_CACHE_PREFIX, RUNTIME_CACHE } from './manifest.ts';

declare const self: ServiceWorkerGlobalScope & {
  __WB_MANIFEST: Array<{ url: string; revision: string | null }>;
};

/** The hand-written worker this one replaced kept everything in this cache. */
const LEGACY_CACHES = ['conceptrag-v1'];

const { eager, lazy } = splitManifest(self.__WB_MANIFEST);
const lazyCache = lazyCacheName(lazy);

precacheAndRoute(eager);
// Precaches of older Workbox versions (a different cache layout) are deleted too.
cleanupOutdatedCaches();

// Every navigation to the app (also /?bundle=…) gets the precached shell, so the app opens offline; a file opened
// directly in a tab (a path ending in .md, .json, …) is fetched as itself.
registerRoute(
  new NavigationRoute(createHandlerBoundToURL('index.html'), {
    denylist: [/^[^?]*\/[^/?]+\.[^/?]+(\?.*)?$/],
  }),
);

const sameOrigin = (url: URL): boolean => url.origin === self.location.origin;

registerRoute(
  ({ url }) => sameOrigin(url) && lazy.some((e) => url.pathname.endsWith(`/${e.url}`)),
  new CacheFirst({ cacheName: lazyCache }),
);

registerRoute(
  ({ url, request }) => sameOrigin(url) && request.method === 'GET' && !request.headers.has('range'),
  new NetworkFirst({
    cacheName: RUNTIME_CACHE,
    plugins: [
      // Kept only when it came from this origin: a same-origin URL that redirects elsewhere (a bundle link answering
      // 302 to a stranger's host) must not have the stranger's answer served under the app's own address.
      {
        cacheWillUpdate: ({ response }) =>
          Promise.resolve(ownAnswer(response, self.location.origin) ? response : null),
      },
      new ExpirationPlugin({ maxEntries: 50, maxAgeSeconds: 30 * 24 * 3600, purgeOnQuotaError: true }),
    ],
  }),
);

self.addEventListener('activate', (event) => {
  // Workbox removes outdated precache entries itself; the caches named here are ours to tidy.
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        const stale =
          LEGACY_CACHES.includes(name) || (name.startsWith(LAZY_CACHE_PREFIX) && name !== lazyCache);
        if (stale) await caches.delete(name);
      }
    })(),
  );
});

// The first install takes over at once, so the first visit is already cached for offline use; an update waits
// for the page's "Reload" (a page half on the old bundles and half on the new ones would break).
self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});
self.addEventListener('install', () => {
  if (!self.registration.active) void self.skipWaiting();
});

/** The Static Routing API (Chromium 123+); absent elsewhere, where the fetch event below lets ranges pass. */
interface RoutableInstallEvent extends ExtendableEvent {
  addRoutes?(rules: {
    condition: { requestMode: RequestMode; requestDestination: RequestDestination };
    source: 'network';
  }): Promise<void>;
}

// A bundle read by ranges sends its range requests from fetch() (destination '') with mode 'same-origin'
// (rangeSources.ts), which no other fetch() of the app uses: those go straight to the network without waking this
// worker. A worker's own script is fetched with mode 'same-origin' too, but its destination is 'worker', and it must
// stay cached for offline use. No route here caches a range, but the fetch event still ran for each of them on this
// worker's thread, and a first question on a 1 GiB bundle sends about two thousand (docs/results/ranges.md).
self.addEventListener('install', (event) => {
  const routes = (event as RoutableInstallEvent).addRoutes?.({
    condition: { requestMode: 'same-origin', requestDestination: '' },
    source: 'network',
  });
  // A browser that knows the API but not these conditions keeps the fetch event: the install must not fail for it.
  if (routes) event.waitUntil(routes.catch(() => undefined));
});
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

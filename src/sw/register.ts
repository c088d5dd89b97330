// Registers the offline service worker (public/sw.js) and hands it the same-origin files this page loaded before
// the worker controlled it, so that after ONE visit the app shell, its assets and the model files are all cached
// and the app loads and answers with the network off. Called once by the UI at start-up.

export interface OfflineStatus {
  /** False where service workers are unavailable (dev server, http on a non-localhost host, old browsers). */
  supported: boolean;
  registration: ServiceWorkerRegistration | null;
  /** Resolves once the worker controls the page and has cached what the page had loaded so far. */
  ready: Promise<void>;
}

/** Same-origin resources loaded by this page so far (scripts, styles, workers' modules, wasm, model files). */
function loadedUrls(): string[] {
  const urls = new Set<string>([location.href]);
  for (const entry of performance.getEntriesByType('resource')) {
    const url = new URL(entry.name);
    if (url.origin === location.origin) urls.add(url.href);
  }
  return [...urls];
}

function handOver(worker: ServiceWorker): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (event: MessageEvent): void => {
      if ((event.data as { type?: string } | null)?.type !== 'cache-urls-done') return;
      navigator.serviceWorker.removeEventListener('message', onMessage);
      resolve();
    };
    navigator.serviceWorker.addEventListener('message', onMessage);
    worker.postMessage({ type: 'cache-urls', urls: loadedUrls() });
  });
}

export function registerServiceWorker(
  options: { scriptUrl?: string; enabled?: boolean } = {},
): OfflineStatus {
  const enabled = options.enabled ?? !import.meta.env.DEV;
  if (!enabled || typeof navigator === 'undefined' || !('serviceWorker' in navigator)) {
    return { supported: false, registration: null, ready: Promise.resolve() };
  }
  const scriptUrl = options.scriptUrl ?? `${import.meta.env.BASE_URL}sw.js`;
  const status: OfflineStatus = { supported: true, registration: null, ready: Promise.resolve() };
  status.ready = (async () => {
    status.registration = await navigator.serviceWorker.register(scriptUrl, { type: 'classic' });
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      // clients.claim() in the worker's activate step makes it the controller; wait for that hand-over.
      await new Promise<void>((resolve) =>
        navigator.serviceWorker.addEventListener('controllerchange', () => resolve(), { once: true }),
      );
    }
    await handOver(navigator.serviceWorker.controller!);
  })().catch((error: unknown) => {
    // Offline support is an extra: the app works online without it, so report and go on.
    console.warn(
      `offline: service worker registration failed: ${error instanceof Error ? error.message : error}`,
    );
  });
  return status;
}

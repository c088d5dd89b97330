// Registers the offline service worker (src/sw/sw.ts, built into sw.js by vite-plugin-pwa) through
// workbox-window, and tells the page when a new version of the app has been installed and waits: the
// UpdateBanner then offers "Reload", which lets the new worker take over and reloads the page on it. The first
// install takes over at once (sw.ts), so the first visit is already available offline.
import { Workbox } from 'workbox-window';

const UPDATE_CHECK_MS = 60 * 60 * 1000;

class ServiceWorkerState {
  /** A new version is installed and waits for the user's "Reload". */
  updateReady = $state(false);
  private workbox: Workbox | null = null;

  /** Called once at start-up; a no-op in the dev server and where service workers are unavailable. */
  register(options: { enabled?: boolean } = {}): void {
    const enabled = options.enabled ?? !import.meta.env.DEV;
    if (!enabled || typeof navigator === 'undefined' || !('serviceWorker' in navigator)) return;
    const base = import.meta.env.BASE_URL;
    const workbox = new Workbox(`${base}sw.js`, { scope: base });
    workbox.addEventListener('waiting', () => (this.updateReady = true));
    // The new worker took over after "Reload" (here or in another tab): this page still runs the old bundles.
    workbox.addEventListener('controlling', (event) => {
      if (event.isUpdate) location.reload();
    });
    this.workbox = workbox;
    // Browsers look for a new worker on navigations; a tab left open for days asks once an hour too.
    setInterval(() => void workbox.update().catch(() => undefined), UPDATE_CHECK_MS);
    workbox.register().catch((error: unknown) => {
      // Offline support is an extra: the app works online without it, so report and go on.
      console.warn(
        `offline: service worker registration failed: ${error instanceof Error ? error.message : error}`,
      );
    });
  }

  /** Activates the waiting version; the 'controlling' handler above then reloads the page on it. */
  reload(): void {
    if (this.workbox) this.workbox.messageSkipWaiting();
    else location.reload();
  }
}

export const serviceWorker = new ServiceWorkerState();

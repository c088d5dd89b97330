// What every browser profile the tests open shares, with the e2e specs (fixtures.ts) and the browser benches
// (harness.ts): Debian's Chromium and its flags, and the privacy guard — no request leaves the browser except to
// the app's own origin and the loopback servers a test started itself (the stand-ins for the endpoint the user set).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext } from 'playwright-core';

/** The built app the tests serve: ./dist, or E2E_DIST for another build (e.g. one made with a different base). */
export const DIST =
  process.env.E2E_DIST ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist');

/** Debian's Chromium (what .ci/run installs); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  // Chromium's own background traffic (component updates, sync, safe-browsing lists) would count as requests
  // leaving the browser: switched off so the guard sees only what the app does.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function isAllowed(url: string, allowed: Set<string>): boolean {
  // In-page URLs never reach the network.
  if (url.startsWith('data:') || url.startsWith('blob:') || url.startsWith('about:')) return true;
  try {
    return allowed.has(new URL(url).origin);
  } catch {
    return false;
  }
}

/**
 * Records and blocks every request of the watched browser contexts (pages, dedicated workers, the service worker)
 * to an origin that is neither the app's nor one allowed by the test. Blocking as well as recording: a foreign
 * request must never succeed silently while the test goes on.
 */
export class RequestGuard {
  private readonly allowed: Set<string>;
  private readonly foreign: string[] = [];

  constructor(appOrigin: string) {
    this.allowed = new Set([appOrigin]);
  }

  /** Lets requests to another origin through: a loopback server the test itself started (e.g. the scripted LLM). */
  allowOrigin(origin: string): void {
    this.allowed.add(new URL(origin).origin);
  }

  /** Requests that went, or tried to go, elsewhere than the allowed origins (each URL once, in order). */
  get foreignRequests(): readonly string[] {
    return this.foreign;
  }

  /**
   * Removes and returns the recorded requests to one origin: only for the guard's own spec, which provokes such a
   * request on purpose and then checks that nothing else left.
   */
  take(origin: string): string[] {
    const wanted = new URL(origin).origin;
    const taken = this.foreign.filter((url) => URL.canParse(url) && new URL(url).origin === wanted);
    const rest = this.foreign.filter((url) => !taken.includes(url));
    this.foreign.splice(0, this.foreign.length, ...rest);
    return taken;
  }

  /** Throws (failing the test) if any request went elsewhere than the allowed origins. */
  check(): void {
    if (this.foreign.length > 0) {
      throw new Error(`requests left the app's origin: ${this.foreign.join(', ')}`);
    }
  }

  /**
   * Records every request of the context to another origin, and with `block` (the default) also stops it. Blocking
   * routes every request through the test runner, a few milliseconds each: a bench that times thousands of range
   * requests passes false, and still fails at its end if anything left (check()).
   */
  async watch(context: BrowserContext, { block = true }: { block?: boolean } = {}): Promise<void> {
    const record = (url: string): void => {
      if (!isAllowed(url, this.allowed) && !this.foreign.includes(url)) this.foreign.push(url);
    };
    context.on('request', (request) => record(request.url()));
    if (!block) return;
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (isAllowed(url, this.allowed)) return route.continue();
      record(url);
      return route.abort('blockedbyclient');
    });
  }
}

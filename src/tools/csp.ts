// The app's Content-Security-Policy, in one place: the <meta> tag of index.html (checked equal by a unit test),
// the headers of the e2e static server and of `vite preview`, and what a deployer should send.
//
// Why two policies. Every request to a user-configured endpoint (LLM, embeddings, a model URL) is made by a
// worker (workers/kg.worker.ts, ingest/query workers), never by the page. A dedicated worker loaded from a URL
// does not inherit the page's policy; it gets the one sent with its own script (Chromium 156 checked: a worker
// fetched another origin under a page whose meta policy said connect-src 'self'). So:
// - the page: connect-src 'self'. It fetches only the samples and its own files; an injected script in the page
//   cannot send anything anywhere with fetch/XHR/WebSocket/beacons;
// - the workers' scripts (header only, a worker has no <meta>): connect-src 'self' http: https:. The endpoint is
//   typed into Settings at run time and stored in IndexedDB; a static policy cannot name it, and a <meta> policy
//   cannot change after load. Listing hosts would break every user's own endpoint (Ollama on a LAN address, a
//   hosted API), so the workers may reach any http(s) origin, and what they send where is the code's job: the key
//   goes only to its endpoint (src/core/llm/client.ts, src/core/embed/openai.ts), never through a redirect
//   (src/core/llm/keyedFetch.ts), and every e2e spec fails on a request to any other origin.
// frame-ancestors works only as a header (browsers ignore it, with a console error, in <meta>).

type Directives = Record<string, string[]>;

const BASE: Directives = {
  'default-src': ["'self'"],
  // WebAssembly (TF.js, onnxruntime-web) compiles under 'wasm-unsafe-eval'; no eval of JavaScript.
  'script-src': ["'self'", "'wasm-unsafe-eval'"],
  // Our own module workers and the service worker; no blob: workers (WASM threads are off).
  'worker-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
};

const PAGE: Directives = {
  ...BASE,
  'connect-src': ["'self'"],
  // The data: favicon of index.html and blob: URLs of downloads/previews.
  'img-src': ["'self'", 'data:', 'blob:'],
  // Vite's dev server injects CSS as <style> elements; inline style cannot run script.
  'style-src': ["'self'", "'unsafe-inline'"],
  'form-action': ["'none'"],
};

const WORKER: Directives = { ...BASE, 'connect-src': ["'self'", 'http:', 'https:'] };

function serialize(d: Directives): string {
  return Object.entries(d)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ');
}

/** The policy in index.html's <meta http-equiv="Content-Security-Policy">. */
export const META_CSP = serialize(PAGE);
/** The page's policy as a header: the meta policy plus frame-ancestors (no framing, no clickjacking). */
export const PAGE_CSP = serialize({ ...PAGE, 'frame-ancestors': ["'none'"] });
/** The policy sent with JavaScript files: it governs the workers (and the service worker) they start. */
export const WORKER_CSP = serialize(WORKER);

/** Security headers for a response of the built app, by file path or URL path. */
export function securityHeaders(path: string): Record<string, string> {
  const clean = path.split(/[?#]/)[0].toLowerCase();
  if (clean.endsWith('/') || clean.endsWith('.html')) {
    return { 'Content-Security-Policy': PAGE_CSP, 'X-Frame-Options': 'DENY' };
  }
  if (clean.endsWith('.js') || clean.endsWith('.mjs')) return { 'Content-Security-Policy': WORKER_CSP };
  return {};
}

/** Minimal shape of a connect middleware stack (Vite's dev and preview servers), to avoid a type dependency. */
interface MiddlewareServer {
  middlewares: {
    use(
      fn: (
        req: { url?: string },
        res: { setHeader(name: string, value: string): void },
        next: () => void,
      ) => void,
    ): void;
  };
}

/** A Vite plugin that sends the headers above from `vite preview` (the built app, `npm start`). */
export function securityHeadersPlugin(): {
  name: string;
  configurePreviewServer(server: MiddlewareServer): void;
} {
  return {
    name: 'conceptrag-security-headers',
    configurePreviewServer(server) {
      server.middlewares.use((req, res, next) => {
        // "/" and SPA paths serve index.html.
        const path = req.url && /\.[a-z0-9]+(?:[?#]|$)/i.test(req.url) ? req.url : '/';
        for (const [name, value] of Object.entries(securityHeaders(path))) res.setHeader(name, value);
        next();
      });
    },
  };
}

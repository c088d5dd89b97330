// The network ledger's recorder: a fetch wrapper that leaves one entry per request the app makes to an endpoint
// (the LLM's chat completions and model list, an `openai:` embedder's embeddings, the connection test). It records
// the method, origin, path (never the query string), purpose, body sizes, status and time — never a header, so
// never the API key, and never a body, only its size. An LLM client built with `clientOptions` also puts the
// call's tokens and cost on its entry. Platform-neutral: it runs in every worker; entries go to a sink, by
// default the ledger's own IndexedDB database (src/store/ledgerStore.ts) and a BroadcastChannel the Network view
// listens on (src/ui/ledger). Requests for the app's own assets do not pass through here (see src/ui/ledger).
import type { CallUsage } from '../../core/llm/index.ts';
import {
  LEDGER_CHANNEL,
  type LedgerEntry,
  type LedgerMessage,
  type LedgerPurpose,
} from './ledgerProtocol.ts';

/** Receives each entry when its request ended, and again (same id) when its token usage arrives. */
export type LedgerSink = (entry: LedgerEntry) => void;

type Fetch = typeof fetch;

const encoder = new TextEncoder();

/** Size in bytes of a request body as sent (the body is read for its size only, never kept). */
function bodySize(body: BodyInit | null | undefined): number {
  if (body === null || body === undefined) return 0;
  if (typeof body === 'string') return encoder.encode(body).length;
  if (body instanceof ArrayBuffer) return body.byteLength;
  if (ArrayBuffer.isView(body)) return body.byteLength;
  if (typeof Blob !== 'undefined' && body instanceof Blob) return body.size;
  if (body instanceof URLSearchParams) return encoder.encode(body.toString()).length;
  return 0; // a stream or form data: not sent by this app's clients
}

/** Reads a response body to its end for its size (on a clone: the caller reads the original). */
async function countBytes(
  body: ReadableStream<Uint8Array> | null,
): Promise<{ bytes: number; error?: string }> {
  if (!body) return { bytes: 0 };
  const reader = body.getReader();
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes };
      bytes += value.byteLength;
    }
  } catch {
    return { bytes, error: 'cancelled' };
  }
}

function requestUrl(input: RequestInfo | URL): string {
  if (typeof input === 'string') return input;
  if (input instanceof URL) return input.href;
  return input.url;
}

export class NetworkLedger {
  private counter = 0;
  private readonly prefix = Math.random().toString(36).slice(2, 8);

  constructor(
    private readonly sink: LedgerSink,
    /** The worker that makes the requests (query, kg, ingest, embed). */
    private readonly source: string,
  ) {}

  /** A fetch that records every request it makes under `purpose`. */
  fetch(purpose: LedgerPurpose): Fetch {
    return this.recorder(purpose).fetch;
  }

  /**
   * Options for an LlmClient whose calls are recorded under `purpose`, each with the tokens and cost the client
   * counted. The client reports usage with the request object it handed to fetch, so the usage lands on that
   * request's entry whatever the client's concurrency.
   */
  clientOptions(
    purpose: LedgerPurpose,
    inner?: Fetch,
  ): { fetch: Fetch; onUsage: (usage: CallUsage, request?: RequestInit) => void } {
    const r = this.recorder(purpose, inner);
    return { fetch: r.fetch, onUsage: r.usage };
  }

  private recorder(
    purpose: LedgerPurpose,
    inner: Fetch = (i, init) => globalThis.fetch(i, init),
  ): { fetch: Fetch; usage: (u: CallUsage, request?: RequestInit) => void } {
    /** Successful requests waiting for their usage, in the order they finished (or started, while unfinished). */
    const waiting: Array<{ entry: LedgerEntry; finished: boolean }> = [];
    /** The same slots by the request object fetch was given (what the LLM client reports usage with). */
    const byRequest = new WeakMap<RequestInit, { entry: LedgerEntry; finished: boolean }>();
    const emit = (entry: LedgerEntry) => this.sink({ ...entry });
    const record: Fetch = async (input, init) => {
      const url = new URL(requestUrl(input));
      const started = Date.now();
      const entry: LedgerEntry = {
        id: `${this.source}-${this.prefix}-${++this.counter}`,
        at: new Date(started).toISOString(),
        method: (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase(),
        origin: url.origin,
        host: url.host,
        path: url.pathname,
        purpose,
        source: this.source,
        bytesOut: bodySize(init?.body),
        bytesIn: 0,
        status: 0,
        ms: 0,
      };
      let response: Response;
      try {
        response = await inner(input, init);
      } catch (err) {
        entry.error = init?.signal?.aborted ? 'cancelled' : 'network error';
        entry.ms = Date.now() - started;
        emit(entry);
        throw err;
      }
      entry.status = response.status;
      const slot = { entry, finished: false };
      if (response.ok) {
        waiting.push(slot);
        if (init) byRequest.set(init, slot);
      }
      // The clone is read alongside the caller's reading of the original (a stream is teed, not buffered whole).
      void countBytes(response.type === 'opaqueredirect' ? null : response.clone().body).then(
        ({ bytes, error }) => {
          entry.bytesIn = bytes;
          if (error) entry.error = error;
          entry.ms = Date.now() - started;
          slot.finished = true;
          // Finished ones go to the end: the next usage report belongs to the request that finished last.
          const at = waiting.indexOf(slot);
          if (at >= 0) waiting.push(...waiting.splice(at, 1));
          emit(entry);
        },
      );
      return response;
    };
    const usage = (u: CallUsage, request?: RequestInit) => {
      // Without the request object (a client that does not report it) the latest finished request is the best guess.
      const finished = waiting.filter((w) => w.finished);
      const slot = (request && byRequest.get(request)) ?? finished.at(-1) ?? waiting[0];
      if (!slot) return;
      const at = waiting.indexOf(slot);
      if (at >= 0) waiting.splice(at, 1);
      Object.assign(slot.entry, {
        inputTokens: u.inputTokens,
        outputTokens: u.outputTokens,
        estimated: u.estimated,
        cost: u.cost,
      });
      // Unfinished: the entry is emitted with its usage when its body ends.
      if (slot.finished) emit(slot.entry);
    };
    return { fetch: record, usage };
  }
}

/** The default sink: the ledger database (loaded lazily, so a worker without the ledger pays nothing) and a broadcast. */
function persistAndAnnounce(): LedgerSink {
  const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(LEDGER_CHANNEL);
  let writes: Promise<void> = Promise.resolve();
  return (entry) => {
    // In order, so an entry's update (its usage) never lands before the entry itself.
    writes = writes
      .then(async () => {
        const { ledgerStore } = await import('../../store/ledgerStore.ts');
        await ledgerStore().put(entry);
      })
      .catch(() => undefined)
      .then(() => channel?.postMessage({ kind: 'entry', entry } satisfies LedgerMessage));
  };
}

let shared: NetworkLedger | null = null;

/** This worker's ledger (persisted and announced to the page); `source` names the worker on its entries. */
export function workerLedger(source?: string): NetworkLedger {
  shared ??= new NetworkLedger(
    persistAndAnnounce(),
    source ?? ((globalThis as { name?: string }).name || 'worker'),
  );
  return shared;
}

/**
 * Counts the requests this worker made to the app's own origin (its module scripts, the embedding model's files,
 * WASM) from the worker's resource timing, and announces the running totals on the ledger's channel. They are not
 * ledger entries: they never leave the origin the app was loaded from, and the page shows them apart, with its
 * own (src/ui/ledger). Resource timing has no entry for a fetch the HTTP cache answered without a request in some
 * browsers; the count is of what the browser reports.
 */
export function reportOwnOriginLoads(source: string): void {
  if (typeof PerformanceObserver === 'undefined' || typeof BroadcastChannel === 'undefined') return;
  const origin = (globalThis as { location?: { origin: string } }).location?.origin;
  if (!origin) return;
  const channel = new BroadcastChannel(LEDGER_CHANNEL);
  const id = `${source}-${Math.random().toString(36).slice(2, 8)}`;
  const totals = { requests: 0, bytes: 0 };
  try {
    new PerformanceObserver((list) => {
      let changed = false;
      for (const e of list.getEntries() as PerformanceResourceTiming[]) {
        if (!e.name.startsWith(`${origin}/`)) continue;
        totals.requests++;
        totals.bytes += e.transferSize; // 0 for a file read from the HTTP cache
        changed = true;
      }
      if (changed) channel.postMessage({ kind: 'assets', source: id, ...totals } satisfies LedgerMessage);
    }).observe({ type: 'resource', buffered: true });
  } catch {
    // No resource timing here: the page's own count still shows.
  }
}

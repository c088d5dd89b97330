// The page's handles on the workers: created once, lazily, typed by the worker modules' own API types. Indexing
// goes to the ingest worker, every question and written answer to the query worker, KG builds and the LLM
// endpoint settings to the KG worker.
import { transfer, wrap, type Remote } from 'comlink';
import type { IngestApi } from '../services/ingest/ingest.ts';
import { GRAPH_PORT_MESSAGE } from '../services/ingest/ingestProtocol.ts';
import type { KgApi } from '../services/llm/kgBuild.ts';
import type { QueryApi } from '../services/query/queryService.ts';
import { workerName } from './state/crossTab.svelte.ts';

let ingest: Remote<IngestApi> | null = null;
let query: Remote<QueryApi> | null = null;
let kg: Remote<KgApi> | null = null;
/** The query worker itself, for the one plain message it takes (joinGraphHandOver). */
let queryThread: Worker | null = null;
let joined = false;

export function ingestWorker(): Remote<IngestApi> {
  if (!ingest) {
    ingest = wrap<IngestApi>(
      new Worker(new URL('../../workers/ingest.worker.ts', import.meta.url), {
        type: 'module',
        name: workerName('ingest'),
      }),
    );
    joinGraphHandOver();
  }
  return ingest;
}

export function queryWorker(): Remote<QueryApi> {
  if (!query) {
    queryThread = new Worker(new URL('../../workers/query.worker.ts', import.meta.url), {
      type: 'module',
      name: 'query',
    });
    query = wrap<QueryApi>(queryThread);
    joinGraphHandOver();
  }
  return query;
}

/**
 * Once both exist, a channel from the query worker to the ingest worker: a library opened after a graph refresh
 * takes the graph the ingest worker built instead of building it again (src/services/library/graphHandOver.ts).
 */
function joinGraphHandOver(): void {
  if (joined || !ingest || !queryThread) return;
  joined = true;
  const { port1, port2 } = new MessageChannel();
  void ingest.serveGraph(transfer(port1, [port1]));
  queryThread.postMessage({ type: GRAPH_PORT_MESSAGE, port: port2 }, [port2]);
}

export function kgWorker(): Remote<KgApi> {
  kg ??= wrap<KgApi>(
    new Worker(new URL('../../workers/kg.worker.ts', import.meta.url), {
      type: 'module',
      name: workerName('kg'),
    }),
  );
  return kg;
}

/** The KG changed (a build here finished or stopped): the query worker, if started, reloads its KG index. */
export async function kgChanged(): Promise<void> {
  await query?.invalidate('kg');
}

/**
 * A handle for benchmarks driving the built app (test/bench/ingest-rate-browser.ts); not used by the UI. Typed from
 * the services: `measureEmbedder` is the ingest worker's; `openTimings` (where the time went opening ?bundle=,
 * test/bench/bundle-open-browser.ts), `loadTimings` (the last library load from IndexedDB, first-question
 * bench), `askTimings` (the last answer from the stored themes, bench:drop) and `pagesTimings` (the stored pages' last opening, scale-browser.ts) are the query worker's, null before
 * it has started.
 */
export interface Diagnostics {
  measureEmbedder: IngestApi['measureEmbedder'];
  openTimings(): Promise<ReturnType<QueryApi['openTimings']>>;
  loadTimings(): Promise<ReturnType<QueryApi['loadTimings']>>;
  askTimings(): Promise<ReturnType<QueryApi['askTimings']>>;
  pagesTimings(): Promise<ReturnType<QueryApi['pagesTimings']>>;
}

(globalThis as { conceptragDiagnostics?: Diagnostics }).conceptragDiagnostics = {
  measureEmbedder: (texts) => ingestWorker().measureEmbedder(texts),
  openTimings: async () => (query ? query.openTimings() : null),
  loadTimings: async () => (query ? query.loadTimings() : null),
  askTimings: async () => (query ? query.askTimings() : null),
  pagesTimings: async () => (query ? query.pagesTimings() : null),
};

// The query worker: the question-time service (src/services/query/queryService.ts) over the IndexedDB library, or over a
// bundle opened read-only from the app's own origin. It answers every question mode and streams LLM answers.
import { expose } from 'comlink';
import { LlmClient } from '../src/core/llm/index.ts';
import { openBundleReadOnly, sameOriginBundleUrl } from '../src/services/bundleBytes/bundleFetch.ts';
import { BundleAtUrl } from '../src/services/bundleBytes/bundleAtUrl.ts';
import { cacheStorageParts, KeptBundles } from '../src/services/bundleBytes/keptBundles.ts';
import { openDatabase } from '../src/store/db.ts';
import { DexieAtomicStore } from '../src/store/atomicStore.ts';
import { DexieKgStore } from '../src/store/kgStore.ts';
import { Repo } from '../src/store/repo.ts';
import { embedderInOwnWorker } from '../src/services/embed/embedders.ts';
import { prebuildInWorker } from '../src/services/library/graphPrebuild.ts';
import { HandedGraphs } from '../src/services/library/graphHandOver.ts';
import { GRAPH_PORT_MESSAGE } from '../src/services/ingest/ingestProtocol.ts';
import { openStoredPages } from '../src/services/library/storedPages.ts';
import { openStoredThemes } from '../src/services/library/storedThemes.ts';
import { documentNames } from '../src/services/library/documentNames.ts';
import { reportOwnOriginLoads, workerLedger } from '../src/services/ledger/ledger.ts';
import { QueryService } from '../src/services/query/queryService.ts';

const db = openDatabase();
// The graph the ingest worker hands over after a drop's last refresh, once the page has joined the two workers.
let handed: HandedGraphs | null = null;
self.addEventListener('message', (event: MessageEvent<unknown>) => {
  const data = event.data as { type?: unknown; port?: unknown } | null;
  if (data?.type === GRAPH_PORT_MESSAGE && data.port instanceof MessagePort)
    handed = new HandedGraphs(data.port);
});
// A bundle read by ranges that the Library view kept for offline use is read from that copy when its host cannot be.
const bundles = new BundleAtUrl(fetch, new KeptBundles(cacheStorageParts()));

const service = new QueryService({
  library: new Repo(db),
  kgStore: new DexieKgStore(db),
  atomicStore: new DexieAtomicStore(db),
  // The question model loads on another thread while this one reads the library and builds the engine.
  embedders: embedderInOwnWorker(),
  // Read whole: from the download openPaged made where the host sends whole files only, else from the network.
  openBundle: (url, onProgress, fit) =>
    openBundleReadOnly(url, self.location.origin, bundles.fetch, onProgress, fit),
  // A bundle with pages is read by ranges where the host serves them (any static host that honours Range), else by
  // slices of its one whole download.
  openPaged: (url, onProgress) =>
    bundles.pages(sameOriginBundleUrl(url, self.location.origin).href, onProgress),
  // A large library is answered by ranges over its stored pages (written by the ingest worker), not loaded.
  storedPages: (reuse, mark) => openStoredPages(db, reuse, mark),
  // A question about the whole library is answered from the themes stored with the graph before the library loads.
  storedThemes: () => openStoredThemes(db),
  // An evaluation over those pages names the documents a question ranked as its QA set does (recall@k).
  documentNames: (ids) => documentNames(db, ids),
  // The stored graph's co-occurrence and walk graphs are built in a worker of their own while this one reads.
  prebuildGraph: prebuildInWorker,
  // Unless the ingest worker has just built that graph itself (a refresh's concept table): then it hands it over.
  handedGraph: () => handed?.take(),
  // Every call is recorded in the network ledger, under what it was for (answer, question modes, evaluation).
  llmClient: (settings, purpose = 'answer') =>
    new LlmClient(settings, workerLedger('query').clientOptions(purpose)),
});

// Its loads from the app's own origin (scripts, model files) are counted apart from the network ledger.
reportOwnOriginLoads('query');

expose(service);

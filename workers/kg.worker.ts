// The KG worker: the KG build service (src/services/llm/kgBuild.ts) over the IndexedDB library — the KG and PIKE-RAG's
// atomic questions (alone or in one pass): cost estimate, resumable build under this tab's cross-tab lock, endpoint
// settings and connection test. Questions about the KG are answered by the query worker.
import { expose } from 'comlink';
import { LlmClient } from '../src/core/llm/index.ts';
import { openDatabase } from '../src/store/db.ts';
import { DexieAtomicStore } from '../src/store/atomicStore.ts';
import { DexieKgStore } from '../src/store/kgStore.ts';
import { Repo } from '../src/store/repo.ts';
import { browserCrossTabLock } from '../src/services/library/crossTab.ts';
import { embedderInOwnWorker } from '../src/services/embed/embedders.ts';
import { KgBuildService } from '../src/services/llm/kgBuild.ts';
import { reportOwnOriginLoads, workerLedger } from '../src/services/ledger/ledger.ts';

const db = openDatabase();

const service = new KgBuildService({
  repo: new Repo(db),
  store: new DexieKgStore(db),
  atomicStore: new DexieAtomicStore(db),
  // Entities and atomic questions are embedded in an embedding worker: this one never holds a copy of the model.
  embedders: embedderInOwnWorker(),
  // Every request is recorded in the network ledger: the build's calls, and the connection test's probes.
  llmClient: (settings) => new LlmClient(settings, workerLedger('kg').clientOptions('KG build')),
  connectionFetch: workerLedger('kg').fetch('connection test'),
  lock: browserCrossTabLock('kg', self.name),
});

// Its loads from the app's own origin (scripts, model files) are counted apart from the network ledger.
reportOwnOriginLoads('kg');

expose(service);

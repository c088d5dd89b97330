// The query worker: the question-time service (src/services/query.ts) over the IndexedDB library, or over a
// bundle opened read-only from the app's own origin. It answers every question mode and streams LLM answers.
import { expose } from 'comlink';
import { LlmClient } from '../src/core/llm/index.ts';
import { openBundleReadOnly } from '../src/store/bundleImport.ts';
import { openDatabase } from '../src/store/db.ts';
import { DexieKgStore } from '../src/store/kgStore.ts';
import { Repo } from '../src/store/repo.ts';
import { EmbedderHolder } from '../src/services/embedders.ts';
import { QueryService } from '../src/services/query.ts';

const db = openDatabase();

const service = new QueryService({
  library: new Repo(db),
  kgStore: new DexieKgStore(db),
  embedders: new EmbedderHolder(),
  openBundle: (url) => openBundleReadOnly(url, self.location.origin),
  llmClient: (settings) => new LlmClient(settings),
});

export type QueryApi = typeof service;

expose(service);

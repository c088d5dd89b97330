// The query worker: the question-time service (src/services/query.ts) over the IndexedDB library, or over a
// bundle opened read-only from the app's own origin. It answers every question mode and streams LLM answers.
import { expose } from 'comlink';
import { LlmClient } from '../src/core/llm/index.ts';
import { openBundleReadOnly } from '../src/store/bundleImport.ts';
import { openDatabase } from '../src/store/db.ts';
import { DexieAtomicStore } from '../src/store/atomicStore.ts';
import { DexieKgStore } from '../src/store/kgStore.ts';
import { Repo } from '../src/store/repo.ts';
import { specOf, toEmbedderChoice } from '../src/services/embedderChoice.ts';
import { choiceKey, EmbedderHolder, spawnEmbedWorker } from '../src/services/embedders.ts';
import { createEmbedPool, type EmbedPool } from '../src/services/embedPool.ts';
import { reportOwnOriginLoads, workerLedger } from '../src/services/ledger.ts';
import { QueryService, type QueryDeps } from '../src/services/query.ts';

const db = openDatabase();

/**
 * The question model runs in an embedding worker of its own (a pool of one): it loads on another thread while
 * this one reads the library or the bundle and builds the engine, instead of taking turns with that work. An
 * endpoint embedder stays here (its work happens on the server).
 */
function questionEmbedders(): QueryDeps['embedders'] {
  const here = new EmbedderHolder();
  let key: string | null = null;
  let pool: Promise<EmbedPool> | null = null;
  const disposePool = async (): Promise<void> => {
    const current = pool;
    pool = null;
    key = null;
    await (await current?.catch(() => null))?.dispose();
  };
  return {
    async get(stored) {
      const choice = toEmbedderChoice(stored);
      if (specOf(choice).kind === 'openai') {
        await disposePool();
        return here.get(choice);
      }
      const wanted = `${choiceKey(choice)} backend=${choice.backend ?? 'auto'}`;
      if (pool && key === wanted) return pool;
      await disposePool();
      await here.dispose();
      const name = choiceKey(choice);
      const loading = createEmbedPool({ size: 1, spawn: () => spawnEmbedWorker(choice), name });
      key = wanted;
      pool = loading;
      loading.catch(() => {
        // Not kept: the next question tries again (the model may not have been cached when offline).
        if (pool === loading) [pool, key] = [null, null];
      });
      return loading.catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(`embedder: could not load "${name}": ${message}`, { cause: error });
      });
    },
    async dispose() {
      await disposePool();
      await here.dispose();
    },
  };
}

const service = new QueryService({
  library: new Repo(db),
  kgStore: new DexieKgStore(db),
  atomicStore: new DexieAtomicStore(db),
  embedders: questionEmbedders(),
  openBundle: (url) => openBundleReadOnly(url, self.location.origin),
  // Every call is recorded in the network ledger, under what it was for (answer, question modes, evaluation).
  llmClient: (settings, purpose = 'answer') =>
    new LlmClient(settings, workerLedger('query').clientOptions(purpose)),
});

export type QueryApi = typeof service;

// Its loads from the app's own origin (scripts, model files) are counted apart from the network ledger.
reportOwnOriginLoads('query');

expose(service);

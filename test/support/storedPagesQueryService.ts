// A query worker's service over a library in the store that is answered from its stored pages (reopened as the
// worker reopens them), with its KG store and, when given, its atomic-question store; no embedder or endpoint (a
// test that reaches one fails naming it). `loadCorpus` is the library's own load, which a test may count: a library
// answered from its pages is never loaded. `extra`: further dependencies (documentNames, …).
import { openStoredPages } from '../../src/services/library/storedPages.ts';
import { QueryService, type QueryDeps } from '../../src/services/query/queryService.ts';
import type { DexieAtomicStore } from '../../src/store/atomicStore.ts';
import { DexieKgStore } from '../../src/store/kgStore.ts';
import type { Repo } from '../../src/store/repo.ts';

export function storedPagesQueryService(
  repo: Repo,
  options: {
    kgStore?: DexieKgStore;
    atomicStore?: DexieAtomicStore;
    loadCorpus?: () => ReturnType<Repo['loadCorpus']>;
    extra?: Partial<QueryDeps>;
  } = {},
): QueryService {
  return new QueryService({
    library: {
      loadCorpus: options.loadCorpus ?? (() => repo.loadCorpus()),
      getSetting: (key) => repo.getSetting(key),
      getMeta: () => repo.getMeta(),
    },
    kgStore: options.kgStore ?? new DexieKgStore(repo.db),
    ...(options.atomicStore ? { atomicStore: options.atomicStore } : {}),
    embedders: {
      get: () => Promise.reject(new Error('no embedder in this test')),
      dispose: async () => undefined,
    } as never,
    openBundle: () => Promise.reject(new Error('no bundle in this test')),
    llmClient: () => {
      throw new Error('no LLM in this test');
    },
    storedPages: (reuse) => openStoredPages(repo.db, reuse),
    ...options.extra,
  });
}

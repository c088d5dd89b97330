// A query worker's service that only ever answers from a bundle opened read-only (Open bundle read-only…): its own
// library, KG store, embedders and endpoint are never read, and a test that reached one fails naming it.
import { QueryService } from '../../src/services/query/queryService.ts';

export function bundleOnlyQueryService(): QueryService {
  const refuse = (what: string) => () => Promise.reject(new Error(`${what} is never read in this test`));
  return new QueryService({
    library: { loadCorpus: refuse('the library'), getSetting: () => Promise.resolve(undefined) },
    kgStore: { entities: refuse('the KG store'), relations: refuse('the KG store') },
    embedders: { get: refuse('an embedder'), dispose: async () => undefined } as never,
    openBundle: refuse('a whole bundle'),
    llmClient: () => {
      throw new Error('no LLM in this test');
    },
  });
}

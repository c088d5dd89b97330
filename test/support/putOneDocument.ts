// One prepared document and its sentence vectors stored through Repo.putPreparedDocuments, as the ingest pipeline
// stores a batch: the store tests and the bundle tests build their libraries with it. The app never stores one alone.
import type { IndexParams, PreparedDocument } from '../../src/core/types.ts';
import { DEFAULT_INDEX_PARAMS } from '../../src/core/types.ts';
import type { PutResult } from '../../src/store/documentsRepo.ts';
import type { Repo } from '../../src/store/repo.ts';

/** `sentenceVectors`: sentences × dimension, row-major. */
export async function putPreparedDocument(
  repo: Repo,
  prepared: PreparedDocument,
  sentenceVectors: Float32Array,
  embedderId: string,
  params: IndexParams = DEFAULT_INDEX_PARAMS,
): Promise<PutResult> {
  const [result] = await repo.putPreparedDocuments(
    [{ prepared, vectors: sentenceVectors }],
    embedderId,
    params,
  );
  return result;
}

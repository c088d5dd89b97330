// A file stored as the ingest pipeline stores it, lexical layer only (parsed and chunked by prepareFile, put with
// the index's parameters and no vectors): the set-up of the benches that fill a fake-indexeddb library from a
// scale folder before they time what comes after (pages-write.ts, pages-from-store.ts, words-while-awaiting.ts).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { prepareFile } from '../../../src/core/prepare.ts';
import { DEFAULT_INDEX_PARAMS } from '../../../src/core/types.ts';
import type { Repo } from '../../../src/store/repo.ts';

/** Stores one file's documents; returns the file's bytes and the chunks it added. */
export async function storeFile(repo: Repo, path: string): Promise<{ bytes: number; chunks: number }> {
  const data = new Uint8Array(readFileSync(path));
  const { documents } = await prepareFile(basename(path), data, {
    maxChunkTokens: DEFAULT_INDEX_PARAMS.maxChunkTokens,
  });
  if (documents.length)
    await repo.putPreparedDocuments(
      documents.map((prepared) => ({ prepared })),
      null,
      DEFAULT_INDEX_PARAMS,
    );
  let chunks = 0;
  for (const d of documents) chunks += d.chunks.length;
  return { bytes: data.length, chunks };
}

// Expected index counts computed in Node by the same core code the worker runs (prepareFile), so the browser's
// IndexedDB counts are checked against an independent run over the same files.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { prepareFile } from '../../../src/core/prepare.ts';
import { DEFAULT_INDEX_PARAMS } from '../../../src/core/types.ts';

export interface ExpectedCounts {
  documents: number;
  sections: number;
  chunks: number;
  sentences: number;
  vectors: number;
}

export async function expectedCounts(paths: string[]): Promise<ExpectedCounts> {
  const seen = new Set<string>();
  const out: ExpectedCounts = { documents: 0, sections: 0, chunks: 0, sentences: 0, vectors: 0 };
  for (const path of paths) {
    const bytes = new Uint8Array(await readFile(path));
    const { documents } = await prepareFile(basename(path), bytes, {
      maxChunkTokens: DEFAULT_INDEX_PARAMS.maxChunkTokens,
    });
    for (const d of documents) {
      // The store keeps the same content once (ids derive from the content hash).
      if (seen.has(d.doc.id)) continue;
      seen.add(d.doc.id);
      out.documents += 1;
      out.sections += d.sections.length;
      out.chunks += d.chunks.length;
      out.sentences += d.sentences.length;
      out.vectors += d.sentences.length;
    }
  }
  return out;
}

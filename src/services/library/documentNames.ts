// The names a QA set gives a library's documents (their source's id, or their file name without its extension), read
// from IndexedDB for the few documents a question ranked: an evaluation over a large library's stored pages scores
// recall@k with them (src/services/questions/evaluate.ts), without loading the library.
import type { ConceptDb } from '../../store/db.ts';
import { documentExternalId } from '../questions/evaluate.ts';

/** Each stored document's QA-set name by id; an id no longer stored is left out. */
export async function documentNames(db: ConceptDb, docIds: readonly string[]): Promise<Map<string, string>> {
  const docs = await db.documents.bulkGet([...docIds]);
  const names = new Map<string, string>();
  for (const doc of docs) if (doc) names.set(doc.id, documentExternalId(doc));
  return names;
}

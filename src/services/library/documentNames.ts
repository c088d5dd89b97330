// The names a QA set gives a library's documents (their source's id, or their file name without its extension), read
// from IndexedDB for the few documents a question ranked: an evaluation over a large library's stored pages scores
// recall@k with them (src/services/query/evaluate.ts), without loading the library; a loaded library names them
// from memory.
import type { ConceptDb } from '../../store/db.ts';
import type { DocumentRecord } from '../../core/types.ts';
import type { QuestionLibrary } from './questionLibrary.ts';

/** Each stored document's QA-set name by id; an id no longer stored is left out. */
export async function documentNames(db: ConceptDb, docIds: readonly string[]): Promise<Map<string, string>> {
  const docs = await db.documents.bulkGet([...docIds]);
  const names = new Map<string, string>();
  for (const doc of docs) if (doc) names.set(doc.id, documentExternalId(doc));
  return names;
}

function fileStem(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

/**
 * The names a QA set gives a loaded library's documents: the source's own id (a .jsonl line's "id"), else the file
 * name without its extension, as `cli bench` names the documents of a folder corpus.
 */
export function libraryDocumentNames(
  library: QuestionLibrary,
): (docIds: readonly string[]) => Promise<Map<string, string>> {
  return (docIds) =>
    Promise.resolve(
      new Map(
        docIds.map((id) => {
          const doc = library.documents.get(id);
          return [id, doc ? documentExternalId(doc) : id];
        }),
      ),
    );
}

/** A document's name in a QA set: its source's own id, else its file name without the extension. */
export function documentExternalId(doc: Pick<DocumentRecord, 'externalId' | 'sourceName'>): string {
  return doc.externalId ?? fileStem(doc.sourceName.split('#')[0]);
}

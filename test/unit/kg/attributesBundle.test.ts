// Entity attributes through a real bundle: export from one IndexedDB library and import into an empty one (the
// attributes and their chunks come back), and import into a library that has another document stating another
// attribute of the same entity (the merge keeps both, each with its own chunk); removing that document then takes
// exactly its attribute.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { validateExtraction } from '../../../src/core/kg/schema.ts';
import { exportLibraryBlob } from '../../../src/store/bundleExport.ts';
import { importBundle } from '../../../src/store/bundleImport.ts';
import { openDatabase, type ConceptDb } from '../../../src/store/db.ts';
import { DexieKgStore } from '../../../src/store/kgStore.ts';
import { Repo } from '../../../src/store/repo.ts';
import { DOCS, EMBEDDER, prepared } from '../bundle/fixtures.ts';
import { putPreparedDocument } from '../../support/putOneDocument.ts';

let n = 0;
const freshDb = (): ConceptDb =>
  openDatabase(`kg-attr-bundle-${n++}`, { indexedDB: new IDBFactory(), IDBKeyRange });

async function libraryWith(
  doc: (typeof DOCS)[number],
  attribute: { key: string; value: string },
): Promise<ConceptDb> {
  const db = freshDb();
  const p = prepared(doc);
  await putPreparedDocument(
    new Repo(db),
    { doc: p.doc, sections: p.sections, chunks: p.chunks, sentences: p.sentences },
    p.vectors,
    EMBEDDER.id,
  );
  const v = validateExtraction({
    entities: [{ name: 'Lothair II', type: 'person', description: 'A king.', attributes: [attribute] }],
  });
  if (!v.ok) throw new Error(v.errors.join('; '));
  await new DexieKgStore(db).commit(p.chunks[0].id, {
    status: 'done',
    extraction: v.value,
    attempts: 1,
    inputTokens: 0,
    outputTokens: 0,
    cost: 0,
  });
  return db;
}

const attributesOf = async (db: ConceptDb): Promise<string[]> =>
  ((await new DexieKgStore(db).entities())[0]?.attributes ?? []).map(
    (a) => `${a.key}=${a.value}@${a.chunkIds.join(',')}`,
  );

describe('KG attributes in bundles', () => {
  it('come back from an export into an empty library', async () => {
    const source = await libraryWith(DOCS[0], { key: 'birth date', value: '835' });
    const bytes = new Uint8Array(
      await (await exportLibraryBlob(source, { appVersion: '0.1.0' })).arrayBuffer(),
    );
    const target = freshDb();
    await importBundle(target, bytes);
    expect(await attributesOf(target)).toEqual([`birth date=835@${DOCS[0].id}#0000#0000`]);
  });

  it('merge with the same entity of another library, and leave with their document', async () => {
    const source = await libraryWith(DOCS[0], { key: 'birth date', value: '835' });
    const target = await libraryWith(DOCS[1], { key: 'death date', value: '8 August 869' });
    const bytes = new Uint8Array(
      await (await exportLibraryBlob(source, { appVersion: '0.1.0' })).arrayBuffer(),
    );
    await importBundle(target, bytes);
    expect((await attributesOf(target)).sort()).toEqual([
      `birth date=835@${DOCS[0].id}#0000#0000`,
      `death date=0869-08-08@${DOCS[1].id}#0000#0000`,
    ]);
    await new Repo(target).removeDocument(DOCS[1].id);
    expect(await attributesOf(target)).toEqual([`birth date=835@${DOCS[0].id}#0000#0000`]);
  });
});

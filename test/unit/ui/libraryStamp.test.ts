import { describe, expect, it } from 'vitest';
import { libraryStamp } from '../../../src/ui/state/libraryStamp.ts';

const counts = { documents: 3, chunks: 9, sentences: 40, vectors: 40, embeddedDocuments: 3 };
const meta = { concepts: 120, edges: 800, layers: { lexical: true, semantic: true }, embedderId: 'use-lite' };

describe('libraryStamp (when the Ask view reloads its library)', () => {
  it('is the same for the same stored library, read twice', () => {
    expect(libraryStamp({ ...counts }, { ...meta }, 1700)).toBe(libraryStamp(counts, meta, 1700));
  });

  it('changes with a document added or removed', () => {
    const before = libraryStamp(counts, meta, 1700);
    expect(libraryStamp({ ...counts, documents: 4, chunks: 10, sentences: 44 }, meta, 1800)).not.toBe(before);
    expect(libraryStamp({ ...counts, documents: 2, chunks: 6, sentences: 30 }, meta, 1700)).not.toBe(before);
  });

  it('stays the same while the embedder stores vectors, and changes when every document has them', () => {
    // Four documents stored, their vectors arriving batch by batch: questions read the same lexical library.
    const stored = { documents: 4, chunks: 12, sentences: 50, vectors: 0, embeddedDocuments: 0 };
    const lexical = { ...meta, layers: { lexical: true, semantic: false } };
    const before = libraryStamp(stored, lexical, 1800);
    expect(libraryStamp({ ...stored, vectors: 20, embeddedDocuments: 1 }, lexical, 1800)).toBe(before);
    expect(libraryStamp({ ...stored, vectors: 44, embeddedDocuments: 3 }, lexical, 1800)).toBe(before);
    // The last batch: the engine now takes the vectors.
    expect(libraryStamp({ ...stored, vectors: 50, embeddedDocuments: 4 }, lexical, 1800)).not.toBe(before);
    // A store that does not count embedded documents: by rows.
    const rows = { documents: 4, chunks: 12, sentences: 50, vectors: 10 };
    expect(libraryStamp({ ...rows, vectors: 30 }, lexical, 1800)).toBe(libraryStamp(rows, lexical, 1800));
    expect(libraryStamp({ ...rows, vectors: 50 }, lexical, 1800)).not.toBe(libraryStamp(rows, lexical, 1800));
  });

  it('changes when the concept graph is written again with other counts or gains its semantic layer', () => {
    const before = libraryStamp(counts, meta, 1700);
    expect(libraryStamp(counts, { ...meta, edges: 801 }, 1700)).not.toBe(before);
    expect(libraryStamp(counts, { ...meta, layers: { lexical: true, semantic: false } }, 1700)).not.toBe(
      before,
    );
    expect(libraryStamp(counts, { ...meta, embedderId: 'minilm' }, 1700)).not.toBe(before);
  });

  it('changes when new pages are stored, with no count changed (a large library is answered from them)', () => {
    const lagging = libraryStamp(counts, meta, 1700, 'stamp-a@1000');
    expect(lagging).not.toBe(libraryStamp(counts, meta, 1700, null));
    expect(libraryStamp(counts, meta, 1700, 'stamp-b@2000')).not.toBe(lagging);
    expect(libraryStamp(counts, meta, 1700, 'stamp-a@1000')).toBe(lagging);
  });

  it('changes when a drop stops projecting the library past its chunks (cancelled: answered in memory again)', () => {
    const projected = libraryStamp(counts, { ...meta, projectedChunks: 20_000 }, 1700, 'stamp-a@1000');
    expect(libraryStamp(counts, meta, 1700, 'stamp-a@1000')).not.toBe(projected);
    // Another projection of the same drop changes nothing the query worker reads.
    expect(libraryStamp(counts, { ...meta, projectedChunks: 21_000 }, 1700, 'stamp-a@1000')).toBe(projected);
  });

  it('tells apart a document replaced by another of the same size (its time added)', () => {
    expect(libraryStamp(counts, meta, 1701)).not.toBe(libraryStamp(counts, meta, 1700));
  });

  it('reads an empty store (no meta, no document) as a stamp of its own', () => {
    const empty = { documents: 0, chunks: 0, sentences: 0, vectors: 0, embeddedDocuments: 0 };
    expect(libraryStamp(empty, undefined, undefined)).not.toBe(libraryStamp(counts, meta, 1700));
  });
});

// A library that gained documents, opened from the engine it had (RetrievalEngine.extendText: only the added
// chunks analysed, their postings merged into the BM25 and heading indexes): every posting, length and document
// frequency is the fresh build's, and so is every answer, in every lexical mode, with headings and without.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshotFromFiles } from '../../../src/cli/index.ts';
import { conceptTableGraph } from '../../../src/core/graph/index.ts';
import { Bm25Index } from '../../../src/core/retrieval/bm25.ts';
import { RetrievalEngine, type RetrievalInput } from '../../../src/core/retrieval/engine.ts';
import { createTermAnalyzer } from '../../../src/core/text/analyzer.ts';

// 300 MuSiQue passages, vendored so the test runs without ../shared.
const MUSIQUE_300 = join(import.meta.dirname, '../../fixtures/musique-300/corpus.jsonl');
const analyzer = createTermAnalyzer();
const QUESTIONS = [
  'Who was the father of Lothair II?',
  'Which river flows through the capital?',
  'When was the university founded?',
  'What language is spoken in the city where the band was formed?',
];
const MODES = ['ppr', 'bm25', 'rrf:ppr+bm25'];

function answers(engine: RetrievalEngine): unknown {
  return QUESTIONS.flatMap((text) =>
    MODES.map((mode) =>
      engine.search({ text }, mode, 1500).map((r) => [r.chunkId, r.score, r.bestSentences]),
    ),
  );
}

/** Every term's postings and IDF, and every chunk's length, of a BM25 index: what its scores are made of. */
function contents(index: Bm25Index): unknown {
  const terms = [...index.terms()].sort();
  return {
    chunks: index.chunkCount,
    lengths: Array.from({ length: index.chunkCount }, (_, k) => index.lengthOf(k)),
    terms: terms.map((t) => {
      const p = index.postingsOf(t)!;
      return [t, [...p.chunks], [...p.freqs], index.idf(t)];
    }),
  };
}

let parsed: Promise<RetrievalInput> | undefined;

/** The fixture's chunks and sentences (parsed once for the file). */
function corpus(): Promise<RetrievalInput> {
  parsed ??= snapshotFromFiles([MUSIQUE_300], { embedder: null, maxChunkTokens: 1200 }).then(
    ({ snapshot, errors }) => {
      expect(errors).toEqual([]);
      return { chunks: snapshot.chunks, sentences: snapshot.sentences };
    },
  );
  return parsed;
}

/** The input without every third document: the library before a drop (added documents fall among the held ones). */
function heldPart(input: RetrievalInput): RetrievalInput {
  const docs = [...new Set(input.chunks.map((c) => c.docId))].sort();
  const dropped = new Set(docs.filter((_, i) => i % 3 === 1));
  const chunks = input.chunks.filter((c) => !dropped.has(c.docId));
  const kept = new Set(chunks.map((c) => c.id));
  return { chunks, sentences: input.sentences.filter((s) => kept.has(s.chunkId)) };
}

/** The engine opened from the stored concept table of `full`, its text extended from `previous`'s. */
function extended(previous: RetrievalEngine, full: RetrievalInput, fresh: RetrievalEngine) {
  const text = RetrievalEngine.extendText(previous, full, analyzer);
  expect(text).toBeDefined();
  const table = conceptTableGraph(fresh.exportGraph());
  if (!table) throw new Error('no concept table for the fresh build');
  const engine = RetrievalEngine.fromTable(full, analyzer, table, {}, text);
  expect(engine).toBeDefined();
  // The merged index is the one answering (not a second analysis of the whole text).
  expect(engine!.sharesTextIndexWith(text!)).toBe(true);
  return engine!;
}

describe('a library extended by the documents added since (RetrievalEngine.extendText)', () => {
  it('has the fresh build’s postings, lengths and IDF, and gives its answers in every lexical mode', async () => {
    const full = await corpus();
    const held = heldPart(full);
    expect(held.chunks.length).toBeGreaterThan(100);
    expect(full.chunks.length - held.chunks.length).toBeGreaterThan(50);
    const fresh = RetrievalEngine.build(full, analyzer);
    const engine = extended(RetrievalEngine.build(held, analyzer), full, fresh);
    const mine = engine.lexicalParts();
    const theirs = fresh.lexicalParts();
    expect(contents(mine.bm25)).toEqual(contents(theirs.bm25));
    expect(mine.headings && contents(mine.headings.headings)).toEqual(
      theirs.headings && contents(theirs.headings.headings),
    );
    expect(answers(engine)).toEqual(answers(fresh));
  });

  it('adds a heading index when the added documents bring the first heading paths', async () => {
    const full = await corpus();
    const held = heldPart(full);
    const heldIds = new Set(held.chunks.map((c) => c.id));
    // The held chunks without a path (a library of plain passages), the added ones with theirs.
    const strip = (input: RetrievalInput): RetrievalInput => ({
      ...input,
      chunks: input.chunks.map((c) =>
        heldIds.has(c.id) ? { ...c, path: [] } : { ...c, path: ['Added', c.docId] },
      ),
    });
    const previous = RetrievalEngine.build(strip(held), analyzer);
    expect(previous.lexicalParts().headings).toBeUndefined();
    const fresh = RetrievalEngine.build(strip(full), analyzer);
    const engine = extended(previous, strip(full), fresh);
    expect(contents(engine.lexicalParts().headings!.headings)).toEqual(
      contents(fresh.lexicalParts().headings!.headings),
    );
    expect(answers(engine)).toEqual(answers(fresh));
  });

  it('does not apply when a chunk it held is gone or changed', async () => {
    const full = await corpus();
    const previous = RetrievalEngine.build(full, analyzer);
    const fewer = heldPart(full);
    expect(RetrievalEngine.extendText(previous, fewer, analyzer)).toBeUndefined();
    const changed = {
      ...full,
      chunks: full.chunks.map((c, i) => (i === 7 ? { ...c, text: `${c.text} more` } : c)),
    };
    expect(RetrievalEngine.extendText(previous, changed, analyzer)).toBeUndefined();
  });
});

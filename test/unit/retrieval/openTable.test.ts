// Opening a lexical library around its stored concept table (RetrievalEngine.fromTable: what a lexical bundle
// carries, so an opener does not choose the keyphrases again): through a real bundle's bytes, every answer is the
// one the engine built from scratch gives, and a table that does not fit the chunks, the options or its own
// counts is not used (the engine is built instead) or, from a bundle, refused with its reason.
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { snapshotFromFiles } from '../../../src/cli/index.ts';
import {
  bundleBytes,
  BundleError,
  readBundle,
  readIndexBundle,
  writeSnapshotBundle,
} from '../../../src/core/bundle/index.ts';
import {
  conceptTableGraph,
  conceptTableGraphProblem,
  isConceptTableGraph,
  prebuildTableGraph,
  type ConceptTableGraph,
  type SerializedGraph,
} from '../../../src/core/graph/index.ts';
import { RetrievalEngine, type RetrievalInput } from '../../../src/core/retrieval/engine.ts';
import { resolveParams } from '../../../src/core/retrieval/params.ts';
import { createTermAnalyzer } from '../../../src/core/text/analyzer.ts';
import { snapshotToCorpus } from '../../../src/store/bundleImport.ts';
import { buildEngine } from '../../../src/services/library/engine.ts';

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

function answer(engine: RetrievalEngine, text: string, mode: string): unknown {
  return engine.search({ text }, mode, 1500).map((r) => [r.chunkId, r.score, r.bestSentences]);
}

async function lexicalSnapshot() {
  const { snapshot, errors } = await snapshotFromFiles([MUSIQUE_300], {
    embedder: null,
    maxChunkTokens: 1200,
  });
  expect(errors).toEqual([]);
  return snapshot;
}

type Snapshot = Awaited<ReturnType<typeof lexicalSnapshot>>;

function inputOf(snapshot: Snapshot): RetrievalInput {
  return { chunks: snapshot.chunks, sentences: snapshot.sentences };
}

let made: Promise<{ snapshot: Snapshot; fresh: RetrievalEngine }> | undefined;

/**
 * The passages' lexical snapshot (`cli index`'s parse, in a thread of its own) and the engine built from it from
 * scratch: what every test compares the table's engine with or takes the table from, made once for the file (each
 * test made both again: four parse threads and four builds of the same input). Neither is what a test checks.
 */
function reference(): Promise<{ snapshot: Snapshot; fresh: RetrievalEngine }> {
  made ??= lexicalSnapshot().then((snapshot) => ({
    snapshot,
    fresh: RetrievalEngine.build(inputOf(snapshot), analyzer),
  }));
  return made;
}

describe('a lexical library opened from its concept table', () => {
  it('is carried by a bundle instead of the edges, and answers as the fresh build in every lexical mode', async () => {
    const { snapshot, fresh } = await reference();
    const full = fresh.exportGraph();
    const bytes = await bundleBytes(
      writeSnapshotBundle(
        { ...snapshot, graph: full as unknown as Record<string, unknown> },
        { appVersion: '0' },
      ),
    );
    const back = await readIndexBundle(bytes);
    expect(isConceptTableGraph(back.graph)).toBe(true);
    const stored = back.graph as unknown as ConceptTableGraph;
    expect(stored.concepts).toBe(full.terms.length);
    expect(stored.edges).toBe(full.edgeTargets.length / 2);
    // The graph part holds the table, not the edges: smaller than the edge targets alone.
    const part = (await readBundle(bytes)).manifest.parts.find((p) => p.name === 'graph.bin')!;
    expect(part.rawLength).toBeLessThan(full.edgeTargets.byteLength);

    const opened = RetrievalEngine.fromTable(inputOf(back), analyzer, stored);
    expect(opened).toBeDefined();
    expect(opened!.stats()).toEqual(fresh.stats());
    for (const q of QUESTIONS) {
      for (const mode of MODES)
        expect(answer(opened!, q, mode), `${mode}: ${q}`).toEqual(answer(fresh, q, mode));
    }
    // The services' opener (the CLI's ask, the query worker) takes the same path. Its corpus has the titles in
    // the heading paths, so its table is its own (as `cli index` makes it): with it, it answers as without.
    const withoutTable = buildEngine(snapshotToCorpus(snapshot));
    const graph = withoutTable.exportGraph() as unknown as Record<string, unknown>;
    const own = await readIndexBundle(
      await bundleBytes(writeSnapshotBundle({ ...snapshot, graph }, { appVersion: '0' })),
    );
    const fromTable = vi.spyOn(RetrievalEngine, 'fromTable');
    const viaService = buildEngine(snapshotToCorpus(own));
    expect(fromTable).toHaveReturnedWith(viaService);
    fromTable.mockRestore();
    for (const q of QUESTIONS) {
      expect(answer(viaService, q, 'ppr'), q).toEqual(answer(withoutTable, q, 'ppr'));
    }
  });

  it('answers the same from the graph another worker made of the table (prebuildTableGraph)', async () => {
    const { snapshot, fresh } = await reference();
    const input = inputOf(snapshot);
    const table = conceptTableGraph(fresh.exportGraph())!;
    // As the graph worker sends it: structured-cloned (the browser transfers the buffers; a clone is the same).
    const prebuilt = structuredClone(prebuildTableGraph(table, resolveParams()))!;
    expect(prebuilt).toBeDefined();
    const text = RetrievalEngine.prepareText(input, analyzer);
    const opened = RetrievalEngine.fromTable(input, analyzer, table, {}, text, prebuilt)!;
    expect(opened.graph).toBe(prebuilt);
    expect(opened.stats()).toEqual(fresh.stats());
    for (const q of QUESTIONS) {
      for (const mode of MODES)
        expect(answer(opened, q, mode), `${mode}: ${q}`).toEqual(answer(fresh, q, mode));
    }
    // Made for other chunks or with other options, it is not taken: the graph is made from the table here.
    const firstChunk = input.chunks[0].id;
    const fewer = {
      chunks: input.chunks.slice(1),
      sentences: input.sentences.filter((s) => s.chunkId !== firstChunk),
    };
    const fewerTable = conceptTableGraph(RetrievalEngine.build(fewer, analyzer).exportGraph())!;
    expect(RetrievalEngine.fromTable(fewer, analyzer, fewerTable, {}, undefined, prebuilt)!.graph).not.toBe(
      prebuilt,
    );
    const otherDamping = { ...prebuilt, options: { ...prebuilt.options, globalDamping: 0.5 } };
    expect(RetrievalEngine.fromTable(input, analyzer, table, {}, text, otherDamping)!.graph).not.toBe(
      otherDamping,
    );
    // A table whose edges do not come out as counted gives no graph to send.
    expect(prebuildTableGraph({ ...table, edges: table.edges + 1 }, resolveParams())).toBeUndefined();
  });

  it('is not used for other chunks, other concept options or a table whose edges do not come out as counted', async () => {
    const { snapshot, fresh } = await reference();
    const input = inputOf(snapshot);
    const table = conceptTableGraph(fresh.exportGraph())!;
    const firstChunk = input.chunks[0].id;
    const fewer = {
      chunks: input.chunks.slice(1),
      sentences: input.sentences.filter((s) => s.chunkId !== firstChunk),
    };
    expect(RetrievalEngine.fromTable(fewer, analyzer, table)).toBeUndefined();
    expect(RetrievalEngine.fromTable(input, analyzer, table, { keyphraseScale: 3 })).toBeUndefined();
    expect(RetrievalEngine.fromTable(input, analyzer, { ...table, edges: table.edges + 1 })).toBeUndefined();
    // With vectors the compact graph applies, not a lexical table.
    const vectors = { ...input, sentenceVectors: new Float32Array(input.sentences.length), dimension: 1 };
    expect(RetrievalEngine.fromTable(vectors, analyzer, table)).toBeUndefined();
  });

  it('names what is wrong with a tampered table, and a bundle carrying one is refused', async () => {
    const { snapshot, fresh } = await reference();
    const full: SerializedGraph = fresh.exportGraph();
    const table = conceptTableGraph(full)!;
    expect(conceptTableGraphProblem(table)).toBeNull();
    const unsorted = { ...table, table: { ...table.table, terms: [...table.table.terms].reverse() } };
    expect(conceptTableGraphProblem(unsorted)).toMatch(/terms not sorted/);
    const links = table.table.chunkConcepts.slice();
    links[0] = table.concepts + 5;
    const outside = { ...table, table: { ...table.table, chunkConcepts: links } };
    expect(conceptTableGraphProblem(outside)).toMatch(/names no concept/);
    const bytes = await bundleBytes(
      writeSnapshotBundle(
        { ...snapshot, graph: outside as unknown as Record<string, unknown> },
        { appVersion: '0', graph: 'full' },
      ),
    );
    const refused = await readIndexBundle(bytes).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BundleError);
    expect((refused as BundleError).message).toMatch(/concept table is unusable.*names no concept/);
    expect((refused as BundleError).part).toBe('graph.bin');
  });
});

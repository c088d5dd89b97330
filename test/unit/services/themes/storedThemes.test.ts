// The themes a graph refresh stores with the graph (issue 48's "within 2 s of searchable"): after a drop of the app's
// samples through the ingest pipeline, the stored themes are the ones the query worker computes from the library in
// memory; "What is this about?" is answered from them before the library is loaded (no corpus read), with the same
// themes and passages as the answer from memory afterwards; a question with a content word still loads the library;
// themes of another graph than the index record counts are not read.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { prepareFile } from '../../../../src/core/prepare.ts';
import { DEFAULT_MODE } from '../../../../src/core/retrieval/index.ts';
import { IncrementalGraphRefresh } from '../../../../src/services/ingest/graphBuild.ts';
import { IngestPipeline } from '../../../../src/services/ingest/ingestPipeline.ts';
import { SENTENCE_VECTORS_SETTING } from '../../../../src/services/ingest/ingestProtocol.ts';
import { loadEngine } from '../../../../src/services/library/engine.ts';
import { openLibrary } from '../../../../src/services/library/questionLibrary.ts';
import { openStoredThemes } from '../../../../src/services/library/storedThemes.ts';
import { QueryService } from '../../../../src/services/query/queryService.ts';
import { answerPassages } from '../../../../src/services/themes/answerPassages.ts';
import { themesOfLibrary } from '../../../../src/services/themes/themesOf.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';

const SAMPLES = join(import.meta.dirname, '../../../../public/samples');

/** The samples dropped into a fresh database, lexical only, through the pipeline and its graph refresh. */
async function droppedSamples() {
  const db = openDatabase(`stored-themes-${Math.random()}`, { indexedDB: new IDBFactory(), IDBKeyRange });
  const repo = new Repo(db);
  await repo.setSetting(SENTENCE_VECTORS_SETTING, false);
  const refresh = new IncrementalGraphRefresh();
  const pipeline = new IngestPipeline({
    repo,
    prepare: (name, bytes, options) => prepareFile(name, bytes, options),
    embedder: () => Promise.reject(new Error('lexical only: no embedder')),
    rebuildGraph: refresh.refresh,
    emit: () => undefined,
  });
  const names = (await readdir(SAMPLES)).filter((f) => /\.(md|txt)$/.test(f));
  for (const name of names) {
    const file = await readFile(join(SAMPLES, name));
    const bytes = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
    await pipeline.enqueue([{ name, bytes }]);
  }
  await pipeline.ensureRunning();
  return { db, repo };
}

/** The corpus-wide question every test asks, as the Ask view sends it. */
const ABOUT = { question: 'What is this about?', mode: DEFAULT_MODE, budget: 12000 };

/** Counts the document records read from now on (Dexie's reading hook): the stored themes' answer reads none. */
function countDocumentReads(db: ReturnType<typeof openDatabase>): { documents: number } {
  const reads = { documents: 0 };
  db.documents.hook('reading', (document) => {
    reads.documents += 1;
    return document;
  });
  return reads;
}

/** A query service over the store, counting the whole-library reads (a library loaded into memory). */
function queryOver(db: ReturnType<typeof openDatabase>, repo: Repo) {
  const counts = { corpusLoads: 0 };
  const query = new QueryService({
    library: {
      loadCorpus: (...args) => {
        counts.corpusLoads += 1;
        return repo.loadCorpus(...args);
      },
      getMeta: () => repo.getMeta(),
      getSetting: async () => undefined,
    },
    kgStore: { entities: async () => [], relations: async () => [] },
    embedders: { get: () => Promise.reject(new Error('no embedder')), dispose: async () => undefined },
    openBundle: () => Promise.reject(new Error('no bundle in these tests')),
    llmClient: () => {
      throw new Error('no LLM in these tests');
    },
    storedThemes: () => openStoredThemes(db),
  });
  return { query, counts };
}

describe('themes stored with the graph', () => {
  it('are the themes the library in memory has, and answer before the library loads', async () => {
    const { db, repo } = await droppedSamples();
    const stored = (await repo.graph.getThemesBuilt())?.themes;
    const inMemory = themesOfLibrary(openLibrary(await repo.loadCorpus(), loadEngine));
    expect(inMemory.themes.length).toBeGreaterThanOrEqual(3);
    expect(stored).toEqual(inMemory);

    const { query, counts } = queryOver(db, repo);
    const early = await query.ask(ABOUT);
    expect(counts.corpusLoads).toBe(0);
    expect(early.themes?.themes.map((t) => t.label)).toEqual(
      inMemory.themes.slice(0, early.themes!.themes.length).map((t) => t.label),
    );
    expect(early.evidence.map((e) => e.chunkId)).toEqual(
      early.themes!.themes.map((t, i) => inMemory.themes[i].passages[0]),
    );
    // Each theme's sentence is in its passage, which names its document.
    early.themes!.themes.forEach((t) => {
      expect(early.evidence[t.passage].text).toContain(t.sentence);
      expect(early.evidence[t.passage].docTitle.length).toBeGreaterThan(0);
    });

    // A question with a content word loads the library; the corpus-wide one then answers from it, the same.
    const content = await query.ask({
      question: 'Who built the lighthouse?',
      mode: DEFAULT_MODE,
      budget: 12000,
    });
    expect(content.themes).toBeUndefined();
    expect(counts.corpusLoads).toBe(1);
    const loaded = await query.ask(ABOUT);
    expect(loaded.themes).toEqual(early.themes);
    expect(loaded.evidence.map((e) => e.chunkId)).toEqual(early.evidence.map((e) => e.chunkId));
  });

  it("are the loaded library's themes after the query worker's warm-up, not computed again", async () => {
    const { db, repo } = await droppedSamples();
    // Marked, so that themes computed from the graph would show: the stored record's first label is rewritten.
    // The themes record shares the graph table under its own id (graphRepo.ts).
    const table = db.graph as unknown as { get(id: string): Promise<unknown> };
    const record = (await table.get('themes')) as { themes: { themes: { label: string }[] } };
    record.themes.themes[0].label = 'the stored label';
    await db.graph.put(record as never);
    const { query, counts } = queryOver(db, repo);
    await query.warmUp({ embedder: false });
    expect(counts.corpusLoads).toBe(1);
    const answer = await query.ask(ABOUT);
    expect(answer.themes?.themes[0].label).toBe('the stored label');
    // Stored with another graph record than the one the library is opened with: computed from the library instead.
    await db.graph.put({
      ...record,
      builtAt: (record as unknown as { builtAt: number }).builtAt - 1,
    } as never);
    const other = queryOver(db, repo).query;
    await other.warmUp({ embedder: false });
    const computed = await other.ask(ABOUT);
    expect(computed.themes?.themes[0].label).not.toBe('the stored label');
  });

  it("hold the records of their answer's passages: the answer reads no document", async () => {
    const { db, repo } = await droppedSamples();
    const themes = (await repo.graph.getThemesBuilt())!.themes;
    const shown = answerPassages(themes);
    expect(shown.length).toBeGreaterThanOrEqual(3);
    // The answer from the documents (the library in memory), to compare with.
    const inMemory = queryOver(db, repo).query;
    await inMemory.warmUp({ embedder: false });
    const loaded = await inMemory.ask(ABOUT);

    const reads = countDocumentReads(db);
    const { query, counts } = queryOver(db, repo);
    const early = await query.ask(ABOUT);
    expect(counts.corpusLoads).toBe(0);
    expect(reads.documents).toBe(0);
    // The same passages, texts, titles, offsets and sentences as the answer over the library in memory.
    expect(early.themes).toEqual(loaded.themes);
    expect(early.evidence).toEqual(loaded.evidence);
  });

  it('stored without their passage records (the format before) answer from the documents, the same', async () => {
    const { db, repo } = await droppedSamples();
    const table = db.graph as unknown as {
      get(id: string): Promise<unknown>;
      put(r: unknown): Promise<unknown>;
    };
    const record = (await table.get('themes')) as Record<string, unknown>;
    expect(record.format).toBe(2);
    const current = await queryOver(db, repo).query.ask(ABOUT);
    const reads = countDocumentReads(db);
    const { format: _format, passages: _passages, ...before } = record;
    // A record of the format before, one whose passages are not records, and one of a later format: the themes
    // are read all the same, their passages from their documents.
    for (const older of [before, { ...record, passages: [{ id: 1 }] }, { ...record, format: 3 }]) {
      await table.put(older);
      reads.documents = 0;
      const { query, counts } = queryOver(db, repo);
      const answer = await query.ask(ABOUT);
      expect(counts.corpusLoads).toBe(0);
      expect(reads.documents).toBeGreaterThan(0);
      expect(answer.themes).toEqual(current.themes);
      expect(answer.evidence).toEqual(current.evidence);
    }
  });

  it('leave out a stored passage whose document was removed since they were stored', async () => {
    const { db, repo } = await droppedSamples();
    const shown = answerPassages((await repo.graph.getThemesBuilt())!.themes);
    const removed = shown[0].slice(0, shown[0].indexOf('#'));
    expect(await repo.removeDocument(removed)).toBe(true);
    // The graph's counts are the refresh's until the next one: the themes are still read.
    expect((await repo.graph.getThemesBuilt())?.themes).toBeDefined();
    const { query, counts } = queryOver(db, repo);
    const answer = await query.ask(ABOUT);
    expect(counts.corpusLoads).toBe(0);
    expect(answer.themes).toBeDefined();
    expect(answer.evidence.length).toBeGreaterThan(0);
    expect(answer.evidence.map((e) => e.docId)).not.toContain(removed);
    expect(answer.evidence.map((e) => e.chunkId)).toEqual(
      shown.filter((id) => !id.startsWith(`${removed}#`)).slice(0, answer.evidence.length),
    );
  });

  it('of another graph than the index record counts are not read', async () => {
    const { db, repo } = await droppedSamples();
    expect((await repo.graph.getThemesBuilt())?.themes).toBeDefined();
    const meta = (await db.meta.get('index'))!;
    await db.meta.put({ ...meta, concepts: meta.concepts + 1 });
    expect((await repo.graph.getThemesBuilt())?.themes).toBeUndefined();
    expect(await openStoredThemes(db)).toBeUndefined();
  });
});

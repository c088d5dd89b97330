// A large library's pages written into the store by the ingest pipeline (src/services/ingest/pagesWrite.ts) are the
// pages `cli index --stream` writes for the same files, byte for byte, and the query side opens them by ranges
// (src/services/library/storedPages.ts) with the CLI bundle's answers. New pages replace the old in one put: a run
// stopped in the middle of writing them leaves the old record whole (of an earlier state of the library: opened as
// lagging, the library is not loaded instead), and the next start of the worker writes the library's own. Removing a
// document keeps the pages answering without it until the next are written.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { collectFiles } from '../../../../src/cli/index.ts';
import { streamBuild } from '../../../../src/cli/streamIndex.ts';
import { openPagedBundle } from '../../../../src/core/paged/openBundle.ts';
import { MemoryRangeSource } from '../../../../src/core/paged/rangeSource.ts';
import { prepareFile } from '../../../../src/core/prepare.ts';
import { createTermAnalyzer } from '../../../../src/core/text/index.ts';
import type { Progress } from '../../../../src/core/types.ts';
import { IngestPipeline } from '../../../../src/services/ingest/ingestPipeline.ts';
import type { PrepareFn } from '../../../../src/services/ingest/limitedParse.ts';
import {
  SENTENCE_VECTORS_SETTING,
  type IngestEvent,
} from '../../../../src/services/ingest/ingestProtocol.ts';
import { pagesDue } from '../../../../src/services/ingest/pagesWrite.ts';
import { PAGES_MIN_CHUNKS_SETTING } from '../../../../src/services/library/pagesThreshold.ts';
import { openStoredPages, type StoredPages } from '../../../../src/services/library/storedPages.ts';
import { documentNames } from '../../../../src/services/library/documentNames.ts';
import { askPaged } from '../../../support/askOver.ts';
import { QueryService } from '../../../../src/services/query/queryService.ts';
import { DexieKgStore } from '../../../../src/store/kgStore.ts';
import { DexieAtomicStore } from '../../../../src/store/atomicStore.ts';
import { storedPagesQueryService } from '../../../support/storedPagesQueryService.ts';
import { openLibrary } from '../../../../src/services/library/questionLibrary.ts';
import { askLibrary } from '../../../support/askOver.ts';
import type { AskResult } from '../../../../src/services/questions/queryProtocol.ts';
import { openDatabase, type ConceptDb } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { REPO_DOCS } from '../../../support/repoDocs.ts';
import { builtOnce } from '../../../support/builtOnce.ts';
import { pagesLagging } from '../../../support/pagesLagging.ts';
import { partOf } from '../../../support/bundleParts.ts';

const work = mkdtempSync(join(tmpdir(), 'stored-pages-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The real parser, as the parse worker runs it. */
const prepare: PrepareFn = (name, bytes, options) =>
  prepareFile(name, bytes, { maxChunkTokens: options.maxChunkTokens });

const cliBundles = new Map<string, Promise<Uint8Array>>();

/** The CLI's streamed bundle of these files, built once per file list (test/support/builtOnce.ts: two tests
 *  compare with the bundle of every file; building it is most of a test's time). */
function cliBundle(files: string[], name: string): Promise<Uint8Array> {
  const key = files.join('\n');
  let built = cliBundles.get(key);
  if (!built) {
    const out = join(work, `${name}.bundle`);
    const options = { maxChunkTokens: 1200, appVersion: 'test' };
    built = builtOnce(`storedPages.${name}`, { paths: files, options }, async () => {
      await streamBuild(files, out, { ...options, tempDir: work });
      return new Uint8Array(readFileSync(out));
    });
    cliBundles.set(key, built);
  }
  return built;
}

/** Equal bytes, with the first differing offset in the failure (a whole-array diff of MBs says nothing). */
function expectSameBytes(actual: Uint8Array, expected: Uint8Array, what: string): void {
  let first = -1;
  const n = Math.min(actual.length, expected.length);
  for (let i = 0; i < n && first < 0; i++) if (actual[i] !== expected[i]) first = i;
  expect({ what, length: actual.length, firstDifference: first }).toEqual({
    what,
    length: expected.length,
    firstDifference: -1,
  });
}

/** The stored pages equal the CLI bundle's pages part, its block hashes and its directory. */
async function expectStoredEqualsCli(db: ConceptDb, bundle: Uint8Array, what: string): Promise<void> {
  const record = await db.pages.get('library');
  expect(record, `${what}: no pages stored`).toBeDefined();
  const pages = partOf(bundle, 'pages.bin');
  expectSameBytes(new Uint8Array(await record!.data.arrayBuffer()), pages.bytes, `${what} pages`);
  expectSameBytes(record!.hashes, partOf(bundle, 'pages.sha256').bytes, `${what} hashes`);
  expect(record!.directory).toEqual(pages.meta);
}

const QUESTIONS = [
  'How do I open a bundle from a URL?',
  'What limits the size of a library in the browser tab?',
  'How are sentence vectors quantized in the store?',
  'Which retrieval modes does the app answer?',
];

/** The entities a KG answer names. */
function fromPagesKg(result: AskResult): string[] {
  return (result.kg?.entities ?? []).map((e) => e.name);
}

/** The stored pages opened (not awaited, nor absent). */
async function openedPages(db: ConceptDb): Promise<StoredPages> {
  const state = await openStoredPages(db);
  if (!state || 'awaiting' in state) throw new Error(`no pages opened: ${JSON.stringify(state)}`);
  return state;
}

function newRepo(name: string, indexedDB = new IDBFactory()): Repo {
  return new Repo(openDatabase(name, { indexedDB, IDBKeyRange }));
}

function pipelineOf(repo: Repo, events: IngestEvent[] = []): IngestPipeline {
  return new IngestPipeline({
    repo,
    prepare,
    embedder: async () => {
      throw new Error('no embedder: the library is lexical only');
    },
    // The concept graph is not what the pages are built from (they read the stored documents).
    rebuildGraph: async () => undefined,
    emit: (e) => events.push(e),
  });
}

async function enqueueFiles(pipeline: IngestPipeline, files: string[]): Promise<void> {
  await pipeline.enqueue(
    files.map((f) => ({ name: basename(f), bytes: new Uint8Array(readFileSync(f)).buffer as ArrayBuffer })),
  );
  await pipeline.ensureRunning();
}

describe('the library pages in the store', () => {
  it('are the pages cli index --stream writes for the same files, and answer as its bundle does', async () => {
    const files = await collectFiles([REPO_DOCS]);
    const repo = newRepo('equal');
    await repo.setSetting(SENTENCE_VECTORS_SETTING, false);
    await repo.setSetting(PAGES_MIN_CHUNKS_SETTING, 1);
    const events: IngestEvent[] = [];
    await enqueueFiles(pipelineOf(repo, events), files);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);

    const bundle = await cliBundle(files, 'docs');
    await expectStoredEqualsCli(repo.db, bundle, 'docs');

    // "writing pages n/N": both passes over every document, the last report complete.
    const progress = events
      .filter((e): e is { type: 'progress'; progress: Progress } => e.type === 'progress')
      .map((e) => e.progress)
      .filter((p) => p.stage === 'pages');
    const documents = (await repo.counts()).documents;
    expect(progress.at(-1)).toMatchObject({ done: 2 * documents, total: 2 * documents });
    expect(await pagesDue(repo)).toBe(false);

    const stored = await openedPages(repo.db);
    expect(stored).toMatchObject({ documents, chunks: (await repo.counts()).chunks });
    expect(await pagesLagging(repo.db, stored)).toBe(false);
    const cli = await openPagedBundle(new MemoryRangeSource(bundle, 'docs.bundle'), createTermAnalyzer());
    for (const question of QUESTIONS) {
      for (const mode of ['ppr', 'bm25'] as const) {
        const request = { question, mode, budget: 1500 };
        const fromStore = await askPaged(stored!.library, request);
        const fromCli = await askPaged(cli!.library, request);
        expect(fromStore.evidence.length, question).toBeGreaterThan(0);
        expect(fromStore.evidence, `${mode}: ${question}`).toEqual(fromCli.evidence);
      }
    }
    // Opened, they are read by slices of the Blob, in rounds; held once asked to, they answer the same in one run.
    const fresh = {
      question: 'Which parts of a bundle are stored as is, and why?',
      mode: 'ppr',
      budget: 1500,
    } as const;
    const bySlices = (await openedPages(repo.db))!;
    expect((await askPaged(bySlices.library, fresh)).reads.rounds).toBeGreaterThan(1);
    const before = bySlices.library;
    await bySlices.hold!();
    expect(bySlices.library).not.toBe(before);
    const held = await askPaged(bySlices.library, {
      ...fresh,
      question: `${fresh.question} Which are gzip'd?`,
    });
    expect(held.reads.rounds).toBe(1);
    expect(held.evidence).toEqual(
      (await askPaged(cli!.library, { ...fresh, question: `${fresh.question} Which are gzip'd?` })).evidence,
    );

    // The query service answers from the pages without ever reading the corpus, and says so; a mode that needs
    // the library in memory is refused with the reason.
    let corpusLoads = 0;
    const service = storedPagesQueryService(repo, {
      loadCorpus: () => {
        corpusLoads += 1;
        return repo.loadCorpus();
      },
      extra: { documentNames: (ids) => documentNames(repo.db, ids) },
    });
    await service.warmUp();
    const asked = await service.ask({ question: QUESTIONS[0], mode: 'ppr', budget: 1500 });
    expect(asked.from).toBe('pages');
    expect(asked.evidence.map((e) => e.chunkId)).toEqual(
      (await askPaged(cli!.library, { question: QUESTIONS[0], mode: 'ppr', budget: 1500 })).evidence.map(
        (e) => e.chunkId,
      ),
    );
    await expect(service.ask({ question: QUESTIONS[0], mode: 'dense', budget: 1500 })).rejects.toThrow(
      /mode dense needs the library in memory; this library \([\d,]+ chunks\) is answered from its paged index .*, which answers the default mode, concept, bm25, rrf:ppr\+bm25, decompose and logical/,
    );
    await expect(service.ask({ question: QUESTIONS[0], mode: 'kg', budget: 1500 })).rejects.toThrow(
      /mode kg needs a knowledge graph, which this library has not; this library \([\d,]+ chunks\) is answered from its paged index/,
    );
    // The reasoning modes run over the pages (not refused as needing memory): this one got as far as asking for
    // the endpoint, which this library has none of.
    await expect(service.ask({ question: QUESTIONS[0], mode: 'decompose', budget: 1500 })).rejects.toThrow(
      /^LLM: no endpoint configured/,
    );
    // The Graph view draws from the pages too: the question's walk, and the top concepts by weighted degree.
    const walk = await service.graphForQuestion(QUESTIONS[0]);
    expect(walk.seeds.length).toBeGreaterThan(0);
    expect(walk.reads!.rounds).toBeGreaterThanOrEqual(1);
    const top = await service.topConcepts();
    expect(top.measure).toBe('degree');
    expect(top.nodes.length).toBeGreaterThan(0);
    const searched = await service.topConcepts({ search: top.nodes[0].term });
    expect(searched.focus).toBe(top.nodes[0].id);
    // Evaluate runs over the pages in the modes they answer, naming the ranked documents as a QA set does (the
    // file names without their extension, read from IndexedDB), without loading the library.
    expect(await service.evaluationModes()).toMatchObject({
      modes: ['ppr', 'concept', 'bm25', 'rrf:ppr+bm25', 'decompose', 'logical'],
    });
    const stems = new Set(files.map((f) => basename(f).replace(/\.[^.]+$/, '')));
    const evaluated = await service.evaluate({
      set: {
        name: 'docs',
        items: QUESTIONS.map((question, i) => ({
          id: String(i),
          question,
          answers: ['bundle'],
          supporting: ['ranges'],
          line: i + 1,
        })),
      },
      modes: ['ppr', 'bm25'],
      budgets: [1000],
    });
    expect(evaluated).toMatchObject({
      questions: QUESTIONS.length,
      cancelled: false,
      modes: ['ppr', 'bm25'],
    });
    expect(evaluated.recallNote).toBeUndefined();
    const ranked = evaluated.items.flatMap((q) => q.modes.ppr.ranked.map((r) => r.externalId));
    expect(ranked.length).toBeGreaterThan(0);
    expect(ranked.filter((id) => !stems.has(id))).toEqual([]);
    const one = { id: '0', question: QUESTIONS[0], answers: ['bundle'], supporting: [], line: 1 };
    await expect(
      service.evaluate({ set: { name: 'one', items: [one] }, modes: ['dense'], budgets: [1000] }),
    ).rejects.toThrow(/mode dense needs the library in memory/);
    expect(corpusLoads, 'the corpus was read').toBe(0);

    // An evaluation that comes first (no question held the pages yet) reads them whole before its first question.
    let wholeRead = false;
    const evaluating = new QueryService({
      library: {
        loadCorpus: () => Promise.reject(new Error('not read')),
        getSetting: (k) => repo.getSetting(k),
      },
      kgStore: new DexieKgStore(repo.db),
      embedders: { get: () => Promise.reject(new Error('none')), dispose: async () => undefined } as never,
      openBundle: () => Promise.reject(new Error('no bundle in this test')),
      llmClient: () => {
        throw new Error('no LLM in this test');
      },
      storedPages: async (reuse) => {
        const state = await openStoredPages(repo.db, reuse);
        const hold = state && !('awaiting' in state) ? state.hold : undefined;
        if (state && !('awaiting' in state) && hold)
          state.hold = () => hold().then(() => void (wholeRead = true));
        return state;
      },
    });
    const heldAtFirst: boolean[] = [];
    await evaluating.evaluate({ set: { name: 'one', items: [one] }, modes: ['ppr'], budgets: [1000] }, () =>
      heldAtFirst.push(wholeRead),
    );
    expect(heldAtFirst.length).toBeGreaterThan(0);
    expect(heldAtFirst.every(Boolean), 'a question ran before the pages were held').toBe(true);
  }, 300_000);

  it('its own KG and atomic questions are read beside its pages: kg, hybrid and atomic answer as in memory', async () => {
    const repo = newRepo('layers');
    await repo.setSetting(SENTENCE_VECTORS_SETTING, false);
    await repo.setSetting(PAGES_MIN_CHUNKS_SETTING, 1);
    await enqueueFiles(pipelineOf(repo), (await collectFiles([REPO_DOCS])).slice(0, 4));
    await openedPages(repo.db);
    const kgStore = new DexieKgStore(repo.db);
    const atomicStore = new DexieAtomicStore(repo.db);
    let corpusLoads = 0;
    const service = storedPagesQueryService(repo, {
      kgStore,
      atomicStore,
      loadCorpus: () => {
        corpusLoads += 1;
        return repo.loadCorpus();
      },
    });
    const question = 'What does the Range Reader fetch for a Question?';
    // No layer yet: each mode names what it needs.
    expect((await service.evaluationModes()).modes).toEqual([
      'ppr',
      'concept',
      'bm25',
      'rrf:ppr+bm25',
      'decompose',
      'logical',
    ]);
    await expect(service.ask({ question, mode: 'atomic', budget: 1500 })).rejects.toThrow(
      /mode atomic needs atomic questions, which this library has not; .*which answers the default mode, concept, bm25, rrf:ppr\+bm25, decompose and logical/,
    );

    // What a KG build and atomizing write (one chunk each, as the build service commits them), in words the
    // chunks need not hold.
    const { chunks } = await repo.loadCorpus();
    const [first, second] = [chunks[0], chunks[Math.floor(chunks.length / 2)]];
    const spend = { attempts: 1, inputTokens: 10, outputTokens: 5, cost: 0 };
    await kgStore.commit(first.id, {
      status: 'done',
      extraction: {
        entities: [
          { name: 'Range Reader', type: 'component', description: 'fetches the blocks a question needs' },
          { name: 'Question', type: 'concept', description: 'what the user asks' },
        ],
        relations: [
          { source: 'Range Reader', target: 'Question', description: 'fetches blocks for', weight: 8 },
        ],
      },
      ...spend,
    });
    await atomicStore.commit(second, {
      status: 'done',
      questions: ['What does the Range Reader fetch for a Question?'],
      ...spend,
    });
    // The page tells the query worker after a build (kgChanged): the layers are read again.
    await service.invalidate('kg');
    expect((await service.evaluationModes()).modes).toEqual([
      'ppr',
      'concept',
      'bm25',
      'rrf:ppr+bm25',
      'hybrid',
      'kg',
      'atomic',
      'decompose',
      'logical',
    ]);

    // The same library in memory, with the same layers, says what each mode answers.
    const memory = openLibrary(await repo.loadCorpus());
    const layers = {
      kg: async () => {
        const { KgIndex } = await import('../../../../src/core/kg/index.ts');
        return new KgIndex(await kgStore.entities(), await kgStore.relations());
      },
      atomic: async () => {
        const { AtomicIndex } = await import('../../../../src/core/atomic/index.ts');
        return new AtomicIndex(await atomicStore.questions());
      },
    };
    const shown = (r: AskResult) =>
      r.evidence.map((e) => ({ chunkId: e.chunkId, text: e.text, provenance: e.provenance, score: e.score }));
    const loadsBefore = corpusLoads;
    for (const mode of ['kg', 'hybrid', 'atomic'] as const) {
      const fromPages = await service.ask({ question, mode, budget: 1500 });
      const inMemory = await askLibrary(memory, { question, mode, budget: 1500 }, layers);
      expect(fromPages.from, mode).toBe('pages');
      expect(shown(fromPages), mode).toEqual(shown(inMemory));
      // A KG mode's entities and relations too: the relations are facts for the written answer.
      expect(fromPages.kg, mode).toEqual(inMemory.kg);
      // The layer's chunk is in the evidence, found through it.
      const layerChunk = mode === 'atomic' ? second.id : first.id;
      expect(
        fromPages.evidence.some((e) => e.chunkId === layerChunk && e.provenance.mode !== 'ppr'),
        mode,
      ).toBe(true);
    }
    expect(fromPagesKg(await service.ask({ question, mode: 'kg', budget: 1500 })).sort()).toEqual([
      'Question',
      'Range Reader',
    ]);
    expect(corpusLoads - loadsBefore, 'the corpus was read').toBe(0);
  }, 120_000);

  it('a small library gets none, below the threshold', async () => {
    const repo = newRepo('small');
    await repo.setSetting(SENTENCE_VECTORS_SETTING, false);
    await enqueueFiles(pipelineOf(repo), (await collectFiles([REPO_DOCS])).slice(0, 3));
    expect((await repo.counts()).chunks).toBeGreaterThan(0);
    expect(await repo.db.pages.count()).toBe(0);
    expect(await openStoredPages(repo.db)).toBeUndefined();
    // Past the threshold (lowered) without pages yet: awaited, not loaded.
    await repo.setSetting(PAGES_MIN_CHUNKS_SETTING, 1);
    expect(await openStoredPages(repo.db)).toMatchObject({
      awaiting: true,
      chunks: (await repo.counts()).chunks,
    });
  }, 120_000);

  it('a run stopped while writing new pages leaves the old record whole, read as lagging; the next start writes them', async () => {
    const all = await collectFiles([REPO_DOCS]);
    const first = all.slice(0, 10);
    const indexedDB = new IDBFactory();
    const repo = newRepo('reload', indexedDB);
    await repo.setSetting(SENTENCE_VECTORS_SETTING, false);
    await repo.setSetting(PAGES_MIN_CHUNKS_SETTING, 1);
    await enqueueFiles(pipelineOf(repo), first);
    const old = await repo.db.pages.get('library');
    expect(old).toBeDefined();

    // More files; the run is stopped as soon as it starts writing the new pages.
    const events: IngestEvent[] = [];
    let stopping: Promise<void> | undefined;
    const stopAtPages = new IngestPipeline({
      repo,
      prepare,
      embedder: async () => {
        throw new Error('no embedder');
      },
      rebuildGraph: async () => undefined,
      emit: (e) => {
        events.push(e);
        if (e.type === 'progress' && e.progress.stage === 'pages' && e.progress.done > 0)
          stopping ??= stopAtPages.cancel();
      },
    });
    await stopAtPages.enqueue(
      all
        .slice(10)
        .map((f) => ({ name: basename(f), bytes: new Uint8Array(readFileSync(f)).buffer as ArrayBuffer })),
    );
    await stopAtPages.ensureRunning();
    await stopping;
    expect(stopping, 'the run reached the pages').toBeDefined();
    expect(events.some((e) => e.type === 'idle' && e.cancelled)).toBe(true);

    // The old record is whole (the pages of the first files, byte for byte); it indexes an earlier state of the
    // library, so it is opened as lagging (the library is not loaded into memory meanwhile).
    await expectStoredEqualsCli(repo.db, await cliBundle(first, 'first'), 'old pages');
    const lagging = await openedPages(repo.db);
    expect(lagging).toMatchObject({ documents: old!.documents, chunks: old!.chunks });
    expect(await pagesLagging(repo.db, lagging)).toBe(true);
    expect(old!.documents).toBeLessThan((await repo.counts()).documents);
    expect(await pagesDue(repo)).toBe(true);

    // A reload: a new connection and a new pipeline; the worker's start writes the library's pages.
    repo.db.close();
    const reopened = newRepo('reload', indexedDB);
    await pipelineOf(reopened).resumePages();
    await expectStoredEqualsCli(reopened.db, await cliBundle(all, 'all'), 'new pages');
    expect(await pagesLagging(reopened.db, await openedPages(reopened.db))).toBe(false);

    // Removing a document keeps the pages answering, without it, until the next are written (issue 44: clearing
    // them sent every question of a large library to the words for minutes). A question in the removed document's
    // own words found it first before the removal; after it, the pages still answer, with the other documents.
    const [doc, other] = await reopened.db.documents.limit(2).toArray();
    const question = (doc.text.match(/[A-Za-z][^.\n]{40,160}/) ?? [doc.title])[0];
    const before = await storedPagesQueryService(reopened).ask({ question, mode: 'bm25', budget: 2000 });
    expect(before.from).toBe('pages');
    expect(before.evidence[0].docId).toBe(doc.id);
    const drawnBefore = await storedPagesQueryService(reopened).graphForQuestion(question);
    expect(drawnBefore.chunks.map((c) => c.docId)).toContain(doc.id);
    const builtAt = (await reopened.db.pages.get('library'))!.builtAt;
    expect(await reopened.removeDocument(doc.id)).toBe(true);
    expect((await reopened.db.pages.get('library'))?.builtAt, 'the same pages, kept').toBe(builtAt);
    expect(await pagesDue(reopened)).toBe(true);
    const kept = await openedPages(reopened.db);
    expect([...kept.removed]).toEqual([doc.id]);
    expect(await pagesLagging(reopened.db, kept)).toBe(true);
    for (const mode of ['bm25', 'ppr'] as const) {
      const after = await storedPagesQueryService(reopened).ask({ question, mode, budget: 2000 });
      expect(after.from, mode).toBe('pages');
      expect(after.evidence.length, mode).toBeGreaterThan(0);
      expect(
        after.evidence.map((e) => e.docId),
        mode,
      ).not.toContain(doc.id);
    }
    // The Graph view over the same pages draws none of the removed document's chunks either.
    const drawn = await storedPagesQueryService(reopened).graphForQuestion(question);
    expect(drawn.chunks.length).toBeGreaterThan(0);
    expect(drawn.chunks.map((c) => c.docId)).not.toContain(doc.id);
    expect(drawn.links.every((l) => drawn.chunks.some((c) => c.chunkId === l.chunkId))).toBe(true);
    expect(drawn.chunks.filter((c) => c.rank >= 0).map((c) => c.rank)).toEqual(
      drawn.chunks.filter((c) => c.rank >= 0).map((_, i) => i),
    );
    // A removal through the pipeline writes the library's pages again afterwards.
    const pipeline = pipelineOf(reopened);
    expect(await pipeline.removeDocuments([other.id])).toBe(1);
    await pipeline.ensureRunning();
    const rewritten = await openedPages(reopened.db);
    expect(rewritten).toMatchObject({ documents: (await reopened.counts()).documents });
    // New pages: nothing left out any more (the note named the pages before).
    expect(rewritten.removed.size).toBe(0);
    expect(await pagesDue(reopened)).toBe(false);
  }, 300_000);
});

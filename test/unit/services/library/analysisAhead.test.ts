// The query worker's load analyses the chunks' text while the store still reads the sentences
// (src/services/library/analysisAhead.ts): the BM25 index built from those terms must be the one the load builds when
// it analyses after the read, and every answer the same; a text that changed between (not what was analysed ahead)
// is analysed again, never answered from the other text's terms.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { prepareFile } from '../../../../src/core/prepare.ts';
import { IncrementalGraphRefresh } from '../../../../src/services/ingest/graphBuild.ts';
import { IngestPipeline } from '../../../../src/services/ingest/ingestPipeline.ts';
import { SENTENCE_VECTORS_SETTING } from '../../../../src/services/ingest/ingestProtocol.ts';
import { AnalysisAhead, type CorpusAhead } from '../../../../src/services/library/analysisAhead.ts';
import { prepareOpen, retrievalInput, termAnalyzer } from '../../../../src/services/library/engine.ts';
import { createGraphPrebuilder } from '../../../../src/services/library/graphPrebuild.ts';
import type { QuestionLibrary } from '../../../../src/services/library/questionLibrary.ts';
import { LibrarySession } from '../../../../src/services/library/session.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';

const MUSIQUE_300 = join(import.meta.dirname, '../../../fixtures/musique-300/corpus.jsonl');
const PASSAGES = readFileSync(MUSIQUE_300, 'utf8')
  .trim()
  .split('\n')
  .slice(0, 50)
  .map((line) => JSON.parse(line) as { id: string; text: string });
const QUESTIONS = [
  'Who was the father of Lothair II?',
  'When was the stadium opened?',
  'Which family is the actress a member of?',
];
const MODES = ['ppr', 'bm25', 'rrf:ppr+bm25'];

let repo: Repo;

beforeEach(async () => {
  repo = new Repo(openDatabase('analysis-ahead', { indexedDB: new IDBFactory(), IDBKeyRange }));
  // Lexical, as a drop is until its vectors exist: the graph is stored as its concept table.
  await repo.setSetting(SENTENCE_VECTORS_SETTING, false);
  const pipeline = new IngestPipeline({
    repo,
    prepare: (name, bytes, options) => prepareFile(name, bytes, { maxChunkTokens: options.maxChunkTokens }),
    embedder: async () => {
      throw new Error('no embedder: the library is lexical only');
    },
    rebuildGraph: new IncrementalGraphRefresh().refresh,
    emit: () => {},
  });
  // Markdown with headings, so that the heading field (the chunks' section paths) is analysed too.
  await pipeline.enqueue(
    PASSAGES.map((p, i) => ({
      name: `${p.id}.md`,
      bytes: new TextEncoder().encode(`# Passage ${i % 7}\n\n## Part ${i % 3}\n\n${p.text}\n`)
        .buffer as ArrayBuffer,
    })),
  );
  await pipeline.ensureRunning();
});

/** A session over the store; `ahead` false: its load is given no chunks ahead (as before this change). */
function session(ahead: boolean): LibrarySession {
  const prebuilder = createGraphPrebuilder(repo);
  return new LibrarySession({
    library: {
      loadCorpus: (mark, early) => repo.loadCorpus(mark, ahead ? early : undefined),
      getMeta: () => repo.getMeta(),
    },
    kgStore: { entities: async () => [], relations: async () => [] },
    openBundle: () => Promise.reject(new Error('no bundles here')),
    prebuildGraph: async (request) => structuredClone(await prebuilder.prebuild(request)),
  });
}

function answers(library: QuestionLibrary): unknown {
  return QUESTIONS.flatMap((text) =>
    MODES.map((mode) =>
      library.engine.search({ text }, mode, 1500).map((r) => [r.chunkId, r.score, r.bestSentences]),
    ),
  );
}

/** What prepareOpen gives, without its timings (they differ from run to run). */
function index(prepared: ReturnType<typeof prepareOpen>): unknown {
  const { layout, bm25, fieldBm25 } = prepared.text ?? {};
  return { layout, bm25, fieldBm25 };
}

describe('the text analysed while the library is read', () => {
  it('is handed the chunks before the sentences, and the load answers as one that analyses after the read', async () => {
    let handed: CorpusAhead | undefined;
    let sentencesRead = false;
    const corpus = await repo.loadCorpus(
      (step) => (sentencesRead ||= step === 'sentences'),
      (part) => {
        expect(sentencesRead).toBe(false);
        handed = part;
      },
    );
    // The very chunk records (texts sliced back) the load returns, not a second copy.
    expect(handed?.chunks).toBe(corpus.chunks);
    expect(handed?.chunks.length).toBeGreaterThan(PASSAGES.length - 1);

    const ahead = session(true);
    const library = await ahead.library();
    const marks = ahead.loadTimings();
    // Every chunk analysed ahead, and the load's index is that one: nothing analysed twice.
    expect(marks?.aheadChunks).toBe(corpus.chunks.length);
    expect(marks?.aheadUsed).toBe(1);
    expect(answers(library)).toEqual(answers(await session(false).library()));
  });

  it('is not done after a removal, when the engine builds its own graph and analyses the text itself', async () => {
    const corpus = await repo.loadCorpus();
    await repo.removeDocument(corpus.documents[0].id);
    const held = session(true);
    const library = await held.library();
    expect(held.loadTimings()?.aheadChunks).toBeUndefined();
    expect(library.documents.size).toBe(corpus.documents.length - 1);
    expect(answers(library)).toEqual(answers(await session(false).library()));
  });

  it('gives the index analysed after the read, term for term', async () => {
    const corpus = await repo.loadCorpus();
    const input = retrievalInput(corpus);
    // Heading paths are part of it (the heading field of BM25F).
    expect(new Set(input.chunks.map((c) => (c.path ?? []).join('\n'))).size).toBeGreaterThan(3);
    // In slices of one chunk, yielding between them: the read's events are handled meanwhile.
    const ahead = AnalysisAhead.start(corpus, termAnalyzer(), 0);
    expect(ahead.analysed).toBe(0);
    while (ahead.analysed < 3) await new Promise((resolve) => setTimeout(resolve, 0));
    expect(ahead.analysed).toBeLessThan(ahead.total);
    const prepared = ahead.preparedFor(input);
    expect(prepared).toBeDefined();
    if (prepared) expect(index(prepared)).toEqual(index(prepareOpen(input)));
  });

  it('is refused for chunks other than those analysed: one changed, one more, one path other', async () => {
    const corpus = await repo.loadCorpus();
    const input = retrievalInput(corpus);
    const [first, second] = corpus.chunks;
    const changed = corpus.chunks.map((c) => (c === second ? { ...c, text: `${c.text} more words` } : c));
    const fewer = corpus.chunks.filter((c) => c !== first);
    const otherSections = corpus.sections.map((s) => ({ ...s, heading: `${s.heading} (2)` }));
    for (const part of [
      { ...corpus, chunks: changed },
      { ...corpus, chunks: fewer },
      { ...corpus, sections: otherSections },
    ])
      expect(AnalysisAhead.start(part, termAnalyzer()).preparedFor(input)).toBeUndefined();
  });
});

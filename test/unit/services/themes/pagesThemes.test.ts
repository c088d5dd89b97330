// Themes for a library answered from its own stored pages (issue 48): the pages' build computes them from its concept
// table and degrees (no co-occurrence graph: themesGraphFromTable counts the edges among the clustered concepts) and
// stores them with the pages; they are the themes the library in memory computes from its whole graph, and "What is
// this about?", the Graph view's Themes list, are answered from them without loading the library. Real store
// (fake-indexeddb), real parser, real pages writer, real query service. MuSiQue's 300 passages: over 200 chunks, so
// the themes cluster the concepts of two chunks or more, as a large library's do.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { prepareFile } from '../../../../src/core/prepare.ts';
import { DEFAULT_MODE } from '../../../../src/core/retrieval/index.ts';
import { loadEngine } from '../../../../src/services/library/engine.ts';
import { openLibrary } from '../../../../src/services/library/questionLibrary.ts';
import { writeLibraryPages } from '../../../../src/services/ingest/pagesWrite.ts';
import { PAGES_MIN_CHUNKS_SETTING } from '../../../../src/services/library/pagesThreshold.ts';
import { themesOfLibrary } from '../../../../src/services/themes/themesOf.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { PagesRepo } from '../../../../src/store/pagesRepo.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { storedPagesQueryService } from '../../../support/storedPagesQueryService.ts';

const CORPUS = join(import.meta.dirname, '../../../fixtures/musique-300/corpus.jsonl');

describe('themes of a library answered from its stored pages', () => {
  it('are stored with the pages, equal the themes in memory, and answer without loading the library', async () => {
    const repo = new Repo(
      openDatabase(`pages-themes-${Math.random()}`, { indexedDB: new IDBFactory(), IDBKeyRange }),
    );
    await repo.setSetting(PAGES_MIN_CHUNKS_SETTING, 100);
    const { documents, errors } = await prepareFile('corpus.jsonl', new Uint8Array(await readFile(CORPUS)), {
      maxChunkTokens: 1200,
    });
    expect(errors).toEqual([]);
    await repo.putPreparedDocuments(documents.map((prepared) => ({ prepared })));
    expect((await writeLibraryPages(repo)).stored).toBe(true);

    const stored = (await new PagesRepo(repo.db).get())?.themes;
    const inMemory = themesOfLibrary(openLibrary(await repo.loadCorpus(), loadEngine));
    expect(inMemory.chunks).toBeGreaterThan(200);
    expect(inMemory.themes.length).toBeGreaterThanOrEqual(3);
    expect(stored).toEqual(inMemory);

    let corpusLoads = 0;
    const query = storedPagesQueryService(repo, {
      loadCorpus: () => {
        corpusLoads += 1;
        return repo.loadCorpus();
      },
    });
    const answer = await query.ask({ question: 'What is this about?', mode: DEFAULT_MODE, budget: 12000 });
    expect(answer.from).toBe('pages');
    expect(answer.themes?.themes.map((t) => t.label)).toEqual(
      inMemory.themes.slice(0, answer.themes!.themes.length).map((t) => t.label),
    );
    // Each theme cites its first passage, read from the pages, and its sentence is in it.
    expect(answer.evidence.map((e) => e.chunkId)).toEqual(
      answer.themes!.themes.map((_, i) => inMemory.themes[i].passages[0]),
    );
    answer.themes!.themes.forEach((t) => expect(answer.evidence[t.passage].text).toContain(t.sentence));

    // The Graph view's Themes tab reads the same themes.
    const listed = await query.libraryThemes();
    expect(listed?.themes.map((t) => t.label)).toEqual(inMemory.themes.map((t) => t.label));
    expect(corpusLoads, 'the library was loaded').toBe(0);
  }, 120_000);
});

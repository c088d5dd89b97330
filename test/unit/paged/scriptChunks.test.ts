// Version 11's scriptChunks: a library built with word statistics per script (scriptStatistics) answers from its
// pages as the engine in memory does, the directory says so, and a directory's counts are checked before use.
import { describe, expect, it } from 'vitest';
import { checkDirectory, type PagesDirectory } from '../../../src/core/paged/format.ts';
import { PagedLibrary } from '../../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { writePagedIndex } from '../../../src/core/paged/write.ts';
import { RetrievalEngine } from '../../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import { MIXED_QUESTIONS, mixedPassages } from '../../support/mixedScripts.ts';

const QUESTIONS = MIXED_QUESTIONS;

async function written(scriptStatistics: boolean) {
  const analyzer = createTermAnalyzer();
  const engine = RetrievalEngine.build(mixedPassages({ years: true }), analyzer, { scriptStatistics });
  const pages = await writePagedIndex(engine.lexicalParts(), (docId) => ({ title: docId }), 4096);
  const library = await PagedLibrary.open(
    new MemoryRangeSource(pages.data, 'pages'),
    { base: 0, length: pages.data.length, directory: pages.directory, hashes: pages.hashes },
    analyzer,
  );
  return { engine, pages, library };
}

describe('pages with per-script word statistics (version 11)', () => {
  it('answers as the engine in memory, in the walk and in bm25, and differs from one N', async () => {
    const on = await written(true);
    const off = await written(false);
    expect(on.pages.directory.version).toBe(17);
    expect(on.pages.directory.scriptChunks).toEqual({ other: 30, cjk: 30 });
    // Every part is version 13 (openCoding from 11); only a library built per script has the field.
    expect(off.pages.directory.version).toBe(17);
    expect(off.pages.directory.scriptChunks).toBeUndefined();
    let differs = false;
    for (const q of QUESTIONS) {
      for (const mode of ['ppr', 'bm25'] as const) {
        const memory = on.engine.search({ text: q }, mode, 2000);
        expect((await on.library.search(q, mode, 2000)).hits).toEqual(memory);
        const oneN = (await off.library.search(q, mode, 2000)).hits;
        expect(oneN).toEqual(off.engine.search({ text: q }, mode, 2000));
        if (JSON.stringify(oneN) !== JSON.stringify(memory)) differs = true;
      }
    }
    // The Chinese questions' scores are not the one-N ones: the pages do use the counts.
    expect(differs).toBe(true);
  });

  it('refuses a directory whose scriptChunks are not two chunk counts of a version 11 part, naming the field', async () => {
    const { pages } = await written(true);
    const d = pages.directory;
    const bad = (change: Record<string, unknown>): PagesDirectory =>
      ({ ...d, ...change }) as unknown as PagesDirectory;
    const length = pages.data.length;
    expect(() => checkDirectory(d, length)).not.toThrow();
    for (const change of [
      // Version 10 had neither field: the openCoding left out, scriptChunks is what is refused.
      { version: 10, openCoding: undefined },
      { scriptChunks: { other: 0, cjk: 30 } },
      { scriptChunks: { other: 30, cjk: d.chunkCount + 1 } },
      { scriptChunks: { other: 30, cjk: 1.5 } },
      { scriptChunks: { other: 30, cjk: '30' } },
      { scriptChunks: { other: 30, cjk: 30, latin: 4 } },
      { scriptChunks: [30, 30] },
      { scriptChunks: null },
    ])
      expect(() => checkDirectory(bad(change), length)).toThrow(/scriptChunks/);
  });
});

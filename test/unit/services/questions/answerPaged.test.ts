// A written answer over evidence from pages (a library too large to load, or a bundle read by ranges) cites the
// sentence it used and that sentence's own pages, as over the library in memory: the citations come from the records
// of the chunks the question showed (the paged LibrarySource's citations(), writtenAnswer.ts's recordCitations). The expected
// citations are the in-memory library's, computed here, never copied from output; without either source a citation
// has its chunk's whole page range (what answers over pages cited before).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askLibrary, askPaged } from '../../../support/askOver.ts';
import type { AnswerOut, AskResult } from '../../../../src/services/questions/queryProtocol.ts';
import {
  libraryCitations,
  writeAnswer,
  type CitationSource,
} from '../../../../src/services/questions/writtenAnswer.ts';
import { bothLibraries, type BothLibraries } from '../../../support/pagedLibraries.ts';
import { scriptedClient } from '../../../support/scriptedClient.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../../support/scriptedLlmServer.ts';
import { tinyPdf, type TinyLine } from '../../../support/tinyPdf.ts';

const QUESTION = 'Who rowed across from Tweedmouth at dawn?';
const FERRY = 'The ferryman of Tweedmouth rowed across at dawn.';

let work = '';
let server: ScriptedLlmServer;
let both: BothLibraries;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'answer-paged-'));
  // The model answers with the context's sentence about the ferry, citing its passage.
  server = await startScriptedLlmServer({
    answer: (_question, context) => {
      const sentence = context.split(/(?<=\.)\s+/).find((s) => s.includes('ferryman'));
      return sentence ? `${sentence.trim()} [1]` : 'The documents do not contain the answer.';
    },
  });
  // Four pages in one chunk (no headings to split it): the ferry's sentence is on page 3, so its citation's pages are
  // its own, not the chunk's.
  const pages: TinyLine[][] = [1, 2, 3, 4].map((n) => [
    { text: `Mill ${n} ground ${n * 40} sacks of barley for the village of Norham.`, y: 660 },
    ...(n === 3 ? [{ text: FERRY, y: 640 }] : []),
  ]);
  await writeFile(join(work, 'mills.pdf'), tinyPdf({ pages }));
  await writeFile(join(work, 'river.md'), '# The Tweed\n\nThe Tweed flows east past Norham to the sea.\n');
  await writeFile(
    join(work, 'bridge.md'),
    '# Bridges\n\nA stone bridge at Berwick replaced the ferry in 1634.\n',
  );
  both = await bothLibraries(work);
}, 120_000);
afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

const answer = (source: CitationSource, result: AskResult): Promise<AnswerOut> =>
  writeAnswer(
    scriptedClient(server),
    source,
    { question: QUESTION, evidence: result.evidence },
    undefined,
    new AbortController().signal,
  );

describe('a written answer over evidence from pages', () => {
  it('cites the sentence and its own page, as over the library in memory', async () => {
    const request = { question: QUESTION, mode: 'ppr' as const, budget: 2000 };
    const memory = await askLibrary(both.library, request, {
      kg: () => Promise.reject(new Error('no KG')),
    });
    const paged = await askPaged(both.paged, request);
    expect(paged.evidence.map((e) => e.chunkId)).toEqual(memory.evidence.map((e) => e.chunkId));

    const expected = await answer(libraryCitations(both.library), memory);
    const fromPages = await answer(paged.citations, paged);
    expect(fromPages.citations).toEqual(expected.citations);
    expect(fromPages.text).toBe(expected.text);
    const [cited] = fromPages.citations;
    expect(cited.sentence).toBe(FERRY);
    expect([cited.pageStart, cited.pageEnd]).toEqual([3, 3]);

    // The chunk spans the four pages: without the records (what an answer over pages had before) the citation
    // has the chunk's whole page range.
    expect([paged.evidence[0].pageStart, paged.evidence[0].pageEnd]).toEqual([1, 4]);
    const bare = await answer(libraryCitations(null), paged);
    expect([bare.citations[0].pageStart, bare.citations[0].pageEnd]).toEqual([1, 4]);
  });
});

// Pages from the parser to the reader (issue 22): a PDF's chunks carry their pages into the retrieval results, the
// evidence (an excerpt gets its own pages from the document's page starts) and the answer's citations.
import { describe, expect, it } from 'vitest';
import { parseCitations } from '../../../src/core/answer/citations.ts';
import { prepareFile } from '../../../src/core/prepare.ts';
import { RetrievalEngine, withSectionPaths } from '../../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import { shownEvidence } from '../../../src/services/questions/evidence.ts';
import { tinyPdf, type TinyLine } from '../../support/tinyPdf.ts';

describe('pages in results, evidence and citations', () => {
  it('a bm25 hit on page 3 says p. 3 in the result, the evidence and the citation', async () => {
    const pages: TinyLine[][] = [1, 2, 3, 4].map((n) => [
      { text: `Part ${n}`, y: 700, size: 18 },
      { text: `Mill ${n} ground ${n * 40} sacks of barley for the village of Norham.`, y: 660 },
      ...(n === 3 ? [{ text: 'The ferryman of Tweedmouth rowed across at dawn.', y: 640 }] : []),
    ]);
    const { documents } = await prepareFile('mills.pdf', tinyPdf({ pages }), { maxChunkTokens: 1200 });
    const [pdf] = documents;
    const engine = RetrievalEngine.build(
      { chunks: withSectionPaths([pdf.doc], pdf.sections, pdf.chunks), sentences: pdf.sentences },
      createTermAnalyzer(),
    );
    const [hit] = engine.search({ text: 'ferryman Tweedmouth' }, 'bm25', 12000);
    expect(hit.text).toContain('ferryman');
    expect([hit.pageStart, hit.pageEnd]).toEqual([3, 3]);

    const chunk = pdf.chunks.find((c) => c.id === hit.chunkId)!;
    const evidence = shownEvidence(hit, chunk.start, pdf.doc.title, pdf.doc.pageStarts);
    expect([evidence.pageStart, evidence.pageEnd]).toEqual([3, 3]);
    // Without the document's page starts the chunk's own range is used.
    expect(shownEvidence(hit, chunk.start, pdf.doc.title).pageStart).toBe(3);

    const [citation] = parseCitations('The ferryman rowed at dawn [1].', [
      { chunkId: hit.chunkId, text: hit.text, pageStart: hit.pageStart, pageEnd: hit.pageEnd },
    ]);
    expect([citation.pageStart, citation.pageEnd]).toEqual([3, 3]);
    expect(parseCitations('Plain [1].', [{ chunkId: 'x', text: 'Plain.' }])[0].pageStart).toBeUndefined();
  });
});

// The cited sentence's place on a drawn page (src/core/pageMarks.ts): found among positioned pieces of text that
// differ from the stored text in spaces, case, hyphenation and punctuation, and mapped back onto the pieces' boxes.
import { describe, expect, it } from 'vitest';
import { recognisedWords, sentenceRects } from '../../../src/core/pageMarks.ts';
import type { PageWord } from '../../../src/core/types.ts';

/** Words laid out on lines of a page: each line at `y` (fractions), words 0.1 wide with 0.02 between them. */
function page(lines: string[][], top = 0.1, lineHeight = 0.03): PageWord[] {
  return lines.flatMap((words, row) =>
    words.map((text, i) => ({
      text,
      x0: 0.1 + i * 0.12,
      y0: top + row * lineHeight * 1.5,
      x1: 0.2 + i * 0.12,
      y1: top + row * lineHeight * 1.5 + lineHeight,
    })),
  );
}

describe('sentenceRects', () => {
  const words = page([
    ['Harbour', 'report'],
    ['The', 'lighthouse', 'at', 'Port'],
    ['Ellen', 'was', 're-', 'built.'],
    ['Its', 'lamp', 'was', 'lit.'],
  ]);

  it('marks the sentence line by line, from its first word to its last', () => {
    const rects = sentenceRects(words, 'The lighthouse at Port Ellen was rebuilt.');
    expect(rects).toHaveLength(2);
    // Line 2, from "The" (x 0.1) to "Port" (x 0.56); line 3 from "Ellen" to "built." (x 0.56).
    expect(rects[0]).toEqual({
      x0: 0.1,
      y0: expect.closeTo(0.145, 6),
      x1: expect.closeTo(0.56, 6),
      y1: expect.closeTo(0.175, 6),
    });
    expect(rects[1].x0).toBeCloseTo(0.1, 6);
    expect(rects[1].x1).toBeCloseTo(0.56, 6);
    expect(rects[1].y0).toBeCloseTo(0.19, 6);
  });

  it('marks a share of a piece when the sentence starts inside it (a text item holding a whole line)', () => {
    const line: PageWord[] = [{ text: 'Done. The lamp was lit.', x0: 0.1, y0: 0.5, x1: 0.9, y1: 0.52 }];
    const [rect] = sentenceRects(line, 'The lamp was lit.');
    // "Done" is 4 of the 17 letters compared: the mark starts 4/17 of the way along the item.
    expect(rect.x0).toBeCloseTo(0.1 + (0.8 * 4) / 17, 6);
    expect(rect.x1).toBeCloseTo(0.9, 6);
  });

  it('finds Chinese text whatever the spaces between its characters', () => {
    const zh = page([
      ['港', '口', '的', '灯', '塔'],
      ['用', '花', '岗', '岩', '重', '建'],
    ]);
    const rects = sentenceRects(zh, '灯塔用花岗岩重建。');
    expect(rects).toHaveLength(2);
    expect(rects[0].x0).toBeCloseTo(0.1 + 3 * 0.12, 6);
    expect(rects[1].x1).toBeCloseTo(0.2 + 5 * 0.12, 6);
  });

  it('marks a sentence that runs past the page as far as the page goes', () => {
    const rects = sentenceRects(
      words,
      'Its lamp was lit again on the ninth of March, and the harbour master recorded the date.',
    );
    expect(rects).toHaveLength(1);
    expect(rects[0].y0).toBeCloseTo(0.235, 6);
    expect(rects[0].x1).toBeCloseTo(0.56, 6);
    // …and one that began on the page before, from the page's start.
    const begun = sentenceRects(words, 'The annual count of the Harbour report');
    expect(begun).toHaveLength(1);
    expect(begun[0].y0).toBeCloseTo(0.1, 6);
    expect(begun[0].x1).toBeCloseTo(0.32, 6);
  });

  it('finds a sentence with a misread middle by its head and its tail', () => {
    const long = page([
      ['The', 'keepers', 'of', 'the', 'harbour'],
      ['counted', 'f0ur', 'hundred', 'barrels'],
      ['of', 'grain', 'on', 'the', 'north', 'quay.'],
    ]);
    const rects = sentenceRects(
      long,
      'The keepers of the harbour counted four hundred barrels of grain on the north quay.',
    );
    expect(rects).toHaveLength(3);
  });

  it('marks nothing when the sentence is not on the page', () => {
    expect(sentenceRects(words, 'Barges from the mill crossed the weir twelve times.')).toEqual([]);
    expect(sentenceRects(words, '…')).toEqual([]);
  });
});

describe('recognisedWords', () => {
  const ocr = {
    language: 'eng',
    pages: [{ page: 2, words: [{ text: 'Port', x0: 0.1, y0: 0.2, x1: 0.2, y1: 0.25 }] }],
  };

  it("reads a page's words from the document's record", () => {
    expect(recognisedWords(ocr, 2)).toEqual(ocr.pages[0].words);
    expect(recognisedWords(ocr, 1)).toBeUndefined();
    expect(recognisedWords(undefined, 2)).toBeUndefined();
  });

  it("ignores what a bundle's record holds that is not a word on the page", () => {
    const hostile = {
      pages: [
        null,
        { page: 1, words: [{ text: 'x', x0: -5, y0: 0, x1: 1e9, y1: 1 }, { text: 3 }, 'word', null] },
      ],
    };
    expect(recognisedWords(hostile, 1)).toEqual([]);
    expect(recognisedWords({ pages: 'many' }, 1)).toBeUndefined();
  });
});

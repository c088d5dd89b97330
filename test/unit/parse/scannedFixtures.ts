// The scanned fixtures (test/fixtures/scanned/, made by test/bench/scanned/build.mjs --fixture) and where their
// sentences are printed, read from poppler's word boxes on the text PDFs they were made from: shared by the
// default tier's ocrScan.test.ts and the scale tier's ocrScan.scale.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { recognisedWords, sentenceRects } from '../../../src/core/pageMarks.ts';
import type { RecognisedText } from '../../../src/core/types.ts';

const folder = join(import.meta.dirname, '..', '..', 'fixtures', 'scanned');

export const scannedFixture = (name: string): Uint8Array => new Uint8Array(readFileSync(join(folder, name)));

interface SentencePlace {
  page: number;
  sentence: string;
  lines: { x0: number; y0: number; x1: number; y1: number }[];
}

export const sentencePlace = (name: string): SentencePlace =>
  JSON.parse(readFileSync(join(folder, name), 'utf8')) as SentencePlace;

/**
 * The file's own limit (before the first page starts) is raised: the thread's start and pdf.js's import take
 * seconds on a loaded test machine, and the limits under test here are the page's.
 */
export const FILE_LIMIT_MS = 180_000;

/** The recognised words mark the sentence where poppler places it, line by line, within 0.02 of the page. */
export function expectMarkedWherePrinted(ocr: RecognisedText | undefined, place: SentencePlace): void {
  const rects = sentenceRects(recognisedWords(ocr, place.page) ?? [], place.sentence);
  expect(rects).toHaveLength(place.lines.length);
  rects.forEach((rect, i) => {
    for (const side of ['x0', 'y0', 'x1', 'y1'] as const)
      expect(Math.abs(rect[side] - place.lines[i][side])).toBeLessThan(0.02);
  });
}

// Real text recognition in the CLI's parse thread (Tesseract's WASM in a thread of its own, language data from
// node_modules), on as few recognitions as show each behaviour (the English model only): a two-page scanned report
// (harbour-scan.pdf, image-only) read in the language set comes back with its pages, its running header and page
// footer dropped as in a text PDF, and its words boxed where the page prints them; a page whose letters are
// outlines is drawn and recognised, its language told from the text page beside it; the limit is per page;
// hostile pictures are refused from their header. The language probe of a scan with no text and the Chinese
// setting are in ocrScan.scale.test.ts (and the probe in Chromium in e2e ocr-scan.spec.ts).
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ThreadParser } from '../../../src/cli/threadParser.ts';
import type { OcrProgress } from '../../../src/core/parse/ocr.ts';
import { expectMarkedWherePrinted, FILE_LIMIT_MS, scannedFixture, sentencePlace } from './scannedFixtures.ts';

const progress: OcrProgress[] = [];
const parser = new ThreadParser({
  timeoutMs: FILE_LIMIT_MS,
  ocrLanguage: 'eng',
  onOcrProgress: (_file, p) => progress.push(p),
});
afterAll(() => parser.close());

describe('scanned PDF in the parse thread', () => {
  it('reads both pages in the language set, keeps page numbers, drops the running header and footer', async () => {
    const result = await parser.prepare('harbour-scan.pdf', scannedFixture('harbour-scan.pdf'), 1200);
    expect(result.errors).toEqual([]);
    expect(result.recognised).toEqual({ pages: 2, language: 'eng', languageFrom: 'setting' });
    const { doc } = result.documents[0];
    const text = doc.text.replace(/\s+/g, ' ');
    expect(text).toContain('The lighthouse at Port Ellen was rebuilt in granite after the storm of 1888.');
    expect(text).toContain('four hundred barrels of grain');
    expect(text, 'the running header').not.toContain('Confidential');
    expect(text, 'the page footer').not.toMatch(/page \d of 2/);
    expect(doc.pageStarts).toHaveLength(2);
    expect(doc.text.indexOf('Port Ellen')).toBeGreaterThanOrEqual(doc.pageStarts![1]);
    // The headings, by their size on the scan, are sections as in a text PDF.
    expect(result.documents[0].sections.map((s) => s.heading)).toEqual(
      expect.arrayContaining(['1. The quays', '2. The lighthouse']),
    );
    // The recognised words are kept with their boxes on the page and the language's source.
    expect(doc.ocr?.language).toBe('eng');
    expect(doc.ocr?.languageFrom).toBe('setting');
    expect(doc.ocr?.pages.map((p) => p.page)).toEqual([1, 2]);
    expectMarkedWherePrinted(doc.ocr, sentencePlace('harbour-scan.truth.json'));
    // Page by page; a language set means no first page read to tell it.
    expect(progress.map((p) => `${p.page}/${p.pages} ${p.language ?? '?'}`)).toEqual(['1/2 eng', '2/2 eng']);
  }, 240_000);

  it('draws and recognises a page whose letters are vector outlines, and only that page of a mixed PDF', async () => {
    const auto = new ThreadParser({ timeoutMs: FILE_LIMIT_MS });
    try {
      const result = await auto.prepare('harbour-outlines.pdf', scannedFixture('harbour-outlines.pdf'), 1200);
      expect(result.errors).toEqual([]);
      // Page 1 has its text layer, which tells the language; page 2 (no text, no picture) is drawn and recognised.
      expect(result.recognised).toEqual({ pages: 1, language: 'eng', languageFrom: 'text' });
      const { doc } = result.documents[0];
      const place = sentencePlace('harbour-outlines.truth.json');
      const text = doc.text.replace(/\s+/g, ' ');
      expect(text).toContain('The ferry to the island sailed twice a day in summer');
      expect(text).toContain(place.sentence);
      expect(doc.text.indexOf('signal station on the headland')).toBeGreaterThanOrEqual(doc.pageStarts![1]);
      expect(doc.ocr?.pages.map((p) => p.page)).toEqual([2]);
      expectMarkedWherePrinted(doc.ocr, place);
    } finally {
      await auto.close();
    }
  }, 240_000);

  it('stops a page that runs past the per-page limit, naming the page', async () => {
    const strict = new ThreadParser({ timeoutMs: FILE_LIMIT_MS, pageTimeoutMs: 50, ocrLanguage: 'eng' });
    try {
      const result = await strict.prepare('harbour-scan.pdf', scannedFixture('harbour-scan.pdf'), 1200);
      expect(result.documents).toEqual([]);
      expect(result.errors[0].reason).toMatch(/^took too long to recognise page 1 of 2 \(over 50 ms\)$/);
    } finally {
      await strict.close();
    }
  });

  it('refuses a decompression bomb and a damaged PNG with the reason, in bounded time', async () => {
    const header = (w: number, h: number) => {
      const b = Buffer.alloc(33);
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(b);
      b.write('IHDR', 12, 'latin1');
      b.writeUInt32BE(w, 16);
      b.writeUInt32BE(h, 20);
      b[24] = 8;
      return b;
    };
    const started = performance.now();
    const bomb = await parser.prepare(
      'bomb.png',
      new Uint8Array(Buffer.concat([header(60_000, 60_000), deflateSync(Buffer.alloc(1 << 20))])),
      1200,
    );
    expect(bomb.errors[0].reason).toMatch(/^the image is too large to recognise \(60000 × 60000 pixels/);
    // A valid header over garbage: the decoder fails, the file gets its reason, the thread goes on.
    const damaged = await parser.prepare(
      'damaged.png',
      new Uint8Array(Buffer.concat([header(400, 300), Buffer.from('IDAT not really deflate data')])),
      1200,
    );
    expect(damaged.documents).toEqual([]);
    expect(damaged.errors[0].reason).toMatch(/^not a readable image \(Error attempting to read image\.\)$/);
    expect(performance.now() - started).toBeLessThan(FILE_LIMIT_MS);
  });
});

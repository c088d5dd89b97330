// Bounds on compressed and line-based inputs (src/core/parse/limits.ts, jsonl.ts): a .docx or PDF that inflates
// past the limit, a PDF with too many pages and a .jsonl of many bad lines each get a short, specific reason
// naming the limit; ordinary files of the same kinds still parse.
import { describe, expect, it } from 'vitest';
import { ParseError, parseFile } from '../../../src/core/parse/index.ts';
import { MAX_LINE_ERRORS } from '../../../src/core/parse/jsonl.ts';
import { checkPdfInflatedSize, checkZipInflatedSize } from '../../../src/core/parse/limits.ts';
import { docx, docxBomb, jsonlWithBadLines, pdfBomb, pdfPages } from '../../support/hostileCorpus.ts';

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ParseError);
    return (error as ParseError).reason;
  }
  throw new Error('expected a ParseError');
}

const MB = 1024 * 1024;

describe('decompressed size and page limits', () => {
  it('refuses a .docx that inflates past the limit before mammoth reads it, and reads one below it', async () => {
    expect(() => checkZipInflatedSize('b.docx', docxBomb(3), 2 * MB)).toThrow(
      'the .docx expands to more than 2 MB when decompressed (the limit is 2 MB)',
    );
    expect(() => checkZipInflatedSize('b.docx', docxBomb(1), 2 * MB)).not.toThrow();
    expect(await reasonOf(parseFile('bomb.docx', docxBomb(256)))).toBe(
      'the .docx expands to more than 200 MB when decompressed (the limit is 200 MB)',
    );
    const ok = await parseFile('ok.docx', docx('The weir holds the water back.'));
    expect(ok.documents[0].text).toBe('The weir holds the water back.');
  }, 60_000);

  it('refuses a PDF whose streams inflate past the limit, and reads one below it', async () => {
    expect(() => checkPdfInflatedSize('b.pdf', pdfBomb(3), 2 * MB)).toThrow(
      'the PDF expands to more than 2 MB when decompressed (the limit is 2 MB)',
    );
    expect(await reasonOf(parseFile('bomb.pdf', pdfBomb(256)))).toBe(
      'the PDF expands to more than 200 MB when decompressed (the limit is 200 MB)',
    );
    const small = await parseFile('small.pdf', pdfBomb(1));
    expect(small.documents[0].text).toBe('bomb');
  }, 60_000);

  it('refuses a PDF with more pages than the limit', async () => {
    expect(await reasonOf(parseFile('pages.pdf', pdfPages(3000)))).toBe(
      'the PDF has 3000 pages (the limit is 2000 pages per file)',
    );
  }, 60_000);
});

describe('.jsonl with many bad lines', () => {
  it(`lists the first ${MAX_LINE_ERRORS} bad lines and counts the rest; good lines still become documents`, async () => {
    const result = await parseFile('many.jsonl', jsonlWithBadLines(5_000, 2));
    expect(result.documents).toHaveLength(2);
    expect(result.errors).toHaveLength(MAX_LINE_ERRORS + 1);
    expect(result.errors[0].reason).toMatch(/^line 3: not valid JSON/);
    expect(result.errors[MAX_LINE_ERRORS - 1].reason).toMatch(/^line 22: /);
    expect(result.errors[MAX_LINE_ERRORS]).toEqual({
      file: 'many.jsonl',
      reason: `and 4980 more bad lines (5000 in all; the first ${MAX_LINE_ERRORS} are listed)`,
    });
  });
});

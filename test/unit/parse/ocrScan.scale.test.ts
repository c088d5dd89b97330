// Scale tier: the recognitions that cost minutes on a loaded machine (the Chinese model, and a scan with no text
// read once more to tell its language). The default tier's ocrScan.test.ts checks the rest on the English model.
// Real text recognition in the CLI's parse thread (Tesseract's WASM in a thread of its own, language data from
// node_modules), and `cli bench --ocr-language` over a folder with a scan.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { run as bench } from '../../../src/cli/bench.ts';
import { ThreadParser } from '../../../src/cli/threadParser.ts';
import type { OcrProgress } from '../../../src/core/parse/ocr.ts';
import { expectMarkedWherePrinted, FILE_LIMIT_MS, scannedFixture, sentencePlace } from './scannedFixtures.ts';

const progress: OcrProgress[] = [];
const parser = new ThreadParser({ timeoutMs: FILE_LIMIT_MS, onOcrProgress: (_file, p) => progress.push(p) });
afterAll(() => parser.close());

describe('scanned PDF in the parse thread: the language', () => {
  it('tells the language of a scan with no text from its first page, then reads every page in it', async () => {
    const result = await parser.prepare('harbour-scan.pdf', scannedFixture('harbour-scan.pdf'), 1200);
    expect(result.errors).toEqual([]);
    expect(result.recognised).toEqual({ pages: 2, language: 'eng', languageFrom: 'page' });
    const { doc } = result.documents[0];
    expect(doc.text.replace(/\s+/g, ' ')).toContain(
      'The lighthouse at Port Ellen was rebuilt in granite after the storm of 1888.',
    );
    expect(doc.ocr?.languageFrom).toBe('page');
    expectMarkedWherePrinted(doc.ocr, sentencePlace('harbour-scan.truth.json'));
    // The first page read (with the Chinese model) to tell the language, then both pages in English.
    expect(progress.map((p) => `${p.page}/${p.pages} ${p.language ?? '?'}`)).toEqual([
      '1/2 ?',
      '1/2 eng',
      '2/2 eng',
    ]);
  }, 240_000);

  it("reads scans in the language the person set, over the one the document's text suggests", async () => {
    const chinese = new ThreadParser({ timeoutMs: FILE_LIMIT_MS, ocrLanguage: 'chi_sim' });
    try {
      const result = await chinese.prepare(
        'harbour-outlines.pdf',
        scannedFixture('harbour-outlines.pdf'),
        1200,
      );
      // Its text page is English ('auto' reads it in English, in ocrScan.test.ts); the setting says Chinese.
      expect(result.recognised).toEqual({ pages: 1, language: 'chi_sim', languageFrom: 'setting' });
      expect(result.documents[0].doc.ocr?.language).toBe('chi_sim');
    } finally {
      await chinese.close();
    }
  }, 240_000);

  it('cli bench --ocr-language reads a folder’s scans in the language given', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'bench-ocr-'));
    try {
      writeFileSync(join(folder, 'harbour-outlines.pdf'), scannedFixture('harbour-outlines.pdf'));
      const questions = join(folder, '..', `${folder.split('/').at(-1)}.jsonl`);
      writeFileSync(
        questions,
        `${JSON.stringify({ id: 'q1', question: 'Who sailed to the island?', answers: ['ferry'], supporting: ['harbour-outlines'] })}\n`,
      );
      let err = '';
      const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
        err += String(chunk);
        return true;
      });
      const o = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
      let code: number;
      try {
        code = await bench([
          '--corpus',
          folder,
          '--questions',
          questions,
          '--modes',
          'bm25',
          '--embedder',
          'none',
          '--ocr-language',
          'chi_sim',
        ]);
      } finally {
        e.mockRestore();
        o.mockRestore();
        rmSync(questions, { force: true });
      }
      expect(code, err).toBe(0);
      expect(err).toContain('bench: harbour-outlines.pdf: recognising page 1 of 1 (Chinese)');
      expect(err).not.toContain('(English)');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 240_000);
});

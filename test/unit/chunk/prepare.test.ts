import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/core/hash.ts';
import { prepareFile } from '../../../src/core/prepare.ts';

const fixture = (name: string): Uint8Array =>
  new Uint8Array(readFileSync(fileURLToPath(new URL(`../../fixtures/docs/${name}`, import.meta.url))));

describe('prepareFile', () => {
  it('parses, hashes and chunks: id = d + 16 hex of sha256(text), records point into the text', async () => {
    const { documents, errors } = await prepareFile('hello.txt', fixture('hello.txt'), { now: 42 });
    expect(errors).toEqual([]);
    expect(documents).toHaveLength(1);
    const { doc, sections, chunks, sentences } = documents[0];
    const hash = await sha256Hex(doc.text);
    expect(doc).toEqual({
      id: `d${hash.slice(0, 16)}`,
      title: 'hello',
      sourceName: 'hello.txt',
      mime: 'text/plain',
      size: 113,
      hash,
      addedAt: 42,
      text: 'Hello from a plain text file.\nDr. Smith wrote it in the U.S. last year.\n\nA second paragraph follows here.',
    });
    expect(sections).toHaveLength(1);
    expect(chunks).toHaveLength(1);
    expect(sentences.map((s) => s.text)).toEqual([
      'Hello from a plain text file.',
      'Dr. Smith wrote it in the U.S. last year.',
      'A second paragraph follows here.',
    ]);
  });

  it('gives identical content the same id whatever the file name or format', async () => {
    const a = await prepareFile('a.txt', new TextEncoder().encode('Same words here.'));
    const b = await prepareFile('b.md', new TextEncoder().encode('Same words here.\n'));
    expect(a.documents[0].doc.id).toBe(b.documents[0].doc.id);
  });

  it('returns .jsonl documents with externalId and the bad line as an error, once per identical text', async () => {
    const source = fixture('passages.jsonl');
    const doubled = new Uint8Array([
      ...source,
      ...new TextEncoder().encode(
        '{"id":"p9","title":"Lothair II","text":"Lothair II was a son of Lothair I and Ermengarde of Tours."}\n',
      ),
    ]);
    const { documents, errors } = await prepareFile('passages.jsonl', doubled, { maxChunkTokens: 64 });
    expect(documents.map((d) => [d.doc.externalId, d.doc.sourceName])).toEqual([
      ['p1', 'passages.jsonl#1'],
      ['p2', 'passages.jsonl#2'],
      ['3', 'passages.jsonl#5'],
    ]);
    expect(errors).toHaveLength(1);
    expect(errors[0].reason).toMatch(/^line 4: /);
  });

  it('never throws: bad files and bad options come back as FileError', async () => {
    expect(await prepareFile('empty.txt', fixture('empty.txt'))).toEqual({
      documents: [],
      errors: [{ file: 'empty.txt', reason: 'the file is empty' }],
    });
    const corrupt = await prepareFile('corrupt.pdf', fixture('corrupt.pdf'));
    expect(corrupt.errors[0].reason).toMatch(/^not a valid PDF/);
    const tiny = await prepareFile('hello.txt', fixture('hello.txt'), { maxChunkTokens: 2 });
    expect(tiny.documents).toEqual([]);
    expect(tiny.errors[0]).toEqual({
      file: 'hello.txt',
      reason: 'could not read the file (chunk: maxTokens must be a number ≥ 16, got 2)',
    });
  });

  it('prepares every fixture format into chunks within the limit', async () => {
    for (const name of ['notes.md', 'page.html', 'report.pdf', 'memo.docx']) {
      const { documents, errors } = await prepareFile(name, fixture(name), { maxChunkTokens: 32 });
      expect(errors, name).toEqual([]);
      const [prepared] = documents;
      expect(prepared.chunks.length, name).toBeGreaterThan(0);
      for (const chunk of prepared.chunks) expect(chunk.tokens, name).toBeLessThanOrEqual(32);
      expect(prepared.sections.map((s) => s.heading).filter(Boolean).length, name).toBeGreaterThan(0);
    }
  });
});

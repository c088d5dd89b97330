// The parser says how far it has got (prepareFile's onProgress), so that the ingest pipeline stops a parse that makes
// no progress rather than one a busy machine makes slow (src/services/ingest/parseWatch.ts): a PDF reports each page
// as its text is read, a .jsonl the passages it has chunked.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ParseProgress } from '../../../src/core/parse/index.ts';
import { prepareFile } from '../../../src/core/prepare.ts';

const fixture = (path: string): Uint8Array =>
  new Uint8Array(readFileSync(fileURLToPath(new URL(`../../fixtures/${path}`, import.meta.url))));

describe('parse progress', () => {
  it('a PDF reports every page, in order, with the page count', async () => {
    const heard: ParseProgress[] = [];
    const { documents } = await prepareFile('page.pdf', fixture('browser-print/page.pdf'), {
      onProgress: (p) => heard.push(p),
    });
    const pages = documents[0].doc.pageStarts!.length;
    const read = heard.filter((p) => p.unit === 'page');
    expect(read).toEqual(
      Array.from({ length: pages }, (_, i) => ({ unit: 'page', done: i + 1, total: pages })),
    );
  });

  it('a .jsonl reports its passages as they are chunked, the last one included', async () => {
    const heard: ParseProgress[] = [];
    const { documents } = await prepareFile('corpus.jsonl', fixture('musique-300/corpus.jsonl'), {
      onProgress: (p) => heard.push(p),
    });
    expect(heard.length).toBeGreaterThan(0);
    expect(heard.every((p) => p.unit === 'document' && p.total === documents.length)).toBe(true);
    expect(heard.at(-1)!.done).toBe(documents.length - 1);
    for (let i = 1; i < heard.length; i++) expect(heard[i].done).toBeGreaterThan(heard[i - 1].done);
  });
});

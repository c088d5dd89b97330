// Opening a shared link's bundle over HTTP (issue 47, round fourteen): the probe's 12 bytes are the preamble, the
// locator is asked beside it, and the manifest in one range up to the locator: four requests (probe, locator,
// manifest, the pages' `open` section with its hash page), three rounds after the probe, where it took six requests.
// Counted on the loopback static server, a real bundle written by the app's writers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPagedBundle } from '../../../../src/core/paged/openBundle.ts';
import { createTermAnalyzer } from '../../../../src/core/text/index.ts';
import { HttpRangeSource } from '../../../../src/services/bundleBytes/rangeSources.ts';
import { serveStatic } from '../../../e2e/lib/staticServer.ts';
import { honestPages, PAGES_QUESTION, pagesBundle } from '../../../support/hostilePages.ts';

const root = mkdtempSync(join(tmpdir(), 'conceptrag-opening-rounds-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('opening a bundle by ranges over HTTP', () => {
  it('asks the preamble once (the probe), the locator beside it, and the manifest as one range', async () => {
    const bytes = await pagesBundle(await honestPages(4, 512));
    writeFileSync(join(root, 'lib.bundle'), bytes);
    const size = bytes.length;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const at = view.getUint32(size - 12, true) + view.getUint32(size - 8, true) * 2 ** 32;
    const server = await serveStatic(root, { ranges: true, multiRange: 'multipart', log: true });
    const asked: string[] = [];
    const spy: typeof fetch = (input, init) => {
      asked.push(new Headers(init?.headers).get('range') ?? '');
      return fetch(input, init);
    };
    try {
      const source = (await HttpRangeSource.open(`${server.origin}/lib.bundle`, spy))!;
      const opened = (await openPagedBundle(source, createTermAnalyzer()))!;
      expect(asked.slice(0, 3)).toEqual([
        'bytes=0-11',
        `bytes=${size - 12}-${size - 1}`,
        `bytes=${at}-${size - 13}`,
      ]);
      // Then the `open` section (and its hash page, in the same request): nothing else.
      expect(asked).toHaveLength(4);
      expect(source.requests).toBe(4);
      // The library opened is the one the bundle holds: it answers.
      expect((await opened.library.search(PAGES_QUESTION, 'ppr', 800)).hits.length).toBeGreaterThan(0);
      // The preamble read again costs no request; it is the file's.
      const before = source.requests;
      expect(await source.read(0, 12)).toEqual(bytes.subarray(0, 12));
      expect(await source.read(4, 8)).toEqual(bytes.subarray(4, 12));
      expect(source.requests).toBe(before);
    } finally {
      await server.close();
    }
  });
});

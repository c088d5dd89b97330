// Before a bundle is imported: its manifest, read from the file's last bytes, says how much text it holds and
// whether it has pages; the library it makes is compared with what the tab can use, and a bundle with pages is
// offered read-only instead.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as index } from '../../../src/cli/index.ts';
import {
  checkBundleFit,
  readBundleFacts,
  wholeBundleRefusal,
  type BundleFacts,
} from '../../../src/ui/estimates/bundleFit.ts';
import { memoryBudget } from '../../../src/ui/estimates/memoryEstimate.ts';

const MB = 1024 * 1024;

describe('bundle fit', () => {
  const facts = (over: Partial<BundleFacts> = {}): BundleFacts => ({
    name: 'team.bundle',
    textBytes: 100 * MB,
    vectors: false,
    pages: true,
    pagesOnly: false,
    ...over,
  });

  it('measures the library after the import with the query worker’s line: lexical, or with vectors', () => {
    // 100 MB of text, lexical: 26 MB + 21.7 MB per MB of text (limits.md) is about 2.1 GB, over a 1 GB tab.
    const lexical = checkBundleFit(facts(), {
      storedSentences: 0,
      budget: memoryBudget({ overrideMB: 1024 }),
    });
    expect(lexical?.need).toBeCloseTo((26 + 21.7 * 100) * MB, -3);
    expect(lexical?.message).toMatch(/team\.bundle holds about 100(\.0)? MB of text\./);
    expect(lexical?.message).toContain('opened read-only, it is read by ranges');
    // The same bundle fits a 3 GB tab.
    expect(
      checkBundleFit(facts(), { storedSentences: 0, budget: memoryBudget({ overrideMB: 3072 }) }),
    ).toBeNull();
    // With vectors, 51 MB + 84.6 MB per MB: 20 MB of text needs about 1.7 GB.
    const semantic = checkBundleFit(facts({ textBytes: 20 * MB, vectors: true }), {
      storedSentences: 0,
      budget: memoryBudget({ overrideMB: 1024 }),
    });
    expect(semantic?.need).toBeCloseTo((51 + 84.6 * 20) * MB, -3);
    expect(semantic?.message).toContain('with sentence vectors');
  });

  it('counts the library already in the browser, and says how to get pages when the bundle has none', () => {
    const small = facts({ textBytes: 10 * MB, pages: false });
    const budget = memoryBudget({ overrideMB: 512 });
    // 10 MB alone: 26 + 217 = 243 MB fits; with 2 M sentences already stored (~305 MB of text) it does not.
    expect(checkBundleFit(small, { storedSentences: 0, budget })).toBeNull();
    const crowded = checkBundleFit(small, { storedSentences: 2_000_000, budget });
    expect(crowded).not.toBeNull();
    expect(crowded!.message).toContain('It has no paged index');
    expect(crowded!.message).toContain('--embedder none --pages');
  });

  it('refuses a shared index read whole (?bundle=) when its library alone would not fit, with the numbers', () => {
    const budget = memoryBudget({ overrideMB: 512 });
    // 10 MB of text, lexical: 26 + 217 = 243 MB, under 512 MB: opened.
    expect(wholeBundleRefusal('/team.bundle', { textBytes: 10 * MB, vectors: false }, budget)).toBeNull();
    // 30 MB: 26 + 651 = 677 MB, over it: refused before the text is read, saying what to do instead.
    const refusal = wholeBundleRefusal('/team.bundle', { textBytes: 30 * MB, vectors: false }, budget);
    expect(refusal).toMatch(/^\/team\.bundle holds about 30(\.0)? MB of text and is read whole here/);
    expect(refusal).toMatch(
      /need about 677(\.\d)? MB of memory for questions; this tab can use about 512(\.0)? MB/,
    );
    expect(refusal).toContain('so it was not opened');
    expect(refusal).toContain('--embedder none --pages');
    // With vectors the line is the semantic one: 5 MB of text (51 + 423 = 474 MB) fits, 6 MB (559 MB) does not.
    expect(wholeBundleRefusal('/v.bundle', { textBytes: 5 * MB, vectors: true }, budget)).toBeNull();
    expect(wholeBundleRefusal('/v.bundle', { textBytes: 6 * MB, vectors: true }, budget)).toContain(
      'of text with sentence vectors',
    );
  });
});

describe('bundle facts from a file', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bundle-fit-'));
    await writeFile(
      join(dir, 'a.md'),
      '# Tides\n\nThe moon raises two tides a day on the open sea.\n\n## Springs\n\nSpring tides follow new moons.\n',
    );
    await writeFile(join(dir, 'b.md'), '# Winds\n\nTrade winds blow from the east across the tropics.\n');
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    for (const [out, flag] of [
      ['pages.bundle', '--pages'],
      ['whole.bundle', null],
      ['stream.bundle', '--stream'],
    ] as const) {
      const args = [join(dir, 'a.md'), join(dir, 'b.md'), '--out', join(dir, out), '--embedder', 'none'];
      expect(await index([...args, ...(flag ? [flag] : []), '--quiet'])).toBe(0);
    }
    vi.restoreAllMocks();
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const fileOf = async (name: string) => new File([await readFile(join(dir, name))], name);

  it('reads the text size, the layer and the pages from the manifest', async () => {
    const withPages = await readBundleFacts(await fileOf('pages.bundle'));
    expect(withPages).toMatchObject({ name: 'pages.bundle', vectors: false, pages: true });
    // documents.jsonl holds both texts once, with ids and titles around them.
    const texts =
      (await readFile(join(dir, 'a.md'), 'utf8')).length + (await readFile(join(dir, 'b.md'), 'utf8')).length;
    expect(withPages!.textBytes).toBeGreaterThanOrEqual(texts * 0.8);
    expect(withPages!.textBytes).toBeLessThan(texts * 4);
    expect(await readBundleFacts(await fileOf('whole.bundle'))).toMatchObject({
      pages: false,
      pagesOnly: false,
    });
  });

  it('offers a bundle of pages only (cli index --stream) read-only whatever the tab holds: it cannot be imported', async () => {
    const facts = await readBundleFacts(await fileOf('stream.bundle'));
    expect(facts).toMatchObject({ name: 'stream.bundle', pages: true, pagesOnly: true });
    const check = checkBundleFit(facts!, {
      storedSentences: 0,
      budget: memoryBudget({ overrideMB: 64 * 1024 }),
    });
    expect(check?.message).toContain('stream.bundle holds only a library read by ranges');
  });

  it('tells nothing about a file that is not a bundle (the import then refuses it by name)', async () => {
    await writeFile(join(dir, 'notes.bundle'), 'not a bundle at all, only some text that is long enough');
    expect(await readBundleFacts(await fileOf('notes.bundle'))).toBeNull();
  });
});

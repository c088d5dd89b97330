// Version 6's `open` (compactOpen.ts, PagesOpenV6): counts, BM25 lengths and group sizes as varints. Every value is
// checked before it is kept: a count that would wrap in its u32 array (and then pass every check against the
// directory as an honest count), a length a float32 would round, varints that end inside a value, sizes that do not
// add up to their section: each refused at open, naming the field.
import { describe, expect, it } from 'vitest';
import type { PagesOpenV6 } from '../../../src/core/paged/format.ts';
import { PagedLibrary } from '../../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { ByteReader, ByteWriter } from '../../../src/core/paged/bytes.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import {
  assemble,
  honestPages,
  PAGES_QUESTION,
  piecesOf,
  type WrittenPagesLike,
} from '../../support/hostilePages.ts';

const analyzer = createTermAnalyzer();

function open(written: WrittenPagesLike): Promise<PagedLibrary> {
  return PagedLibrary.open(
    new MemoryRangeSource(written.data, 'crafted.bundle'),
    { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
    analyzer,
  );
}

function decode(bytes: Uint8Array): number[] {
  const r = new ByteReader(bytes);
  const out: number[] = [];
  while (r.at < bytes.length) out.push(r.varint());
  return out;
}

function encode(values: readonly number[]): Uint8Array {
  const w = new ByteWriter();
  for (const v of values) w.varint(v);
  return w.take();
}

/** Version 6 pages (a large library's layout) with one `open` field's varints changed. */
async function withField(
  key: 'conceptCounts' | 'textLengths' | 'df' | 'rowGroups',
  change: (values: number[]) => number[] | Uint8Array,
): Promise<WrittenPagesLike> {
  const p = piecesOf(await honestPages(6, 512, 0));
  const stored = p.open as unknown as PagesOpenV6;
  const field = stored[key];
  if (!(field instanceof Uint8Array)) throw new Error(`${key} is not varints in version 6`);
  const changed = change(decode(field));
  (stored as unknown as Record<string, unknown>)[key] =
    changed instanceof Uint8Array ? changed : encode(changed);
  return assemble(p);
}

describe('version 6 open', { timeout: 120_000 }, () => {
  it('holds its counts, lengths and group sizes as varints, and answers as version 5 pages', async () => {
    const v6 = await honestPages(6, 512, 0);
    const v5 = await honestPages(5, 512, 0);
    const p = piecesOf(v6);
    for (const key of [
      'conceptCounts',
      'tokens',
      'documentChunks',
      'df',
      'textLengths',
      'rowGroups',
    ] as const)
      expect((p.open as unknown as PagesOpenV6)[key], key).toBeInstanceOf(Uint8Array);
    expect(v6.directory.sections.open[1]).toBeLessThan(v5.directory.sections.open[1]);
    const [lib5, lib6] = await Promise.all([open(v5), open(v6)]);
    expect((await lib6.search(PAGES_QUESTION, 'ppr', 1000)).hits).toEqual(
      (await lib5.search(PAGES_QUESTION, 'ppr', 1000)).hits,
    );
  });

  it('refuses a count past 2^32 − 1, which its u32 array would wrap into the honest count', async () => {
    // 2^32 more than the honest first count: as a u32 it is the honest count, and every other check would pass.
    const crafted = await withField('conceptCounts', (v) => [v[0] + 2 ** 32, ...v.slice(1)]);
    await expect(open(crafted)).rejects.toThrow(
      'crafted.bundle: pages.bin (open) has conceptCounts that do not fit 32 bits',
    );
  });

  it('refuses a BM25 length above 2^24 as a varint (a float32 would round it)', async () => {
    const crafted = await withField('textLengths', (v) => [2 ** 24 + 1, ...v.slice(1)]);
    await expect(open(crafted)).rejects.toThrow(
      'crafted.bundle: pages.bin (open) has textLengths above 2^24 as varints',
    );
  });

  it('refuses varints that end inside a value, and sizes that do not cover their section', async () => {
    const cut = await withField('df', (v) => {
      const bytes = encode(v);
      const out = new Uint8Array(bytes.length + 1);
      out.set(bytes);
      out[bytes.length] = 0x80;
      return out;
    });
    await expect(open(cut)).rejects.toThrow('crafted.bundle: pages.bin (open) df end inside a varint');
    const grown = await withField('rowGroups', (v) => [v[0] + 1, ...v.slice(1)]);
    await expect(open(grown)).rejects.toThrow(
      'crafted.bundle: pages.bin rowGroups do not cover their section',
    );
    const more = await withField('df', (v) => [...v, 1]);
    await expect(open(more)).rejects.toThrow(/crafted\.bundle: pages\.bin \(open\) .*expected/);
  });
});

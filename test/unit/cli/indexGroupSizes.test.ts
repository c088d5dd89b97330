// `cli index --group-sizes`: the items a gzip'd group of the grouped sections holds (records, word and concept
// dictionary entries, chunk rows). The directory holds the sizes a part was written with and the reader reads any: a
// bundle written with other sizes answers every question exactly as one written with the default, and --pages and
// --stream write the same bytes for the same sizes. A malformed value is refused before a file is read.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parseGroupSizes, run as index } from '../../../src/cli/index.ts';
import { DEFAULT_GROUPS, readManifestByRanges } from '../../../src/core/paged/index.ts';
import { openPagedBundle } from '../../../src/core/paged/openBundle.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'conceptrag-group-sizes-'));
const docs = join(dir, 'docs');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(docs);
const RIVERS = ['Vltava', 'Danube', 'Rhine', 'Elbe', 'Oder', 'Tiber'];
for (let i = 0; i < 6; i++) {
  const river = RIVERS[i];
  const sections = Array.from(
    { length: 4 },
    (_, s) =>
      `## ${river} section ${s}\n\n` +
      Array.from(
        { length: 12 },
        (_, k) =>
          `Sentence ${k} says the ${river} river passes bridge ${k + s} near mill ${(k * 7 + i) % 11} and ` +
          `the ${RIVERS[(i + k) % RIVERS.length]} harbour.`,
      ).join(' '),
  );
  writeFileSync(join(docs, `page${i}.md`), `# Page on the ${river}\n\n${sections.join('\n\n')}\n`);
}

async function quietly(fn: () => Promise<number>): Promise<{ code: number; err: string }> {
  let err = '';
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
  const o = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    return { code: await fn(), err };
  } finally {
    e.mockRestore();
    o.mockRestore();
  }
}

async function pagesPart(bytes: Uint8Array): Promise<{ meta: unknown; bytes: Uint8Array }> {
  const manifest = await readManifestByRanges(new MemoryRangeSource(bytes));
  const p = manifest?.parts.find((x) => x.name === 'pages.bin');
  if (!p?.offset) throw new Error('no pages');
  return { meta: p.meta, bytes: bytes.subarray(p.offset, p.offset + p.length) };
}

const QUESTIONS = [
  'Which river passes bridge 3?',
  'Where is the Elbe harbour?',
  'mill 5 on the Tiber',
  'What does section 2 of the Danube page say?',
];

/** Every answer of a bundle in the default mode and in bm25: its hits (chunk, score) and its evidence records. */
async function answersOf(bytes: Uint8Array): Promise<unknown[]> {
  const opened = await openPagedBundle(new MemoryRangeSource(bytes, 'x.bundle'), createTermAnalyzer());
  if (!opened) throw new Error('not a paged bundle');
  const out: unknown[] = [];
  for (const mode of ['ppr', 'bm25'] as const)
    for (const q of QUESTIONS) {
      const a = await opened.library.search(q, mode, 2000);
      out.push({ q, mode, hits: a.hits, records: [...a.records.entries()] });
    }
  return out;
}

describe('cli index --group-sizes', () => {
  it('reads name=size pairs over the default and refuses anything else', () => {
    expect(parseGroupSizes('records=6')).toEqual({ ...DEFAULT_GROUPS, records: 6 });
    expect(parseGroupSizes('rows=2, terms=5,concepts=7,records=3')).toEqual({
      records: 3,
      terms: 5,
      concepts: 7,
      rows: 2,
    });
    for (const bad of [
      '',
      'records',
      'records=0',
      'records=4,records=8',
      'postings=8',
      'terms=1.5',
      'rows=65537',
    ])
      expect(parseGroupSizes(bad), bad).toBeUndefined();
  });

  it('refuses a malformed value, naming the flag', async () => {
    const { code, err } = await quietly(() =>
      index([
        docs,
        '--out',
        join(dir, 'never.bundle'),
        '--embedder',
        'none',
        '--pages',
        '--group-sizes',
        'x=1',
      ]),
    );
    expect(code).toBe(2);
    expect(err).toMatch(/^index: --group-sizes takes name=size pairs/);
  });

  it('writes the sizes given, the same bytes with --pages and --stream, and answers as the default', async () => {
    const sizes = 'records=3,terms=5,concepts=7,rows=2';
    const built: Record<string, Uint8Array> = {};
    for (const [name, flags] of [
      ['default', ['--pages']],
      ['pages', ['--pages', '--group-sizes', sizes]],
      ['stream', ['--stream', '--group-sizes', sizes]],
    ] as const) {
      const out = join(dir, `${name}.bundle`);
      const { code } = await quietly(() =>
        index([docs, '--out', out, '--embedder', 'none', ...flags, '--quiet']),
      );
      expect(code).toBe(0);
      built[name] = new Uint8Array(readFileSync(out));
    }
    const pages = await pagesPart(built.pages);
    const stream = await pagesPart(built.stream);
    const fallback = await pagesPart(built.default);
    // A library this small keeps its concept lists in its rows (pages version 4): the rows are then one group of
    // every chunk, whatever size was given.
    const chunks = (pages.meta as { chunkCount: number }).chunkCount;
    expect((pages.meta as { listsInRows?: boolean }).listsInRows).toBe(true);
    expect((pages.meta as { groups: unknown }).groups).toEqual({
      records: 3,
      terms: 5,
      concepts: 7,
      rows: chunks,
    });
    expect((fallback.meta as { groups: unknown }).groups).toEqual({ ...DEFAULT_GROUPS, rows: chunks });
    expect(Buffer.compare(Buffer.from(pages.bytes), Buffer.from(stream.bytes))).toBe(0);
    // The small groups are many (so the reader's group arithmetic is exercised), and the part is not the default's.
    expect(Buffer.compare(Buffer.from(pages.bytes), Buffer.from(fallback.bytes))).not.toBe(0);
    const expected = await answersOf(built.default);
    expect(expected.some((a) => (a as { hits: unknown[] }).hits.length > 0)).toBe(true);
    expect(await answersOf(built.pages)).toEqual(expected);
    expect(await answersOf(built.stream)).toEqual(expected);
  }, 120_000);
});

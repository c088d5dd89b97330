// `cli index --stream` (src/cli/streamIndex.ts) writes the same library read by ranges as the in-memory build
// (snapshotFromFiles → buildEngine → writePagedIndex): pages.bin and pages.sha256 byte for byte, and the same
// directory, on the frozen copy of this repository's docs (Markdown with headings: BM25F), the Vue docs and MuSiQue passages as files
// (when ../shared is present). Its bundle answers `cli ask`'s way by ranges, is refused by name by every whole read,
// and its temporary files are gone after a build, a failed one included.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { attachGraph, collectFiles, snapshotFromFiles } from '../../../src/cli/index.ts';
import { streamBuild } from '../../../src/cli/streamIndex.ts';
import { readBundle } from '../../../src/core/bundle/index.ts';
import { openPagedBundle } from '../../../src/core/paged/openBundle.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import { BENCH_DIR, missingSharedData } from '../../support/sharedData.ts';
import { REPO_DOCS } from '../../support/repoDocs.ts';
import { partOf } from '../../support/bundleParts.ts';

const work = mkdtempSync(join(tmpdir(), 'stream-build-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The in-memory build's pages parts for these inputs, as `cli index --pages` makes them. */
async function inMemoryPages(inputs: string[], listsInRowsBytes?: number, evidenceEntries?: number) {
  const files = await collectFiles(inputs);
  const { snapshot } = await snapshotFromFiles(files, { embedder: null, maxChunkTokens: 1200 });
  const { pages } = await attachGraph(
    snapshot,
    true,
    undefined,
    undefined,
    listsInRowsBytes,
    undefined,
    evidenceEntries,
  );
  const [data, hashes] = pages!;
  return { data: data.data, hashes: hashes.data, meta: data.meta, documents: snapshot.documents.length };
}

async function streamed(
  inputs: string[],
  name: string,
  blockSize?: number,
  listsInRowsBytes?: number,
  evidenceEntries?: number,
) {
  const files = await collectFiles(inputs);
  const out = join(work, `${name}.bundle`);
  const result = await streamBuild(files, out, {
    maxChunkTokens: 1200,
    appVersion: 'test',
    tempDir: work,
    blockSize,
    listsInRowsBytes,
    evidenceEntries,
  });
  return { result, bundle: new Uint8Array(readFileSync(out)) };
}

/** Equal bytes, with the first differing offset in the failure (a whole-array diff of MBs says nothing). */
function expectSameBytes(actual: Uint8Array, expected: Uint8Array, what: string): void {
  let first = -1;
  const n = Math.min(actual.length, expected.length);
  for (let i = 0; i < n && first < 0; i++) if (actual[i] !== expected[i]) first = i;
  expect({ what, length: actual.length, firstDifference: first }).toEqual({
    what,
    length: expected.length,
    firstDifference: -1,
  });
}

async function expectSameAsInMemory(
  inputs: string[],
  name: string,
  listsInRowsBytes?: number,
  evidenceEntries?: number,
): Promise<Uint8Array> {
  const memory = await inMemoryPages(inputs, listsInRowsBytes, evidenceEntries);
  const { result, bundle } = await streamed(inputs, name, undefined, listsInRowsBytes, evidenceEntries);
  expect(result.documents).toBe(memory.documents);
  const pages = partOf(bundle, 'pages.bin');
  expectSameBytes(pages.bytes, memory.data, `${name} pages.bin`);
  expectSameBytes(partOf(bundle, 'pages.sha256').bytes, memory.hashes, `${name} pages.sha256`);
  expect(pages.meta).toEqual(memory.meta);
  return bundle;
}

describe('cli index --stream', () => {
  it('writes the in-memory build pages byte for byte (the frozen repository docs: headings, BM25F)', async () => {
    const bundle = await expectSameAsInMemory([REPO_DOCS], 'docs');
    // Opened by ranges, it answers with evidence (cli ask's path), and no temporary file is left behind.
    const opened = await openPagedBundle(new MemoryRangeSource(bundle, 'docs.bundle'), createTermAnalyzer());
    expect(opened).toBeDefined();
    const answer = await opened!.library.search('How do I open a bundle from a URL?', 'ppr', 2000);
    expect(answer.hits.length).toBeGreaterThan(0);
    expect(answer.records.size).toBeGreaterThan(0);
    expect(readdirSync(work).filter((f) => f.includes('.stream-'))).toEqual([]);
  }, 300_000);

  it('writes the same bytes in a large library’s layout (version 8: 512-byte blocks, rows one chunk a group, blocks by section; version 10: blocks of whole rows)', async () => {
    // Told not to keep the lists in the rows, as a library too large to keep them (the 100 MiB corpus) is not.
    const bundle = await expectSameAsInMemory([REPO_DOCS], 'docs-large', 0);
    const meta = partOf(bundle, 'pages.bin').meta as {
      blockSize: number;
      groups: { rows: number };
      sectionBlocks?: Record<string, number>;
      rowBlocks?: { size: number; count: number };
    };
    expect([meta.blockSize, meta.groups.rows, meta.sectionBlocks, meta.rowBlocks?.size]).toEqual([
      512,
      1,
      { open: 65536, records: 1024, postings: 1024, lists: 128, degrees: 4096 },
      128,
    ]);
    expect(meta.rowBlocks!.count).toBeGreaterThan(0);
  }, 300_000);

  it('writes the same bytes with version 12’s evidenceArrays (each chunk’s tokens in blocks of 16 chunks)', async () => {
    const bundle = await expectSameAsInMemory([REPO_DOCS], 'docs-evidence', 0, 16);
    const meta = partOf(bundle, 'pages.bin').meta as {
      version: number;
      evidenceArrays?: { entries: number; count: number };
    };
    expect([meta.version, meta.evidenceArrays?.entries]).toEqual([17, 16]);
  }, 300_000);

  const vue = `${BENCH_DIR}/vuedocs/docs`;
  const skipVue = missingSharedData(vue, 'the Vue docs stream build');
  it.skipIf(skipVue !== null)(
    'writes the same bytes on the Vue docs',
    async () => {
      await expectSameAsInMemory([vue], 'vue');
    },
    300_000,
  );

  const musique = `${BENCH_DIR}/musique/corpus.jsonl`;
  const skipMusique = missingSharedData(musique, 'the MuSiQue passages stream build');
  it.skipIf(skipMusique !== null)(
    'writes the same bytes on 3,000 MuSiQue passages as files',
    async () => {
      const folder = join(work, 'musique');
      rmSync(folder, { recursive: true, force: true });
      const lines = readFileSync(musique, 'utf8').split('\n').filter(Boolean).slice(0, 3000);
      const passages = lines.map((l) => JSON.parse(l) as { id: string; title: string; text: string });
      // Mostly one passage a file (each its own document), a few files of 8 (sections of one document).
      mkdirSync(folder);
      for (let i = 0; i < 2000; i++) writeFileSync(join(folder, `${passages[i].id}.txt`), passages[i].text);
      for (let i = 2000; i < 3000; i += 8) {
        const body = passages
          .slice(i, i + 8)
          .map((p) => `## ${p.title || p.id}\n\n${p.text}\n`)
          .join('\n');
        writeFileSync(join(folder, `group-${i}.md`), body);
      }
      await expectSameAsInMemory([folder], 'musique');
    },
    600_000,
  );

  it('writes the same bytes on untitled .jsonl lines beside a manual (a line label is no heading word)', async () => {
    // The builder is told which records' paths begin with a line label (PagesDocument.labelled): without it the
    // streamed heading field would hold "line" and each number, and the bytes would differ from the engine's.
    const folder = join(work, 'lines');
    mkdirSync(folder, { recursive: true });
    const passages = [
      'The river crosses the valley below the old mill and joins the sea at the harbour town.',
      'A stone bridge of three arches was built over the river in the eighteenth century.',
      'The mill ground corn for the valley until the railway brought flour from the city.',
    ];
    writeFileSync(
      join(folder, 'passages.jsonl'),
      [
        ...passages.map((text) => JSON.stringify({ title: '', text })),
        JSON.stringify({ title: 'Harbour', text: 'A line of boats.' }),
      ].join('\n'),
    );
    writeFileSync(
      join(folder, 'streams.md'),
      '# Streams\n\n## Reading line by line\n\nThe interface yields one line of a file at a time.\n',
    );
    await expectSameAsInMemory([folder], 'lines');
  }, 120_000);

  it('skips a bad file with its name, and every whole read refuses the bundle by name', async () => {
    const folder = join(work, 'bad');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'good.md'),
      '# Canals\n\nThe canal links the two rivers through the old town.\n',
    );
    writeFileSync(join(folder, 'broken.pdf'), 'not a pdf at all');
    const { result, bundle } = await streamed([folder], 'bad');
    expect(result.documents).toBe(1);
    expect(result.errors.map((e) => e.file)).toEqual(['broken.pdf']);
    await expect(readBundle(bundle)).rejects.toThrow(
      /holds only a library read by ranges.*cli index --stream/,
    );
  }, 120_000);

  it('leaves no temporary file when the build fails', async () => {
    const folder = join(work, 'empty');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'broken.pdf'), 'not a pdf at all');
    await expect(streamed([folder], 'empty')).rejects.toThrow(/no document could be indexed/);
    expect(readdirSync(work).filter((f) => f.includes('.stream-') || f.startsWith('empty.bundle'))).toEqual(
      [],
    );
  }, 120_000);
});

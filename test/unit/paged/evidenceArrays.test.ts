// Version 12's `evidenceArrays` (evidenceArrays.ts, FORMAT.md "Version 12"): each chunk's tokens out of `open`, in
// blocks read by ranges at the end of the records section. The blocks' bytes are worked out by hand from the coding
// (zigzag residuals of floor(textLength × slope / 65536)); a library written with them answers as the one without
// (the same hits, scores, tokens and records, with and without a first page's cards); a directory or `open` that lies
// about them is refused naming the field before anything loops or allocates by it.
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeEvidenceBlock, evidenceBlocksOf } from '../../../src/core/paged/evidenceArrays.ts';
import { bundleBytes, writeBundle } from '../../../src/core/bundle/index.ts';
import {
  blockLayoutOf,
  checkDirectory,
  type PagesDirectory,
  type SectionName,
} from '../../../src/core/paged/format.ts';
import { readManifestByRanges } from '../../../src/core/paged/openBundle.ts';
import { upgradeBundleParts } from '../../../src/core/paged/upgrade.ts';
import { PagedLibrary } from '../../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { pagesParts, writePagedIndex, type WrittenPages } from '../../../src/core/paged/write.ts';
import { RetrievalEngine } from '../../../src/core/retrieval/engine.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import { firstPageWanted } from '../../../src/services/source/firstPage.ts';
import { preparedCorpus } from '../../support/builtOnce.ts';
import { REPO_DOCS } from '../../support/repoDocs.ts';

const QUESTIONS = [
  'How do I open a bundle from a URL?',
  'What does the keep-mask store for the concept graph?',
  'Which parts of a bundle are gzip compressed and why?',
];

describe('the evidence blocks’ coding', () => {
  // A slope of 2.5 tokens a word (2.5 × 65536): predictions 10, 250, 2, 0, 75.
  const coding = { entries: 2, textLengths: [4, 100, 1, 0, 30], tokensPerLength: 163_840 };
  const tokens = [10, 250, 3, 0, 70];

  it('writes each block as the zigzag residuals of its chunks, and reads them back', () => {
    const { blocks, field } = evidenceBlocksOf(tokens, coding);
    // Residuals 0, 0 | +1, 0 | −5: zigzag 0, 0 | 2, 0 | 9.
    expect(blocks.map((b) => [...b])).toEqual([[0, 0], [2, 0], [9]]);
    expect(field).toEqual({ entries: 2, count: 3, bytes: 5 });
    expect(blocks.flatMap((b, i) => [...decodeEvidenceBlock(b, i, 5, coding)])).toEqual(tokens);
  });

  it('refuses a block that ends early, holds a byte more, or gives a count below 0', () => {
    expect(() => decodeEvidenceBlock(Uint8Array.of(0), 0, 5, coding)).toThrow('ends inside chunk 1');
    expect(() => decodeEvidenceBlock(Uint8Array.of(9, 0), 2, 5, coding)).toThrow('1 bytes after');
    // Chunk 3's prediction is 0: a residual of −1 (zigzag 1) is −1 tokens.
    expect(() => decodeEvidenceBlock(Uint8Array.of(2, 1), 1, 5, coding)).toThrow('chunk 3 -1 tokens');
    expect(() => decodeEvidenceBlock(Uint8Array.of(0), 3, 5, coding)).toThrow('past the 5 chunks');
  });
});

describe('a library with evidenceArrays', () => {
  let plain: WrittenPages;
  let v11: WrittenPages;
  let byDefault: WrittenPages;
  let evidence: WrittenPages;
  beforeAll(async () => {
    const corpus = await preparedCorpus(REPO_DOCS, 1200);
    const engine = RetrievalEngine.build(
      { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
      createTermAnalyzer(),
    );
    const parts = engine.lexicalParts();
    const documentOf = (docId: string) => ({ title: docId });
    // The large layout (lists not in the rows: 512-byte blocks, rows in blocks of whole rows), where the field is
    // meant for, so that both explicit zones of the layout are placed.
    plain = await writePagedIndex(
      parts,
      documentOf,
      undefined,
      undefined,
      undefined,
      0,
      undefined,
      undefined,
      0,
    );
    // The same library as version 11 wrote it (its lists unpacked, the tokens in `open`), for `cli upgrade`.
    v11 = await writePagedIndex(parts, documentOf, undefined, 11, undefined, 0);
    // The writers' default for this layout: the blocks of writerEvidenceEntries's 64 chunks.
    byDefault = await writePagedIndex(parts, documentOf, undefined, undefined, undefined, 0);
    evidence = await writePagedIndex(
      parts,
      documentOf,
      undefined,
      undefined,
      undefined,
      0,
      undefined,
      undefined,
      16,
    );
  }, 240_000);

  const open = (written: WrittenPages): Promise<PagedLibrary> =>
    PagedLibrary.open(
      new MemoryRangeSource(written.data, 'pages'),
      { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
      createTermAnalyzer(),
    );

  it('writes version 12 with the field, `open` without tokens, the blocks after the records’ dictionary', async () => {
    const d = evidence.directory;
    const n = d.chunkCount;
    // The writers' version 14 (blockPaths after the rows' blocks, postingsCoding), which keeps version 12's field.
    expect(d.version).toBe(17);
    expect(d.evidenceArrays).toEqual({ entries: 16, count: Math.ceil(n / 16), bytes: expect.any(Number) });
    expect(plain.directory.evidenceArrays).toBeUndefined();
    expect(d.evidenceArrays!.bytes).toBeGreaterThanOrEqual(Math.ceil(n / 16));
    // Every section but `open` and `records` (which ends with the blocks) is the same bytes.
    expect(d.sections.records[1]).toBe(plain.directory.sections.records[1] + d.evidenceArrays!.bytes);
    // (The lists and the rows lie with their paths, which follow the block numbers: a section's bytes are its
    // blocks' bytes without them.)
    const sectionOf = (w: WrittenPages, name: SectionName) => {
      const layout = blockLayoutOf(w.directory, w.data.length);
      const [at, length] = w.directory.sections[name];
      const out = new Uint8Array(length);
      for (let b = layout.blockOf(at); b <= layout.blockOf(at + length - 1); b++) {
        const [from, to] = [Math.max(at, layout.startOf(b)), Math.min(at + length, layout.endOf(b))];
        const stored = layout.storedStartOf(b) + (from - layout.startOf(b));
        out.set(w.data.subarray(stored, stored + (to - from)), from - at);
      }
      return out;
    };
    for (const name of ['terms', 'postings', 'concepts', 'lists', 'degrees'] as const)
      expect(sectionOf(evidence, name), name).toEqual(sectionOf(plain, name));
    const library = await open(evidence);
    expect(library.reader.open.tokens.length).toBe(0);
    expect(library.reader.open.evidenceStarts?.length).toBe(d.evidenceArrays!.count + 1);
  });

  it('answers every question as the library without it, with and without a first page’s cards', async () => {
    for (const q of QUESTIONS) {
      const [a, b] = [await open(plain), await open(evidence)];
      const [whole, wholeEvidence] = [await a.search(q, 'ppr', 12_000), await b.search(q, 'ppr', 12_000)];
      expect(wholeEvidence.hits, q).toEqual(whole.hits);
      expect([...wholeEvidence.records.keys()], q).toEqual([...whole.records.keys()]);
      const wanted = firstPageWanted(q, (t) => a.terms(t));
      const [c, e] = [await open(plain), await open(evidence)];
      const page = await c.search(q, 'ppr', 12_000, undefined, undefined, wanted);
      const pageEvidence = await e.search(q, 'ppr', 12_000, undefined, undefined, wanted);
      expect(pageEvidence.hits, q).toEqual(page.hits);
      expect([...(pageEvidence.unread ?? [])], q).toEqual([...(page.unread ?? [])]);
      // An unread hit holds its chunk's whole count, read from its block: `open`'s count without the field.
      for (const i of pageEvidence.unread ?? [])
        expect(pageEvidence.hits[i].tokens, `${q}: hit ${i}`).toBe(c.reader.open.tokens[page.places![i]]);
    }
  });

  it('gives every chunk’s tokens to the KG build’s order as `open` did', async () => {
    const [a, b] = [await open(plain), await open(evidence)];
    expect(b.reader.allTokens()).toBeUndefined();
    await b.reader.readUntilComplete(() => b.reader.allTokens());
    expect(b.reader.allTokens()).toEqual(a.reader.open.tokens);
  });

  it('is what `cli upgrade --evidence-entries` makes of the version 11 part, byte for byte', async () => {
    const base = { appVersion: 'test', embedder: null, createdAt: '2026-12-06T00:00:00.000Z' };
    expect(v11.directory.version).toBe(11);
    const v11Bytes = await bundleBytes(writeBundle(pagesParts(v11), base));
    const source = new MemoryRangeSource(v11Bytes, 'v11.bundle');
    const manifest = (await readManifestByRanges(source))!;
    // Lists not kept in the rows (as `plain` was written), the evidence in blocks of 16 chunks.
    const upgraded = await upgradeBundleParts(source, manifest, 0, undefined, undefined, 16);
    expect([upgraded.from, upgraded.to]).toEqual([11, 17]);
    const bytes = await bundleBytes(writeBundle(upgraded.parts, upgraded.base));
    const direct = await bundleBytes(writeBundle(pagesParts(evidence), base));
    expect(Buffer.from(bytes).equals(Buffer.from(direct))).toBe(true);
    // Without the entries: the writers' default for a library that does not keep its lists in its rows (64 chunks a
    // block), byte for byte what `cli index` writes.
    expect(byDefault.directory.evidenceArrays?.entries).toBe(64);
    const byDefaultUpgrade = await upgradeBundleParts(source, manifest, 0);
    const defaultBytes = await bundleBytes(writeBundle(byDefaultUpgrade.parts, byDefaultUpgrade.base));
    const defaultDirect = await bundleBytes(writeBundle(pagesParts(byDefault), base));
    expect(Buffer.from(defaultBytes).equals(Buffer.from(defaultDirect))).toBe(true);
  });

  it('refuses a directory whose field lies, naming it, before the layout counts blocks by it', () => {
    const d = evidence.directory;
    const length = evidence.data.length;
    const field = d.evidenceArrays!;
    const with_ = (change: Record<string, unknown>): PagesDirectory =>
      ({ ...d, ...change }) as unknown as PagesDirectory;
    const refused = (change: Record<string, unknown>, why: string) =>
      expect(() => checkDirectory(with_(change), length), JSON.stringify(change)).toThrow(why);
    refused({ version: 11 }, 'has evidenceArrays');
    refused({ evidenceArrays: 1 }, 'has evidenceArrays 1');
    refused({ evidenceArrays: { ...field, more: 1 } }, 'only entries, count, bytes');
    for (const entries of [0, -1, 1.5, 2 ** 16 + 1, '16', null])
      refused({ evidenceArrays: { ...field, entries } }, 'evidenceArrays.entries');
    refused({ evidenceArrays: { ...field, count: field.count + 1 } }, 'evidenceArrays.count');
    refused({ evidenceArrays: { ...field, bytes: field.count - 1 } }, 'evidenceArrays.bytes');
    refused({ evidenceArrays: { ...field, bytes: d.sections.records[1] + 1 } }, 'evidenceArrays.bytes');
    refused({ openResiduals: undefined, openCoding: undefined }, 'without openResiduals');
    // Honest, it is read.
    expect(checkDirectory(d, length).evidenceArrays).toEqual(field);
  });

  it('refuses blocks that `open` cuts otherwise than the field says', async () => {
    const d = evidence.directory;
    const field = d.evidenceArrays!;
    // One block fewer: a byte more for the blocks' bytes than `open`'s sizes add up to is a lie either way.
    const lying = { ...d, evidenceArrays: { ...field, bytes: field.bytes - 1 } };
    await expect(
      PagedLibrary.open(
        new MemoryRangeSource(evidence.data, 'pages'),
        { base: 0, length: evidence.data.length, directory: lying, hashes: evidence.hashes },
        createTermAnalyzer(),
      ),
    ).rejects.toThrow('evidenceBlocks');
  });
});

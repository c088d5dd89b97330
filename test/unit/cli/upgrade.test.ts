// `cli upgrade <in> --out <out>`: a bundle's version 1 pages rewritten as version 17 into another file, which
// answers as the input did; the arguments refused before anything is read, the input never changed.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareCorpus } from '../../../src/cli/benchData.ts';
import { FileRangeSource } from '../../../src/cli/fileRangeSource.ts';
import { run as upgrade } from '../../../src/cli/upgrade.ts';
import { bundleBytes, writeBundle } from '../../../src/core/bundle/index.ts';
import { openPagedBundle, pagesParts, writePagedIndex } from '../../../src/core/paged/index.ts';
import { RetrievalEngine } from '../../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import { captureCli } from '../../support/captureCli.ts';
import { REPO_RESULTS } from '../../support/repoDocs.ts';

const dir = await mkdtemp(join(tmpdir(), 'cli-upgrade-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('cli upgrade', () => {
  it('writes version 17 pages into --out, answering as the version 1 input', async () => {
    const corpus = await prepareCorpus(REPO_RESULTS, 1200);
    const analyzer = createTermAnalyzer();
    const engine = RetrievalEngine.build(
      { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
      analyzer,
    );
    const written = await writePagedIndex(engine.lexicalParts(), (docId) => ({ title: docId }), 4096, 1);
    const input = join(dir, 'old.bundle');
    const out = join(dir, 'new.bundle');
    const original = await bundleBytes(
      writeBundle(pagesParts(written), { appVersion: 'test', embedder: null }),
    );
    await writeFile(input, original);

    expect((await captureCli(() => upgrade([input]))).code).toBe(2);
    const same = await captureCli(() => upgrade([input, '--out', input]));
    expect(same.code).toBe(2);
    expect(same.err).toContain('--out must be another file');

    const done = await captureCli(() => upgrade([input, '--out', out]));
    expect(done.code, done.err).toBe(0);
    expect(done.out).toContain('(pages version 1)');
    expect(done.out).toContain('(pages version 17)');
    expect(Buffer.from(await readFile(input)).equals(Buffer.from(original))).toBe(true);
    expect((await stat(out)).size).toBeGreaterThan(0);

    const q = 'What did the heap measurements show?';
    for (const path of [input, out]) {
      const source = await FileRangeSource.open(path);
      try {
        const opened = await openPagedBundle(source, analyzer);
        expect(opened!.library.directory.version).toBe(path === out ? 17 : 1);
        // Version 3's block hashes are 16 bytes (SHA-256's first 16); version 1 says nothing (32).
        expect(opened!.library.directory.hashBytes).toBe(path === out ? 16 : undefined);
        expect((await opened!.library.search(q, 'ppr', 1000)).hits).toEqual(
          engine.search({ text: q }, 'ppr', 1000),
        );
      } finally {
        await source.close();
      }
    }
    // Its pages are version 17 already.
    await expect(upgrade([out, '--out', join(dir, 'again.bundle')])).rejects.toThrow(
      'its pages are version 17 already',
    );
  }, 240_000);

  it("keeps the dictionaries' group sizes the input was written with (copied, not regrouped; rows that take the lists are one group, records coded again in groups of 4)", async () => {
    const corpus = await prepareCorpus(REPO_RESULTS, 1200);
    const analyzer = createTermAnalyzer();
    const engine = RetrievalEngine.build(
      { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
      analyzer,
    );
    const groups = { records: 3, terms: 50, concepts: 70, rows: 5 };
    const written = await writePagedIndex(
      engine.lexicalParts(),
      (docId) => ({ title: docId }),
      4096,
      2,
      groups,
    );
    const input = join(dir, 'grouped-v2.bundle');
    const out = join(dir, 'grouped-v3.bundle');
    await writeFile(
      input,
      await bundleBytes(writeBundle(pagesParts(written), { appVersion: 'test', embedder: null })),
    );
    const done = await captureCli(() => upgrade([input, '--out', out]));
    expect(done.code, done.err).toBe(0);
    const q = 'What did the heap measurements show?';
    const source = await FileRangeSource.open(out);
    try {
      const opened = await openPagedBundle(source, analyzer);
      expect(opened!.library.directory.version).toBe(17);
      // A library this small keeps its lists in its rows: they are made anew, one group of every chunk. Version 10's
      // records are coded again, as `cli index` writes them: 4 a group.
      expect(opened!.library.directory.listsInRows).toBe(true);
      expect(opened!.library.directory.groups).toEqual({
        ...groups,
        records: 4,
        rows: opened!.library.chunkCount,
      });
      expect((await opened!.library.search(q, 'ppr', 1000)).hits).toEqual(
        engine.search({ text: q }, 'ppr', 1000),
      );
    } finally {
      await source.close();
    }
  }, 240_000);
});

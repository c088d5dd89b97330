// The bundle CLI over real files: `info` validates and names what is wrong, `ask` ranks from a bundle with the
// browser's engine factory (bm25 and kg computed by hand on the fixtures), and answers in the --json shape.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bundleBytes, writeSnapshotBundle } from '../../../src/core/bundle/index.ts';
import { askSnapshot, run as ask } from '../../../src/cli/ask.ts';
import { readBundleFile, writeBundleFile } from '../../../src/cli/bundleIo.ts';
import { run as info } from '../../../src/cli/info.ts';
import { DOCS, snapshotOf } from './fixtures.ts';

let dir = '';
let good = '';

/** Runs a CLI command, capturing what it writes to stdout and stderr. */
async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
  try {
    return { code: await fn(), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conceptrag-cli-'));
  good = join(dir, 'good.bundle');
  await writeBundleFile(good, writeSnapshotBundle(snapshotOf(), { appVersion: '0.1.0' }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cli info', () => {
  it('prints the manifest of a valid bundle', async () => {
    const { code, out } = await capture(() => info([good]));
    expect(code).toBe(0);
    expect(out).toMatch(/valid ConceptRAG bundle \(format 3\)/);
    expect(out).toMatch(/embedder {6}test-embedder@1 \(dimension 8\)/);
    expect(out).toMatch(
      /counts {8}documents 3, sections 3, chunks 3, sentences 7, vectors 7, kgEntities 1, kgChunks 1/,
    );
  });

  it('names a truncation and exits 1', async () => {
    const bytes = await readFile(good);
    const cut = join(dir, 'cut.bundle');
    // Into the manifest frame: past the end marker (4 bytes), the locator (8) and part of the manifest's digest.
    await writeFile(cut, bytes.subarray(0, bytes.length - 20));
    const { code, err } = await capture(() => info([cut]));
    expect(code).toBe(1);
    expect(err).toMatch(/bundle: truncated \(expected \d+ bytes of the manifest, got \d+\)/);
    const json = await capture(() => info([cut, '--json']));
    expect(JSON.parse(json.out)).toMatchObject({ valid: false, kind: 'truncated' });
  });

  it('says a missing file is missing', async () => {
    const { code, err } = await capture(() => info([join(dir, 'nope.bundle')]));
    expect(code).toBe(1);
    expect(err).toMatch(/does not exist/);
  });
});

describe('writeBundleFile', () => {
  it('leaves neither the target nor a temporary file when writing fails midway', async () => {
    const target = join(dir, 'failed.bundle');
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield new Uint8Array(1000);
      throw new Error('embedder crashed');
    }
    await expect(writeBundleFile(target, failing())).rejects.toThrow('embedder crashed');
    expect((await readdir(dir)).filter((f) => f.startsWith('failed.bundle'))).toEqual([]);
  });
});

describe('cli ask', () => {
  it('ranks with bm25: only the Lothair document mentions Teutberga', async () => {
    const { code, out } = await capture(() =>
      ask([good, 'Who married Teutberga?', '--mode', 'bm25', '--json']),
    );
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as {
      context: Array<{ chunkId: string; docTitle: string; text: string; score: number }>;
    };
    expect(parsed.context).toHaveLength(1);
    expect(parsed.context[0]).toMatchObject({ chunkId: `${DOCS[0].id}#0000#0000`, docTitle: 'Lothair' });
    expect(parsed.context[0].score).toBeGreaterThan(0);
    expect(parsed).not.toHaveProperty('answer');
  });

  it('answers kg mode from the bundle KG (entity named in the question) and refuses kg without a KG', async () => {
    const withKg = await readBundleFile(good);
    const { output } = await askSnapshot(withKg, 'Tell me about Lothair II', { mode: 'kg', budget: 1000 });
    expect(output.context.map((c) => c.chunkId)).toEqual([`${DOCS[0].id}#0000#0000`]);

    const bare = join(dir, 'bare.bundle');
    await writeFile(
      bare,
      await bundleBytes(writeSnapshotBundle(snapshotOf(DOCS, false), { appVersion: 'x' })),
    );
    await expect(
      askSnapshot(await readBundleFile(bare), 'Lothair', { mode: 'kg', budget: 1000 }),
    ).rejects.toThrow('mode kg needs a knowledge graph, which this library has not; this bundle answers');
  });

  it('refuses a question embedder it cannot build, with a hint', async () => {
    // Not the built-in model: ask does not load it on the bundle's word (test/unit/cli/askEmbedderHost.test.ts).
    await expect(ask([good, 'Who married Teutberga?', '--mode', 'ppr'])).rejects.toThrow(
      /ask: the bundle was built with the embedder test-embedder@1, .*--embedder <spec>.*--mode bm25/,
    );
    await expect(
      ask([good, 'Who married Teutberga?', '--mode', 'ppr', '--embedder', 'word2vec']),
    ).rejects.toThrow(/ask: cannot embed the question with word2vec .*--mode bm25/);
  });

  it('checks its arguments', async () => {
    expect((await capture(() => ask([good]))).code).toBe(2);
    expect((await capture(() => ask([good, 'q', '--budget', '0']))).code).toBe(2);
  });
});

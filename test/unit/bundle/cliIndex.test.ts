// `cli index` on the committed fixture documents: folders expand to supported files, bad files are reported and
// skipped, the bundle holds what prepareFile produced, and --into adds documents once.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as ask } from '../../../src/cli/ask.ts';
import { readBundleFile } from '../../../src/cli/bundleIo.ts';
import { collectFiles, run as index, snapshotFromFiles } from '../../../src/cli/index.ts';
import { isSupportedFile } from '../../../src/core/parse/formats.ts';

const DOCS = join(process.cwd(), 'test', 'fixtures', 'docs');
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conceptrag-index-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function quiet(fn: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
  try {
    return { code: await fn(), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('cli index', () => {
  it('expands folders to the supported files, sorted, and keeps a file named explicitly', async () => {
    const listing = (await readdir(DOCS)).sort();
    const files = (await collectFiles([DOCS])).map((f) => f.slice(DOCS.length + 1));
    expect(files).toEqual(listing.filter((f) => isSupportedFile(f)));
    expect(files).toContain('hello.txt');
    expect(files).not.toContain('make-fixtures.py');
    const script = join(DOCS, 'make-fixtures.py');
    expect(await collectFiles([script])).toEqual([script]);
  });

  it('writes a lexical-only bundle of the fixtures, reporting the bad files by name', async () => {
    const out = join(dir, 'lexical.bundle');
    const {
      code,
      out: stdout,
      err,
    } = await quiet(() => index([DOCS, '--out', out, '--embedder', 'none', '--quiet']));
    expect(code).toBe(0);
    expect(err).toMatch(/skipped binary\.txt: not a text file/);
    expect(err).toMatch(/skipped empty\.txt: the file is empty/);
    expect(err).toMatch(/skipped corrupt\.pdf: not a valid PDF/);
    const expected = await snapshotFromFiles(await collectFiles([DOCS]), {
      embedder: null,
      maxChunkTokens: 1200,
    });
    const back = await readBundleFile(out);
    expect(back.embedder).toBeNull();
    expect(back.documents.map((d) => d.id)).toEqual(expected.snapshot.documents.map((d) => d.id));
    expect(back.chunks).toEqual(expected.snapshot.chunks);
    expect(back.sentences).toEqual(expected.snapshot.sentences);
    expect(stdout).toMatch(new RegExp(`${back.documents.length} documents, ${back.chunks.length} chunks`));
  });

  it('adds to an existing bundle with --into, keeping shared documents once', async () => {
    const one = join(dir, 'one.txt');
    const two = join(dir, 'two.txt');
    await writeFile(one, 'The first file talks about rivers and boats.');
    await writeFile(two, 'The second file talks about mountains and snow.');
    const base = join(dir, 'base.bundle');
    expect((await quiet(() => index([one, '--out', base, '--embedder', 'none', '--quiet']))).code).toBe(0);
    const merged = join(dir, 'merged.bundle');
    const r = await quiet(() =>
      index([one, two, '--into', base, '--out', merged, '--embedder', 'none', '--quiet']),
    );
    expect(r.code).toBe(0);
    const back = await readBundleFile(merged);
    expect(back.documents.map((d) => d.sourceName).sort()).toEqual(['one.txt', 'two.txt']);
  });

  it('answers from a bundle of Markdown chapters with the section path of each passage', async () => {
    const chapter = join(dir, 'concurrency.md');
    await writeFile(
      chapter,
      '# Fearless concurrency\n\n## Sharing state\n\nA Mutex guards a counter shared between threads.\n\n' +
        '## Message passing\n\nChannels send values from one thread to another.\n',
    );
    const bundle = join(dir, 'chapters.bundle');
    expect((await quiet(() => index([chapter, '--out', bundle, '--embedder', 'none', '--quiet']))).code).toBe(
      0,
    );
    const text = await quiet(() => ask([bundle, 'How do I share a counter with a Mutex?']));
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/ {2}1\. \S+ {2}Fearless concurrency › Sharing state \[/);
    const json = await quiet(() => ask([bundle, 'How do I share a counter with a Mutex?', '--json']));
    const parsed = JSON.parse(json.out) as { context: Array<{ path: string[] }> };
    expect(parsed.context[0].path).toEqual(['Fearless concurrency', 'Sharing state']);
  });

  it('checks its arguments and refuses an --into bundle that does not exist', async () => {
    expect((await quiet(() => index([DOCS]))).code).toBe(2);
    expect((await quiet(() => index([DOCS, '--out', join(dir, 'x.bundle'), '--vectors', 'f16']))).code).toBe(
      2,
    );
    await expect(
      index([
        DOCS,
        '--out',
        join(dir, 'y.bundle'),
        '--into',
        join(dir, 'missing.bundle'),
        '--embedder',
        'none',
      ]),
    ).rejects.toThrow(/missing\.bundle does not exist/);
  });
});

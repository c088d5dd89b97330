// `cli index --block-size`: the bytes a block of the pages holds (each block checked by its SHA-256, 32 bytes a block
// in pages.sha256), with --pages and with --stream; a size the reader would refuse (below 512) or past 1 MiB, or not a
// whole number, is refused before a file is read.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { run as index } from '../../../src/cli/index.ts';
import { readManifestByRanges } from '../../../src/core/paged/index.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';

const dir = mkdtempSync(join(tmpdir(), 'conceptrag-block-size-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
for (let i = 0; i < 3; i++) {
  writeFileSync(
    join(dir, `page${i}.md`),
    `# Page ${i}\n\n${Array.from({ length: 40 }, (_, k) => `Sentence ${k} of page ${i} names the river Vltava and bridge ${k}.`).join(' ')}\n`,
  );
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

async function pagesOf(
  path: string,
): Promise<{ blockSize: number; hashBytes: number; pages: number; hashes: number }> {
  const manifest = await readManifestByRanges(new MemoryRangeSource(new Uint8Array(readFileSync(path))));
  const pages = manifest?.parts.find((p) => p.name === 'pages.bin');
  const hashes = manifest?.parts.find((p) => p.name === 'pages.sha256');
  if (!pages || !hashes) throw new Error(`${path}: no pages`);
  return {
    blockSize: (pages.meta as { blockSize: number }).blockSize,
    hashBytes: (pages.meta as { hashBytes: number }).hashBytes,
    pages: pages.length,
    hashes: hashes.length,
  };
}

describe('cli index --block-size', () => {
  it('refuses a size below 512, past 1 MiB or not whole, naming the flag', async () => {
    for (const size of ['256', '1048577', '1000.5', 'big']) {
      const { code, err } = await quietly(() =>
        index([
          dir,
          '--out',
          join(dir, 'never.bundle'),
          '--embedder',
          'none',
          '--pages',
          '--block-size',
          size,
        ]),
      );
      expect(code).toBe(2);
      expect(err).toBe('index: --block-size must be a whole number of bytes from 512 to 1048576\n');
    }
  });

  it('writes pages in blocks of the size given, with --pages and with --stream', async () => {
    for (const [flag, size] of [
      ['--pages', 1024],
      ['--stream', 512],
    ] as const) {
      const out = join(dir, `x${flag}.bundle`);
      const { code } = await quietly(() =>
        index([dir, '--out', out, '--embedder', 'none', flag, '--block-size', String(size), '--quiet']),
      );
      expect(code).toBe(0);
      const p = await pagesOf(out);
      expect(p.blockSize).toBe(size);
      // Version 3: 16 bytes of hash a block (SHA-256's first 16), and the directory says so.
      expect(p.hashBytes).toBe(16);
      expect(p.hashes).toBe(Math.ceil(p.pages / size) * 16);
    }
  }, 60_000);
});

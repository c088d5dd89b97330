// `cli index --ocr-language` and `cli bench --ocr-language`: the language scanned pages are read in, auto (from
// the document's text, else its first page), eng or chi_sim; anything else is refused before a file is read, naming
// the flag and the value.
import { describe, expect, it, vi } from 'vitest';
import { run as bench } from '../../../src/cli/bench.ts';
import { run as index } from '../../../src/cli/index.ts';

async function stderrOf(fn: () => Promise<number>): Promise<{ code: number; err: string }> {
  let err = '';
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
  try {
    return { code: await fn(), err };
  } finally {
    e.mockRestore();
  }
}

/** What `--help` prints (it exits 0). */
async function usageOf(command: (args: string[]) => Promise<number>): Promise<string> {
  let out = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    expect(await command(['--help'])).toBe(0);
  } finally {
    o.mockRestore();
  }
  return out;
}

describe('cli index --ocr-language', () => {
  it('refuses a language it cannot read, naming the flag and the value', async () => {
    const { code, err } = await stderrOf(() =>
      index(['no-such-folder', '--out', 'never.bundle', '--ocr-language', 'fra']),
    );
    expect(code).toBe(2);
    expect(err).toBe('index: --ocr-language must be auto, eng or chi_sim, got fra\n');
  });

  it('lists the flag in its usage', async () => {
    expect(await usageOf(index)).toMatch(
      /--ocr-language <l>\s+the language of scanned pages and pictures: auto/,
    );
  });
});

describe('cli bench --ocr-language', () => {
  it('refuses a language it cannot read, naming the flag and the value', async () => {
    const { code, err } = await stderrOf(() =>
      bench(['--corpus', 'no-such-folder', '--questions', 'no-such.jsonl', '--ocr-language', 'fra']),
    );
    expect(code).toBe(2);
    expect(err).toBe('bench: --ocr-language must be auto, eng or chi_sim, got fra\n');
  });

  it('lists the flag in its usage', async () => {
    expect(await usageOf(bench)).toContain('[--ocr-language auto|eng|chi_sim]');
  });
});

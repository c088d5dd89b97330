// Number formatting shown in the Library and Ask views, and which picked files are skipped as OS litter.
import { describe, expect, it } from 'vitest';
import { fromInput } from '../../../src/ui/files.ts';
import { formatBytes, formatCount, formatDuration } from '../../../src/ui/format.ts';

describe('format', () => {
  it('formats bytes with binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(50 * 1024 * 1024)).toBe('50 MB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GB');
  });

  it('formats durations for the ETA', () => {
    expect(formatDuration(Number.NaN)).toBe('–');
    expect(formatDuration(-1)).toBe('–');
    expect(formatDuration(0.4)).toBe('< 1 s');
    expect(formatDuration(42.4)).toBe('42 s');
    expect(formatDuration(125)).toBe('2 min 5 s');
    expect(formatDuration(7260)).toBe('2 h 1 min');
  });

  it('formats counts with thousands separators', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
  });
});

describe('fromInput', () => {
  it('keeps folder paths and skips hidden files and OS litter', () => {
    const file = (name: string, path = '') => {
      const f = new File(['x'], name);
      Object.defineProperty(f, 'webkitRelativePath', { value: path });
      return f;
    };
    const list = [
      file('a.txt', 'docs/a.txt'),
      file('.DS_Store', 'docs/.DS_Store'),
      file('Thumbs.db', 'docs/Thumbs.db'),
      file('b.md'),
    ] as unknown as FileList;
    expect(fromInput(list).map((f) => f.name)).toEqual(['docs/a.txt', 'b.md']);
    expect(fromInput(null)).toEqual([]);
  });
});

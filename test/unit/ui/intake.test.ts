// The page's intake (src/ui/intake.ts): a dropped folder is screened by extension and size before any byte is
// read, every refused file gets its verdict, and the accepted ones are read in groups bounded by bytes and files.
import { describe, expect, it } from 'vitest';
import {
  INDEXED_OUTCOMES_SHOWN,
  boundedOutcomes,
  nextGroup,
  readGroup,
  removedOutcomes,
  screenFiles,
  withOutcomes,
  type PickedFile,
} from '../../../src/ui/intake.ts';
import { MAX_FILE_BYTES, type FileOutcome } from '../../../src/services/ingest/ingestProtocol.ts';

/** A File stand-in that records reads, and how many were in progress at once. */
function files(names: string[], size = 10) {
  const reads = { total: 0, active: 0, maxActive: 0 };
  const picked: PickedFile[] = names.map((name) => ({
    name,
    file: {
      size,
      async arrayBuffer() {
        reads.total += 1;
        reads.active += 1;
        reads.maxActive = Math.max(reads.maxActive, reads.active);
        await new Promise((r) => setTimeout(r, 1));
        reads.active -= 1;
        return new TextEncoder().encode(name).buffer as ArrayBuffer;
      },
    },
  }));
  return { picked, reads };
}

describe('intake of a dropped folder', () => {
  it('refuses 9,990 unsupported files of 10,000 without reading any, with a verdict for each', async () => {
    const names = Array.from({ length: 10_000 }, (_, i) =>
      i % 1000 === 0 ? `docs/note-${i}.md` : `photos/img-${i}.${i % 2 ? 'heic' : 'gif'}`,
    );
    const { picked, reads } = files(names);
    const screened = screenFiles(picked);
    expect(reads.total).toBe(0);
    expect(screened.accepted.map((f) => f.name)).toHaveLength(10);
    expect(screened.refused).toHaveLength(9_990);
    expect(screened.refused[0]).toMatchObject({
      file: 'photos/img-1.heic',
      status: 'failed',
      reason: expect.stringMatching(/^unsupported file type \.heic .*not read$/),
    });
    expect(screened.summary).toBe('Not read: 9,990 of 10,000 files (9,990 of an unsupported type).');
    expect(reads.total).toBe(0);
  });

  it('reads the accepted files in groups bounded by bytes and files, in order, every file once', async () => {
    const { picked, reads } = files(['a.md', 'b.md', 'c.md', 'd.md', 'e.md'], 10);
    const accepted = screenFiles(picked).accepted;
    // 25 bytes a group: two files of 10 each (a third would make 30).
    expect(nextGroup(accepted, 25).map((f) => f.name)).toEqual(['a.md', 'b.md']);
    expect(nextGroup(accepted, 1000, 3).map((f) => f.name)).toEqual(['a.md', 'b.md', 'c.md']);
    // A file larger than the limit makes a group of its own rather than none.
    expect(nextGroup(accepted, 5).map((f) => f.name)).toEqual(['a.md']);
    const read = await readGroup(accepted);
    expect(
      read.map((r) => [r.item.name, 'bytes' in r ? new TextDecoder().decode(r.bytes) : r.reason]),
    ).toEqual(['a.md', 'b.md', 'c.md', 'd.md', 'e.md'].map((n) => [n, n]));
    // Read together (the browser reads them from disk in parallel), not one after another.
    expect(reads).toMatchObject({ total: 5, maxActive: 5 });
  });

  it('refuses a file over the size limit by its size, and an entry the folder walk did not open', () => {
    const big = files(['big.txt'], MAX_FILE_BYTES + 1).picked;
    const screened = screenFiles([...big, { name: 'x.md', file: null }, ...files(['ok.md']).picked]);
    expect(screened.accepted.map((f) => f.name)).toEqual(['ok.md']);
    expect(screened.refused.map((o) => [o.file, o.reason])).toEqual([
      ['big.txt', 'file too large (20.0 MB; the limit is 20 MB); not read'],
      ['x.md', expect.stringMatching(/^unsupported file type \.md/)],
    ]);
    expect(screened.summary).toBe('Not read: 2 of 3 files (1 of an unsupported type, 1 over 20 MB).');
  });

  it('gives a file that cannot be read its own verdict and reads the next', async () => {
    const { picked } = files(['a.md', 'b.md']);
    picked[0].file = {
      size: 1,
      arrayBuffer: () => Promise.reject(new Error('the file was moved')),
    };
    const read = await readGroup(screenFiles(picked).accepted);
    expect(read.map((r) => [r.item.name, 'reason' in r ? r.reason : 'read'])).toEqual([
      ['a.md', 'could not read the file (the file was moved)'],
      ['b.md', 'read'],
    ]);
  });

  it('puts new verdicts first and replaces an older verdict for the same file', () => {
    const old = [{ file: 'a', status: 'indexed' as const, documents: 1 }];
    expect(withOutcomes([{ file: 'a', status: 'failed', documents: 0 }], old)).toEqual([
      { file: 'a', status: 'failed', documents: 0 },
    ]);
  });
});

describe('boundedOutcomes (the Library view’s list of files)', () => {
  const indexed = (file: string): FileOutcome => ({ file, status: 'indexed', documents: 1 });
  const failed = (file: string): FileOutcome => ({ file, status: 'failed', documents: 0, reason: 'bad' });

  it('keeps the newest indexed files up to the limit and every failed or duplicate one, in order', () => {
    const list: FileOutcome[] = [
      indexed('i5'),
      failed('f1'),
      indexed('i4'),
      indexed('i3'),
      { file: 'd1', status: 'duplicate', documents: 0 },
      indexed('i2'),
      failed('f0'),
      indexed('i1'),
    ];
    const { outcomes, hidden } = boundedOutcomes(list, 3);
    expect(outcomes.map((o) => o.file)).toEqual(['i5', 'f1', 'i4', 'i3', 'd1', 'f0']);
    expect(hidden).toBe(2);
  });

  it('leaves a list within the limit as it is', () => {
    const list = [indexed('a'), failed('b')];
    expect(boundedOutcomes(list, 1)).toEqual({ outcomes: list, hidden: 0 });
  });

  it('stays bounded over a 20,000-file drop fed one verdict at a time', () => {
    let shown: FileOutcome[] = [];
    let hiddenTotal = 0;
    for (let i = 0; i < 20_000; i++) {
      const next = i % 1000 === 0 ? failed(`f${i}`) : indexed(`f${i}`);
      const { outcomes, hidden } = boundedOutcomes(withOutcomes([next], shown));
      shown = outcomes;
      hiddenTotal += hidden;
    }
    expect(shown.filter((o) => o.status === 'indexed')).toHaveLength(INDEXED_OUTCOMES_SHOWN);
    expect(shown.filter((o) => o.status === 'failed')).toHaveLength(20);
    expect(hiddenTotal + INDEXED_OUTCOMES_SHOWN).toBe(20_000 - 20);
    expect(shown[0].file).toBe('f19999');
  });
});

describe('removedOutcomes', () => {
  it('marks a file whose documents are all removed, and counts what is left of one that keeps some', () => {
    const list = [
      { file: 'a.md', status: 'indexed' as const, documents: 1 },
      { file: 'b.jsonl', status: 'indexed' as const, documents: 5 },
      { file: 'c.pdf', status: 'failed' as const, documents: 0, reason: 'no text' },
    ];
    const after = removedOutcomes(
      list,
      new Map([
        ['a.md', 1],
        ['b.jsonl', 2],
        ['c.pdf', 1],
      ]),
    );
    expect(after).toEqual([
      { file: 'a.md', status: 'removed', documents: 0, reason: 'removed from the library' },
      { file: 'b.jsonl', status: 'indexed', documents: 3 },
      list[2],
    ]);
  });
});

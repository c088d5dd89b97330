// The storage-write watchdog (src/services/ingest/storageGuard.ts) stops a write only when the browser's storage has
// stopped answering, or at a ceiling: a write a busy machine makes slow is not stopped at the limit ("the browser did
// not finish storing" stopped good drops at load 40–67, docs/results/trust.md).
import { describe, expect, it } from 'vitest';
import {
  guardWrite,
  STORE_CEILING_FACTOR,
  StorageStopError,
} from '../../../../src/services/ingest/storageGuard.ts';

const after = <T>(ms: number, value: T): Promise<T> =>
  new Promise((resolve) => setTimeout(() => resolve(value), ms));
const never = (): Promise<never> => new Promise(() => {});
const what = { subject: '"notes.md"', file: 'notes.md' };

async function stopped(run: Promise<unknown>): Promise<StorageStopError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StorageStopError);
  return error as StorageStopError;
}

describe('the storage-write watchdog', () => {
  it('lets a slow write finish while the storage answers', async () => {
    // 2.5 limits long: stopped at the first one by a wall-time limit.
    const value = await guardWrite(
      () => after(250, 'stored'),
      what,
      100,
      () => after(5, undefined),
    );
    expect(value).toBe('stored');
  });

  it('stops a write when the storage does not answer either, naming what it was storing', async () => {
    const error = await stopped(guardWrite(never, what, 100, never));
    expect(error.kind).toBe('storage-timeout');
    expect(error.file).toBe('notes.md');
    expect(error.message).toContain(
      'the browser did not finish storing "notes.md" within 200 ms, and its storage stopped answering, so indexing stopped',
    );
  });

  it('stops a write that never ends at the ceiling, though the storage answers', async () => {
    const error = await stopped(guardWrite(never, what, 100, () => after(1, undefined)));
    // Ten times the 100-ms limit.
    expect(STORE_CEILING_FACTOR).toBe(10);
    expect(error.message).toContain('within 1 s (its storage answered meanwhile; this write did not end)');
  });

  it('without a way to ask the storage, stops at the limit', async () => {
    const error = await stopped(guardWrite(never, what, 100));
    expect(error.message).toContain(
      'the browser did not finish storing "notes.md" within 100 ms, so indexing',
    );
  });
});

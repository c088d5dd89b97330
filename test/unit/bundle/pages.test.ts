// Pages in bundles (issue 22): a PDF's page starts and its chunks' page ranges are optional fields, written and
// read back as they are; bundles without them (written before pages were kept) open as before; a page field of
// the wrong type is refused with the part, record and field named.
import { describe, expect, it } from 'vitest';
import {
  BundleError,
  bundleBytes,
  readIndexBundle,
  writeSnapshotBundle,
} from '../../../src/core/bundle/index.ts';
import { EMBEDDER, snapshotOf } from './fixtures.ts';

describe('pages in bundles', () => {
  it('round-trips pageStarts of documents and pageStart/pageEnd of chunks', async () => {
    const original = snapshotOf();
    original.documents[0] = { ...original.documents[0], pageStarts: [0, 12] };
    original.chunks[0] = { ...original.chunks[0], pageStart: 1, pageEnd: 2 };
    const back = await readIndexBundle(
      await bundleBytes(writeSnapshotBundle(original, { appVersion: '0.1.0' })),
      EMBEDDER,
    );
    expect(back.documents[0].pageStarts).toEqual([0, 12]);
    expect([back.chunks[0].pageStart, back.chunks[0].pageEnd]).toEqual([1, 2]);
    expect(back.chunks[1].pageStart).toBeUndefined();
    expect(back.documents[1].pageStarts).toBeUndefined();
  });

  it('opens a bundle without pages, and refuses a page that is not a whole number ≥ 0', async () => {
    const plain = await readIndexBundle(
      await bundleBytes(writeSnapshotBundle(snapshotOf(), { appVersion: '0.1.0' })),
      EMBEDDER,
    );
    expect(plain.chunks.every((c) => !('pageStart' in c))).toBe(true);
    const bad = snapshotOf();
    bad.chunks[0] = { ...bad.chunks[0], pageStart: -1 };
    const error = await readIndexBundle(
      await bundleBytes(writeSnapshotBundle(bad, { appVersion: '0.1.0' })),
      EMBEDDER,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BundleError);
    expect((error as BundleError).message).toMatch(
      /part chunks\.jsonl record 1: the field "pageStart" must be a whole number ≥ 0/,
    );
    const badDoc = snapshotOf();
    badDoc.documents[0] = { ...badDoc.documents[0], pageStarts: [0, 'x' as unknown as number] };
    const docError = await readIndexBundle(
      await bundleBytes(writeSnapshotBundle(badDoc, { appVersion: '0.1.0' })),
      EMBEDDER,
    ).catch((e: unknown) => e);
    expect((docError as BundleError).message).toMatch(
      /the field "pageStarts" must be an array of whole numbers ≥ 0/,
    );
  });
});

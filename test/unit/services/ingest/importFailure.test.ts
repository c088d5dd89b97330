// Refusals at import time in the person's words (issue 23, item 5): a record nested 20,000 deep passed validation
// and failed while being written with "Maximum call stack size exceeded"; a full disk showed "QuotaExceededError".
// Now the deep record is refused while the bundle is validated, naming the part, with the library untouched; and
// what the browser refuses while writing is said in words, with what happened to the library.
import { gzipSync } from 'node:zlib';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { BundleError } from '../../../../src/core/bundle/index.ts';
import { importFailure } from '../../../../src/services/ingest/storageGuard.ts';
import { importBundle } from '../../../../src/store/bundleImport.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { libraryParts, rawBundle } from '../../../support/hostileBundles.ts';

describe('a bundle import that fails', () => {
  it('refuses a record nested 20,000 deep before anything is written, naming the part', async () => {
    const json = new TextEncoder().encode(`[{"chunkId":"c","x":${'['.repeat(20_000)}${']'.repeat(20_000)}}]`);
    const raw = new Uint8Array(Math.ceil((4 + json.length) / 8) * 8);
    new DataView(raw.buffer).setUint32(0, json.length, true);
    raw.set(json, 4);
    const bytes = rawBundle([
      ...(await libraryParts()),
      {
        name: 'table.kgChunks.bin',
        kind: 'structured',
        encoding: 'gzip',
        count: 1,
        rawLength: raw.length,
        stored: gzipSync(raw),
      },
    ]);
    const db = openDatabase('deep-import', { indexedDB: new IDBFactory(), IDBKeyRange });
    const error = await importBundle(db, bytes).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BundleError);
    expect((error as BundleError).message).toContain(
      'part table.kgChunks.bin: its JSON nests deeper than 100 levels',
    );
    expect(await db.table('documents').count()).toBe(0);
  });

  it('says a full disk, a too-deep record and a clone refusal in words; a BundleError stays as it is', () => {
    const quota = new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    expect(importFailure(quota).message).toBe(
      'the browser refused to store the bundle: storage is full for this site. Nothing of the bundle was ' +
        'stored; the library is as it was. Free space or remove documents, then import it again',
    );
    // Dexie wraps the quota error of an aborted transaction as `inner`.
    const wrapped = Object.assign(new Error('Transaction aborted'), { name: 'AbortError', inner: quota });
    expect(importFailure(wrapped).message).toMatch(
      /^the browser refused to store the bundle: storage is full/,
    );
    expect(importFailure(new RangeError('Maximum call stack size exceeded')).message).toBe(
      'a record of the bundle is nested too deeply for the browser to store it. Nothing of the bundle was ' +
        'stored; the library is as it was',
    );
    const clone = new DOMException('function could not be cloned', 'DataCloneError');
    expect(importFailure(clone).message).toMatch(
      /^the browser could not store a record of the bundle \(DataCloneError: function could not be cloned\)/,
    );
    const refused = new BundleError('invalid-content', 'part x: bad', 'x');
    expect(importFailure(refused)).toBe(refused);
  });
});

// How Chromium's IndexedDB serves the pages writer's reads as the library grows: the writer reads every document
// with its sections, chunks and sentences, 64 documents a transaction, twice per write (src/store/pagesRepo.ts).
// Read one way, by one docId index read per document and table (the reader up to `1fe460c`), or the other, by one
// primary-key range per table over the 64 documents' ids (their records' keys start with the document's id). A
// synthetic library in the app's key and record shapes (per document: ~5 KB of text, --chunks chunks, 3 sections,
// --sentences sentences) is stored up to each of --at document counts; at each the whole library is read both
// ways, timed (the order alternates from one count to the next). Raw IndexedDB in a page on a loopback origin.
// Usage: node --import tsx test/bench/idb-read-pattern-browser.ts [--at 2000,4000,8000,16000]
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../e2e/lib/browser.ts';

const { values: opts } = parseArgs({
  options: {
    at: { type: 'string', default: '2000,4000,8000,16000' },
    chunks: { type: 'string', default: '5' },
    sentences: { type: 'string', default: '60' },
  },
});
const load = (): string => loadavg()[0].toFixed(2);

const server = createServer((_, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.end('<!doctype html><title>idb read pattern</title>');
});
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
const profile = await mkdtemp(join(tmpdir(), 'idb-read-pattern-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: CHROMIUM_ARGS,
});
await context.addInitScript({ content: 'globalThis.__name ??= (fn) => fn;' });
const page = context.pages()[0] ?? (await context.newPage());
await page.goto(url);

/** Stores documents [from, to) with their parts, 64 a transaction (ids `d` + 16 hex digits, as prepare.ts). */
async function store(from: number, to: number): Promise<void> {
  await page.evaluate(
    async ({ from, to, chunks, sentences }) => {
      const db = await new Promise<IDBDatabase>((ok, no) => {
        const r = indexedDB.open('library', 1);
        r.onupgradeneeded = () => {
          const d = r.result;
          d.createObjectStore('documents', { keyPath: 'id' });
          for (const name of ['sections', 'chunks', 'sentences'])
            d.createObjectStore(name, { keyPath: 'id' }).createIndex('docId', 'docId');
        };
        r.onsuccess = () => ok(r.result);
        r.onerror = () => no(r.error);
      });
      const text = 'lorem ipsum dolor sit amet '.repeat(190);
      const hex = (i: number) => (Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, '0');
      const pad = (n: number, w: number) => String(n).padStart(w, '0');
      for (let at = from; at < to; at += 64) {
        await new Promise<void>((ok, no) => {
          const t = db.transaction(['documents', 'sections', 'chunks', 'sentences'], 'readwrite');
          for (let i = at; i < Math.min(to, at + 64); i++) {
            const id = `d${hex(i)}${pad(i, 8)}`;
            t.objectStore('documents').put({ id, title: `doc ${i}`, text, addedAt: i });
            for (let s = 0; s < 3; s++)
              t.objectStore('sections').put({ id: `${id}#${pad(s, 4)}`, docId: id, index: s, heading: 'h' });
            for (let c = 0; c < chunks; c++)
              t.objectStore('chunks').put({
                id: `${id}#0000#${pad(c, 4)}`,
                docId: id,
                start: c * 900,
                end: c * 900 + 900,
                tokens: 200,
              });
            for (let s = 0; s < sentences; s++)
              t.objectStore('sentences').put({
                id: `${id}:${pad(s, 6)}`,
                docId: id,
                chunkId: `${id}#0000#0000`,
                index: s,
                start: s * 80,
                end: s * 80 + 79,
              });
          }
          t.oncomplete = () => ok();
          t.onerror = () => no(t.error);
        });
      }
      db.close();
    },
    { from, to, chunks: Number(opts.chunks), sentences: Number(opts.sentences) },
  );
}

/** Reads the whole library 64 documents a transaction, by docId index reads or by key ranges; ms and records. */
async function readAll(byRange: boolean): Promise<{ ms: number; records: number }> {
  return page.evaluate(async (byRange) => {
    const db = await new Promise<IDBDatabase>((ok, no) => {
      const r = indexedDB.open('library', 1);
      r.onsuccess = () => ok(r.result);
      r.onerror = () => no(r.error);
    });
    const req = <T>(r: IDBRequest<T>) =>
      new Promise<T>((ok, no) => {
        r.onsuccess = () => ok(r.result);
        r.onerror = () => no(r.error);
      });
    const t0 = performance.now();
    let records = 0;
    let after: string | undefined;
    for (;;) {
      const t = db.transaction(['documents', 'sections', 'chunks', 'sentences']);
      const docs = (await req(
        t
          .objectStore('documents')
          .getAll(after === undefined ? null : IDBKeyRange.lowerBound(after, true), 64),
      )) as Array<{ id: string }>;
      if (docs.length === 0) break;
      const parts = ['sections', 'chunks', 'sentences'];
      if (byRange) {
        const range = IDBKeyRange.bound(docs[0].id, `${docs[docs.length - 1].id}\uffff`);
        const got = await Promise.all(parts.map((p) => req(t.objectStore(p).getAll(range))));
        for (const g of got) records += g.length;
      } else {
        const got = await Promise.all(
          docs.flatMap((d) => parts.map((p) => req(t.objectStore(p).index('docId').getAll(d.id)))),
        );
        for (const g of got) records += g.length;
      }
      records += docs.length;
      after = docs[docs.length - 1].id;
      if (docs.length < 64) break;
    }
    db.close();
    return { ms: performance.now() - t0, records };
  }, byRange);
}

const counts = opts.at.split(',').map(Number);
console.log(`idb-read-pattern: ${counts.join(', ')} documents; load ${load()}`);
let stored = 0;
for (const [i, n] of counts.entries()) {
  const t = performance.now();
  await store(stored, n);
  stored = n;
  console.log(`stored ${n} documents (${((performance.now() - t) / 1000).toFixed(1)} s); load ${load()}`);
  for (const byRange of i % 2 ? [true, false] : [false, true]) {
    const r = await readAll(byRange);
    console.log(
      `  ${n} documents, ${r.records} records: read ${byRange ? 'by key ranges   ' : 'by docId indexes'} ` +
        `${(r.ms / 1000).toFixed(2)} s (${((1000 * r.ms) / n).toFixed(0)} µs a document); load ${load()}`,
    );
  }
}
await context.close();
server.close();
await rm(profile, { recursive: true, force: true });

// What Chromium keeps on disk when a Blob record in IndexedDB is replaced, as the ingest worker replaces the library's
// pages (one record, key 'library', a Blob of tens of MB) at every refresh of a large drop: the 30 MiB drop left
// IndexedDB 19 MB larger than main's though its library holds less (docs/results/drop-projected.md, "IndexedDB").
// A plain page on a loopback origin puts a --mb MB Blob (random bytes, so nothing compresses it) under one key
// --puts times, then: the same with the previous Blob read back and held by the page (as the query worker holds the
// pages it answers from) at each replace; the held Blob let go and garbage-collected; a wait; the browser closed and
// the profile reopened. After each step: navigator.storage.estimate's IndexedDB usage, and the profile's IndexedDB
// folders on disk (the database's own files, and its blob folder: file count and bytes).
// --inline: what stays of records deleted after being stored inline (a drop's queued files' bytes, 5 KB each, put
// and then deleted as each file is stored): the same sizes after the puts, after the deletes, a wait, and a reopening.
// Usage: node --import tsx test/bench/idb-blob-replace-browser.ts [--mb 20] [--puts 5] [--wait 30] [--inline]
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from '../e2e/lib/browser.ts';

const { values: opts } = parseArgs({
  options: {
    mb: { type: 'string', default: '20' },
    puts: { type: 'string', default: '5' },
    wait: { type: 'string', default: '30' },
    list: { type: 'boolean', default: false },
    // Instead: --mb MB of 5 KB ArrayBuffers stored inline (as a drop's queued files, pendingBytes) and deleted.
    inline: { type: 'boolean', default: false },
  },
});
const mb = Number(opts.mb);
const puts = Number(opts.puts);
const waitSeconds = Number(opts.wait);
const load = (): string => loadavg()[0].toFixed(2);

const server = createServer((_, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.end('<!doctype html><title>idb blob replace</title>');
});
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
const profile = await mkdtemp(join(tmpdir(), 'idb-blob-replace-'));

/** Bytes and files under the profile's IndexedDB folder, split into blob folders and the rest. */
function onDisk(): string {
  const sh = (cmd: string): string =>
    spawnSync('sh', ['-c', cmd, 'sh', join(profile, 'Default', 'IndexedDB')], {
      encoding: 'utf8',
    }).stdout.trim();
  const blobBytes = Number(
    sh('find "$1" -path "*.blob/*" -type f -printf "%s\\n" 2>/dev/null | paste -sd+ | bc') || 0,
  );
  const blobFiles = Number(sh('find "$1" -path "*.blob/*" -type f 2>/dev/null | wc -l'));
  const allBytes = Number(sh('find "$1" -type f -printf "%s\\n" 2>/dev/null | paste -sd+ | bc') || 0);
  const MB = 1e6;
  if (opts.list) console.log(sh('find "$1" -type f -printf "%s %P\\n"'));
  return (
    `disk: ${(allBytes / MB).toFixed(1)} MB (blob folder ${blobFiles} files, ${(blobBytes / MB).toFixed(1)} MB; ` +
    `database files ${((allBytes - blobBytes) / MB).toFixed(1)} MB)`
  );
}

async function estimate(page: Page): Promise<string> {
  const e = await page.evaluate(async () => {
    const s = (await navigator.storage.estimate()) as StorageEstimate & {
      usageDetails?: { indexedDB?: number };
    };
    return s.usageDetails?.indexedDB ?? s.usage ?? 0;
  });
  return `estimate ${(e / 1e6).toFixed(1)} MB`;
}

async function report(page: Page, step: string): Promise<void> {
  console.log(`${step.padEnd(58)} ${await estimate(page)}; ${onDisk()}; load ${load()}`);
}

async function open(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_ARGS, '--js-flags=--expose-gc'],
  });
  await context.addInitScript({ content: 'globalThis.__name ??= (fn) => fn;' });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(url);
  return { context, page };
}

/** Puts a fresh Blob of `mb` MB under 'library'; with `hold`, first reads the stored one and keeps it. */
async function put(page: Page, hold: boolean): Promise<void> {
  await page.evaluate(
    async ({ mb, hold }) => {
      const db = await new Promise<IDBDatabase>((ok, no) => {
        const r = indexedDB.open('replace-test', 1);
        r.onupgradeneeded = () => r.result.createObjectStore('pages');
        r.onsuccess = () => ok(r.result);
        r.onerror = () => no(r.error);
      });
      const w = globalThis as unknown as { held?: Blob[] };
      if (hold) {
        const old = await new Promise<unknown>((ok, no) => {
          const r = db.transaction('pages').objectStore('pages').get('library');
          r.onsuccess = () => ok(r.result);
          r.onerror = () => no(r.error);
        });
        // Read a slice, as the query worker reads pages by ranges before it holds them whole.
        if (old instanceof Blob) await old.slice(0, 4096).arrayBuffer();
        if (old instanceof Blob) (w.held ??= []).push(old);
      }
      const parts: Uint8Array[] = [];
      for (let i = 0; i < mb; i++) {
        const part = new Uint8Array(1e6);
        for (let at = 0; at < part.length; at += 65536) crypto.getRandomValues(part.subarray(at, at + 65536));
        parts.push(part);
      }
      await new Promise<void>((ok, no) => {
        const t = db.transaction('pages', 'readwrite');
        t.objectStore('pages').put(new Blob(parts as BlobPart[]), 'library');
        t.oncomplete = () => ok();
        t.onerror = () => no(t.error);
      });
      db.close();
    },
    { mb, hold },
  );
}

/** Puts (or deletes) `mb` MB of 5 KB ArrayBuffers under their own keys, 200 a transaction. */
async function inline(page: Page, remove: boolean): Promise<void> {
  await page.evaluate(
    async ({ mb, remove }) => {
      const db = await new Promise<IDBDatabase>((ok, no) => {
        const r = indexedDB.open('inline-test', 1);
        r.onupgradeneeded = () => r.result.createObjectStore('pendingBytes');
        r.onsuccess = () => ok(r.result);
        r.onerror = () => no(r.error);
      });
      const n = Math.round((mb * 1e6) / 5000);
      for (let at = 0; at < n; at += 200) {
        await new Promise<void>((ok, no) => {
          const t = db.transaction('pendingBytes', 'readwrite');
          for (let i = at; i < Math.min(n, at + 200); i++) {
            if (remove) t.objectStore('pendingBytes').delete(`f${i}`);
            else {
              const bytes = new Uint8Array(5000);
              crypto.getRandomValues(bytes);
              t.objectStore('pendingBytes').put(bytes.buffer, `f${i}`);
            }
          }
          t.oncomplete = () => ok();
          t.onerror = () => no(t.error);
        });
      }
      db.close();
    },
    { mb, remove },
  );
}

console.log(`idb-blob-replace: ${mb} MB ${opts.inline ? 'of 5 KB records' : 'Blob'}; ${url}; load ${load()}`);
let { context, page } = await open();
if (opts.inline) {
  try {
    await inline(page, false);
    await report(page, `${mb} MB of 5 KB records put`);
    await inline(page, true);
    await report(page, 'all deleted');
    await new Promise((ok) => setTimeout(ok, waitSeconds * 1000));
    await report(page, `${waitSeconds} s later`);
    await page.goto('about:blank');
    await new Promise((ok) => setTimeout(ok, 5000));
    await page.goto(url);
    await report(page, 'page left for 5 s and opened again');
    await context.close();
    ({ context, page } = await open());
    await page.evaluate(() => new Promise((ok) => (indexedDB.open('inline-test', 1).onsuccess = ok)));
    await report(page, 'browser closed and reopened, database opened');
  } finally {
    await context.close();
    server.close();
    await rm(profile, { recursive: true, force: true });
  }
  process.exit(0);
}
try {
  for (let i = 1; i <= puts; i++) {
    await put(page, false);
    await report(page, `put ${i} (nothing read)`);
  }
  for (let i = 1; i <= puts; i++) {
    await put(page, true);
    await report(page, `put ${i} (the stored Blob read and held first)`);
  }
  await page.evaluate(() => {
    (globalThis as unknown as { held?: Blob[] }).held = undefined;
    (globalThis as unknown as { gc?: () => void }).gc?.();
  });
  await new Promise((ok) => setTimeout(ok, 2000));
  await report(page, 'held Blobs let go, gc, 2 s');
  await new Promise((ok) => setTimeout(ok, waitSeconds * 1000));
  await report(page, `${waitSeconds} s later`);
  await context.close();
  ({ context, page } = await open());
  await report(page, 'browser closed and reopened');
  await put(page, false);
  await report(page, 'one more put after reopening');
} finally {
  await context.close();
  server.close();
  await rm(profile, { recursive: true, force: true });
}

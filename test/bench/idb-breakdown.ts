// What a drop leaves in IndexedDB, table by table: drops a file into the built app (headless Chromium, fresh
// profile), waits until the app is idle (and, with --until embedded, every sentence has its vector), then sums the
// serialized size of each store's rows in the page and compares it with navigator.storage.estimate(), CDP
// Storage.getUsageAndQuota and the profile's IndexedDB folder on disk (LevelDB keeps superseded values until it
// compacts). Meanwhile it samples the graph table's builtAt stamps every 200 ms to count its rewrites.
//
// Usage: node --import tsx test/bench/idb-breakdown.ts <file> <dist> [--until searchable|embedded]
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { chromium } from 'playwright-core';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { probeLibrary, vectorRows } from './lib/dropProbes.ts';

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs in the page: per store, rows and their bytes (binary by byteLength, strings as UTF-16 and UTF-8). */
async function tableSizes(): Promise<
  Record<
    string,
    {
      rows: number;
      binary: number;
      str16: number;
      str8: number;
      other: number;
      top: { key: string; bytes: number }[];
    }
  >
> {
  const db = await new Promise<IDBDatabase>((res, rej) => {
    const r = indexedDB.open('conceptrag');
    r.onsuccess = () => res(r.result);
    r.onerror = () => rej(r.error);
  });
  const enc = new TextEncoder();
  const out: Record<
    string,
    {
      rows: number;
      binary: number;
      str16: number;
      str8: number;
      other: number;
      top: { key: string; bytes: number }[];
    }
  > = {};
  for (const name of Array.from(db.objectStoreNames)) {
    const t = {
      rows: 0,
      binary: 0,
      str16: 0,
      str8: 0,
      other: 0,
      top: [] as { key: string; bytes: number }[],
    };
    const walk = (v: unknown): void => {
      if (v === null || v === undefined) return void (t.other += 1);
      if (typeof v === 'string') {
        t.str16 += v.length * 2;
        t.str8 += enc.encode(v).byteLength;
        return;
      }
      if (typeof v === 'number') return void (t.other += 8);
      if (typeof v === 'boolean') return void (t.other += 1);
      if (v instanceof ArrayBuffer) return void (t.binary += v.byteLength);
      if (ArrayBuffer.isView(v)) return void (t.binary += v.byteLength);
      if (Array.isArray(v)) {
        for (const x of v) walk(x);
        return;
      }
      if (typeof v === 'object') {
        for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
          t.str16 += k.length * 2;
          t.str8 += k.length;
          walk(x);
        }
      }
    };
    await new Promise<void>((res, rej) => {
      const r = db.transaction(name).objectStore(name).openCursor();
      r.onsuccess = () => {
        const c = r.result;
        if (!c) return res();
        t.rows += 1;
        const before = t.binary + t.str8 + t.other;
        walk(c.value);
        const bytes = t.binary + t.str8 + t.other - before;
        t.top.push({ key: String(c.primaryKey), bytes });
        t.top.sort((a, b) => b.bytes - a.bytes);
        t.top.length = Math.min(t.top.length, 3);
        c.continue();
      };
      r.onerror = () => rej(r.error);
    });
    out[name] = t;
  }
  db.close();
  return out;
}

/** Runs in the page: the graph table's rows and their builtAt stamps. */
async function graphStamps(): Promise<string[]> {
  const names = await indexedDB.databases();
  if (!names.some((d) => d.name === 'conceptrag')) return [];
  const db = await new Promise<IDBDatabase>((res, rej) => {
    const r = indexedDB.open('conceptrag');
    r.onsuccess = () => res(r.result);
    r.onerror = () => rej(r.error);
  });
  try {
    if (!db.objectStoreNames.contains('graph')) return [];
    const keys: string[] = [];
    await new Promise<void>((res, rej) => {
      const r = db.transaction('graph').objectStore('graph').openCursor();
      r.onsuccess = () => {
        const c = r.result;
        if (!c) return res();
        keys.push(`${String(c.primaryKey)}@${(c.value as { builtAt?: number }).builtAt}`);
        c.continue();
      };
      r.onerror = () => rej(r.error);
    });
    return keys;
  } finally {
    db.close();
  }
}

/** Headless Chromium over `profile`, the same way for the measured run and the reopened one. */
function launch(profile: string) {
  return chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
}

async function main(): Promise<void> {
  const [input, distArg] = process.argv.slice(2);
  const until = process.argv.includes('embedded') ? 'embedded' : 'searchable';
  const dist = resolve(distArg);
  const server = await serveStatic(dist);
  const profile = await mkdtemp(join(tmpdir(), 'idb-breakdown-'));
  const context = await launch(profile);
  await context.addInitScript({ content: 'globalThis.__name ??= (fn) => fn;' });
  const du = () =>
    Number(
      spawnSync('du', ['-sb', join(profile, 'Default', 'IndexedDB')], { encoding: 'utf8' }).stdout.split(
        '\t',
      )[0],
    );
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const cdp = await context.newCDPSession(page);
    await page.goto(`${server.origin}/#library`);
    await page.waitForSelector('[data-indexing]', { timeout: 60_000 });
    const t0 = Date.now();
    await page.setInputFiles('[data-testid="file-input"]', resolve(input));
    const stamps = new Map<string, Set<string>>();
    let idleSince = 0;
    for (;;) {
      await sleep(200);
      for (const s of await page.evaluate(graphStamps).catch(() => [] as string[])) {
        const [id, at] = s.split('@');
        if (!stamps.has(id)) stamps.set(id, new Set());
        stamps.get(id)?.add(at);
      }
      const p = await page.evaluate(probeLibrary, false);
      const idle = p.ready && p.indexing === 'idle' && p.pendingWaiting === 0 && p.documents > 0;
      let done = idle;
      if (done && until === 'embedded') {
        const v = await page.evaluate(vectorRows);
        done = v.vectors === v.sentences;
      }
      if (!done) idleSince = 0;
      else if (!idleSince) idleSince = Date.now();
      if (idleSince && Date.now() - idleSince > 3000) break;
      if (Date.now() - t0 > 3_600_000) throw new Error('timeout');
    }
    const seconds = (Date.now() - t0) / 1000;
    const tables = await page.evaluate(tableSizes);
    const estimate = await page.evaluate(async () => {
      const e = (await navigator.storage.estimate()) as StorageEstimate & {
        usageDetails?: Record<string, number>;
      };
      return { usage: e.usage ?? 0, details: e.usageDetails ?? {} };
    });
    const usage = await cdp.send('Storage.getUsageAndQuota', { origin: server.origin });
    const idbCdp = usage.usageBreakdown.find((b) => b.storageType === 'indexeddb')?.usage ?? 0;
    const diskOpen = du();
    // Left open: does LevelDB give the superseded data back by itself?
    const later: string[] = [];
    for (let i = 0; i < Number(process.env.OPEN_WAIT_STEPS ?? '0'); i++) {
      await sleep(10_000);
      const u = await cdp.send('Storage.getUsageAndQuota', { origin: server.origin });
      const idb = u.usageBreakdown.find((b) => b.storageType === 'indexeddb')?.usage ?? 0;
      later.push(`+${(i + 1) * 10}s disk ${(du() / MB).toFixed(2)} CDP ${(idb / MB).toFixed(2)}`);
    }
    const files = spawnSync(
      'bash',
      [
        '-c',
        `find '${join(profile, 'Default', 'IndexedDB')}' -type f -printf '%s %p\\n' | sort -rn | head -12`,
      ],
      {
        encoding: 'utf8',
      },
    ).stdout;
    await context.close();
    const diskClosed = du();
    // Reopened: LevelDB may compact on open; measured after a while.
    const again = await launch(profile);
    const p2 = again.pages()[0] ?? (await again.newPage());
    await p2.goto(`${server.origin}/#library`);
    await p2.waitForSelector('[data-indexing]', { timeout: 60_000 });
    await sleep(15_000);
    const est2 = await p2.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);
    const diskReopened = du();
    await again.close();

    let live = 0;
    console.log(
      `until ${until}: idle after ${seconds.toFixed(1)} s; load ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
    for (const [name, t] of Object.entries(tables)) {
      const bytes = t.binary + t.str8 + t.other;
      live += bytes;
      if (t.rows === 0) continue;
      console.log(
        `  ${name.padEnd(16)} rows ${String(t.rows).padStart(7)}  binary ${(t.binary / MB).toFixed(2)} MB  strings ${(t.str8 / MB).toFixed(2)} MB (UTF-16 ${(t.str16 / MB).toFixed(2)})  other ${(t.other / MB).toFixed(2)}  total≈${(bytes / MB).toFixed(2)} MB  top ${t.top.map((x) => `${x.key}:${(x.bytes / MB).toFixed(2)}`).join(' ')}`,
      );
    }
    console.log(`  live sum ≈ ${(live / MB).toFixed(2)} MB`);
    console.log(`graph rewrites seen: ${[...stamps].map(([id, s]) => `${id} ×${s.size}`).join(', ')}`);
    console.log(
      `estimate().usage ${(estimate.usage / MB).toFixed(2)} MB ${JSON.stringify(estimate.details)}; CDP indexeddb ${(idbCdp / MB).toFixed(2)} MB`,
    );
    console.log(
      `disk IndexedDB: open ${(diskOpen / MB).toFixed(2)} MB, closed ${(diskClosed / MB).toFixed(2)} MB, reopened+15s ${(diskReopened / MB).toFixed(2)} MB (estimate ${(est2 / MB).toFixed(2)} MB)`,
    );
    console.log(later.join('\n'));
    console.log(files);
  } finally {
    await context.close().catch(() => undefined);
    await server.close();
    await rm(profile, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

// The README's screenshot of the Library view while a folder is indexed: the Vue docs chosen with "Choose a
// folder…", captured once the drop's progress shows files read, documents searchable and sentences being embedded.
// Usage: npm run build && node --import tsx test/bench/screenshot-library-indexing.ts <folder> [--out <png>]
//   (default out: docs/screenshots/library-indexing.png). E2E_DIST or ./dist; CHROMIUM_PATH.
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { openApp } from '../e2e/lib/app.ts';
import { openHarness } from '../e2e/lib/harness.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { arg, positional } from './lib/args.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function main(): Promise<void> {
  const folder = positional();
  if (!folder)
    throw new Error(
      'usage: node --import tsx test/bench/screenshot-library-indexing.ts <folder> [--out <png>]',
    );
  const out = resolve(arg('out', join(root, 'docs', 'screenshots', 'library-indexing.png')));
  const dist = resolve(process.env.E2E_DIST ?? join(root, 'dist'));
  const server = await serveStatic(dist);
  const { harness, close } = await openHarness(server.origin, dist, 'screenshot');
  const { page } = harness;
  try {
    await page.setViewportSize({ width: 1100, height: 900 });
    await openApp(page, server.origin);
    await page.setInputFiles('[data-testid="folder-input"]', resolve(folder));
    // Every file read and searchable, sentences being embedded: the moment a person watches longest.
    await page.waitForFunction(
      () => {
        const row = (key: string) => document.querySelector(`[data-row="${key}"]`);
        const done = (key: string) => Number(row(key)?.getAttribute('data-done') ?? 0);
        const total = (key: string) => Number(row(key)?.getAttribute('data-total') ?? NaN);
        return (
          done('files') > 0 &&
          done('files') === total('files') &&
          done('searchable') > 0 &&
          done('embedded') > 0 &&
          /left/.test(row('embedded')?.textContent ?? '')
        );
      },
      undefined,
      { timeout: 20 * 60_000, polling: 500 },
    );
    await mkdir(dirname(out), { recursive: true });
    await page.screenshot({ path: out, fullPage: false });
    harness.assertPrivate('screenshot');
    console.log(`wrote ${out}`);
  } finally {
    await close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

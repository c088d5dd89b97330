// Hostile bundles in Chromium (issue 23): importing a small bundle whose structured part points 8,000 typed-array
// references at one 1 MB region (before: accepted after 179 s with the profile at 9.3 GB), and a 1 MB bundle whose
// documents.jsonl inflates to 1,000 MB (before: refused after 52 s at a 4 GB peak). Both are refused with the part
// and the reason named, and the library stays empty. The time to each verdict is logged, not asserted.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openApp, readCounts } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';
import { aliasedBundle, inflationBundle } from '../../support/hostileBundles.ts';

test.setTimeout(120_000);

test('hostile bundles: aliased typed arrays and a 1,000 MB inflation are refused, naming the part', async ({
  page,
  origin,
  tmp,
  log,
}) => {
  const cases = [
    {
      file: 'aliased.bundle',
      bytes: await aliasedBundle(8000, 1024 * 1024),
      reason: /part table\.kgChunks\.bin: two typed arrays share the bytes at offset 0/,
    },
    {
      file: 'inflation.bundle',
      bytes: await inflationBundle(1000),
      reason:
        /part documents\.jsonl declares 1048576000 bytes inflated from \d+ stored bytes, more than 64 times/,
    },
  ];
  await openApp(page, origin);
  for (const c of cases) {
    const path = join(tmp, c.file);
    await writeFile(path, c.bytes);
    const started = performance.now();
    await page.setInputFiles('[data-testid="bundle-input"]', path);
    const verdict = await page.waitForSelector(`text=/Bundle ${c.file.replace('.', '\\.')} refused: /`, {
      timeout: 60_000,
    });
    const seconds = (performance.now() - started) / 1000;
    const text = ((await verdict.textContent()) ?? '').trim();
    log(`${c.file} (${(c.bytes.length / 1024).toFixed(0)} KB): refused in ${seconds.toFixed(2)} s: ${text}`);
    expect(text).toMatch(c.reason);
  }
  const counts = await readCounts(page);
  expect(counts.documents, 'a refused bundle wrote documents').toBe(0);
});

// A second tab shows the first tab's progress (issue 22, item 5): while tab A indexes a 300-file drop, tab B —
// open before the drop, and opened again during it — shows A's rows under "Indexing in another tab" (files of
// A's drop, read out of 300), never a tally of its own ("Indexing — done 0") and never an empty library.
// A embeds through the scripted endpoint on loopback at 1 s a request of 64 sentences: its 2,400 sentences (8 a
// file) keep it indexing, and posting its progress, for 37 s at the least after its files are read, however fast
// the machine.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { addFiles, openApp } from '../lib/app.ts';
import { expect, testWithEmbedder as test } from '../lib/fixtures.ts';

const FILES = 300;

test.setTimeout(300_000);

const filesRow = (p: Page) => p.locator('[data-testid="elsewhere"] [data-row="files"]');

test("a second tab shows the first tab's progress of this drop, not its own", async ({
  page: a,
  context,
  origin,
  tmp,
  log,
  appWithEmbedder: server,
}) => {
  const dir = join(tmp, 'notes');
  await mkdir(dir);
  const paths: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const text = Array.from(
      { length: 8 },
      (_, k) => `Note ${i} line ${k}: the ferry ${i} left pier ${(i * 7 + k) % 23} at ${k + 6} o'clock.`,
    ).join('\n');
    paths.push(join(dir, `note-${i}.txt`));
    await writeFile(paths[i], text);
  }
  server.setEmbeddingLatency(1_000);
  const b = await context.newPage();
  await openApp(b, origin);

  await addFiles(a, paths);
  // B, open all along, shows A's drop: its files out of 300.
  await expect(filesRow(b)).toHaveAttribute('data-total', String(FILES), { timeout: 60_000 });
  await expect(b.getByText('Indexing — done')).toHaveCount(0);

  // B opened again while A indexes: the same, from A's next post.
  await b.reload();
  await expect(b.getByTestId('elsewhere')).toBeVisible({ timeout: 60_000 });
  await expect(filesRow(b)).toHaveAttribute('data-total', String(FILES), { timeout: 60_000 });
  const done = Number(await filesRow(b).getAttribute('data-done'));
  log(`tab B shows tab A's drop: ${done} of ${FILES} files read`);
  expect(await a.getAttribute('[data-indexing]', 'data-indexing'), 'A finished before B was checked').toBe(
    'running',
  );
  await expect(b.getByText('Indexing — done')).toHaveCount(0);
  await expect(b.getByTestId('welcome')).toHaveCount(0);
});

// Spec (issue 44): the Library view's counts are true at every moment of a drop. While the drop is indexed, the
// Index counts of chunks, concepts and edges grow with it (they read 0 for a whole 14.6-minute drop), and the
// header says the lexical layer is ready as soon as a question can be answered, the same status the views use.
// The app embeds through the scripted endpoint on loopback, which holds the first embedding request until the test
// cancels: the drop is still running when the counts are checked, on any machine.
import { addFiles, readCounts, waitIdle } from '../lib/app.ts';
import { expect, testWithEmbedder as test } from '../lib/fixtures.ts';
import { jsonlRecords, writeRecords } from '../lib/records.ts';

const PLACES = [
  'Calder',
  'Brisk',
  'Morrow',
  'Tansy',
  'Wexley',
  'Ormand',
  'Fennick',
  'Halloway',
  'Quillon',
  'Dunmore',
];
const TOOLS = [
  'barometer',
  'anemometer',
  'hygrometer',
  'theodolite',
  'sextant',
  'chronometer',
  'pluviometer',
];

/** Survey records whose places and instruments recur across records, together: concepts with edges. */
function records(n: number): string {
  return jsonlRecords(n, (i) => {
    const place = PLACES[i % PLACES.length];
    const other = PLACES[(i * 7 + 3) % PLACES.length];
    const tool = TOOLS[i % TOOLS.length];
    return `Observers at ${place} Station measured the ${tool} readings. The ${place} Station ${tool} agreed with ${other} Station within ${i % 9} percent.`;
  });
}

test.setTimeout(240_000);

test('chunks, concepts and edges grow during a drop; the header says lexical ready while it runs', async ({
  page,
  tmp,
  log,
  appWithEmbedder: server,
}) => {
  const file = await writeRecords(tmp, records(300));
  server.scriptEmbeddings({ kind: 'hold' });
  // What the Library view showed while indexing ran (each distinct reading once).
  await page.evaluate(() => {
    const w = window as unknown as { e2eCounts: string[] };
    w.e2eCounts = [];
    const look = () => {
      const state = document.querySelector('[data-indexing]')?.getAttribute('data-indexing');
      if (state !== 'running') return;
      const read = (k: string) =>
        Number(document.querySelector(`[data-count="${k}"]`)?.textContent?.replace(/,/g, '') ?? NaN);
      const lexical = /lexical ready/.test(
        document.querySelector('[data-testid="layers"]')?.textContent ?? '',
      );
      const row = JSON.stringify([read('chunks'), read('concepts'), read('edges'), lexical]);
      if (!w.e2eCounts.includes(row)) w.e2eCounts.push(row);
    };
    new MutationObserver(look).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
  });
  await addFiles(page, [file]);
  // Until the view has shown chunks, concepts and edges with the header saying lexical ready, indexing still on.
  await page.waitForFunction(
    () =>
      (window as unknown as { e2eCounts: string[] }).e2eCounts.some((r) => {
        const [chunks, concepts, edges, lexical] = JSON.parse(r) as [number, number, number, boolean];
        return chunks > 0 && concepts > 0 && edges > 0 && lexical;
      }),
    undefined,
    { timeout: 0, polling: 200 },
  );
  const stored = await readCounts(page);
  const seen = (await page.evaluate(() => (window as unknown as { e2eCounts: string[] }).e2eCounts)).map(
    (r) => JSON.parse(r) as [number, number, number, boolean],
  );
  log(
    `readings while running: ${seen.length}; last: ${JSON.stringify(seen.at(-1))}; stored: ${stored.chunks}`,
  );
  await expect(page.locator('[data-indexing]')).toHaveAttribute('data-indexing', 'running');
  // Never more chunks than the store holds (the counts are the store's, not a guess).
  expect(Math.max(...seen.map(([chunks]) => chunks))).toBeLessThanOrEqual(stored.chunks);
  // Cancel ends the drop; at rest the view shows the store's chunks.
  await page.click('[data-testid="cancel"]');
  await waitIdle(page);
  const end = await readCounts(page);
  await expect(page.locator('[data-count="chunks"]')).toHaveText(end.chunks.toLocaleString('en'));
});

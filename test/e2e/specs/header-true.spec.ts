// Spec (issue 44, item 4: one status source for the header and the views): the header's words — "lexical ready",
// "semantic ready", "indexing…" — say what the Library view says at the same moment, never a read of the store
// later. The header took its layers from a read of the store made at the run's pace (every 3 s), so in the 111-PDF
// walkthrough it said "semantic —" for ~3 s after the Library view said "Indexing — done" and every document
// had its vectors. Every state the page shows during a drop is recorded as it is drawn (a MutationObserver: each
// reading is one drawn state, whatever the machine's speed), and checked against the others and the store.
import { addFiles, readCounts, waitIdle } from '../lib/app.ts';
import { expect, testWithEmbedder as test } from '../lib/fixtures.ts';
import { jsonlRecords, writeRecords } from '../lib/records.ts';

/** One state of the page as drawn. */
interface Reading {
  indexing: string | null;
  lexical: boolean;
  semantic: boolean;
  /** The header says "indexing…" or "updating…". */
  busy: boolean;
  /** The Library view's drop heading ("Indexing", "Indexing — done"), null when it shows none. */
  heading: string | null;
  searchable: [number, number] | null;
  embedded: [number, number] | null;
  counts: Record<string, number>;
}

const RIVERS = ['Aldwater', 'Brennock', 'Coldmere', 'Dunsey', 'Eskrill', 'Farrow', 'Glenhart'];

test.setTimeout(240_000);

test('the header says what the Library view says, in the same drawn state, from the drop to done', async ({
  page,
  tmp,
  log,
  appWithEmbedder: server,
}) => {
  const file = await writeRecords(
    tmp,
    jsonlRecords(240, (i) => {
      const river = RIVERS[i % RIVERS.length];
      const other = RIVERS[(i * 3 + 1) % RIVERS.length];
      return `The ${river} river floods in spring. Gauges on the ${river} river agree with the ${other} river gauges within ${i % 7} centimetres.`;
    }),
  );
  // Each embedding request takes a while: the drop has several batches, each reported, before it ends.
  server.setEmbeddingLatency(100);
  await page.evaluate(() => {
    const w = window as unknown as { e2eReadings: string[] };
    w.e2eReadings = [];
    const pair = (row: string): [number, number] | null => {
      const el = document.querySelector(`[data-testid="drop-progress"] [data-row="${row}"]`);
      return el ? [Number(el.getAttribute('data-done')), Number(el.getAttribute('data-total'))] : null;
    };
    const look = () => {
      const header = document.querySelector('[data-testid="layers"]');
      if (!header) return;
      const text = header.textContent ?? '';
      const heading =
        [...document.querySelectorAll('h2')]
          .map((h) => (h.textContent ?? '').replace(/\s+/g, ' ').trim())
          .find((t) => t.startsWith('Indexing')) ?? null;
      const counts: Record<string, number> = {};
      for (const dd of document.querySelectorAll('[data-count]'))
        counts[dd.getAttribute('data-count') ?? ''] = Number((dd.textContent ?? '').replace(/,/g, ''));
      const reading: Reading = {
        indexing: header.getAttribute('data-indexing'),
        lexical: text.includes('lexical ready'),
        semantic: text.includes('semantic ready'),
        busy: /indexing…|updating…/.test(text),
        heading,
        searchable: pair('searchable'),
        embedded: pair('embedded'),
        counts,
      };
      const row = JSON.stringify(reading);
      if (w.e2eReadings.at(-1) !== row) w.e2eReadings.push(row);
    };
    new MutationObserver(look).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
  });
  await addFiles(page, [file]);
  await waitIdle(page);
  // What the store holds once the drop is done: the counts the view must show when it says "done".
  const stored = await readCounts(page);
  const graph = await page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('conceptrag');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const meta = await new Promise<{ concepts: number; edges: number }>((resolve, reject) => {
      const r = db.transaction('meta').objectStore('meta').get('index');
      r.onsuccess = () => resolve(r.result as { concepts: number; edges: number });
      r.onerror = () => reject(r.error);
    });
    db.close();
    return { concepts: meta.concepts, edges: meta.edges };
  });
  const readings = (
    await page.evaluate(() => (window as unknown as { e2eReadings: string[] }).e2eReadings)
  ).map((r) => JSON.parse(r) as Reading);
  log(`${readings.length} drawn states; the store: ${JSON.stringify({ ...stored, ...graph })}`);
  expect(stored.documents).toBe(240);
  expect(stored.vectors).toBe(stored.sentences);

  const done = readings.filter((r) => r.heading?.includes('— done'));
  expect(done.length, 'the Library view said "Indexing — done"').toBeGreaterThan(0);
  for (const r of readings) log(JSON.stringify(r));
  for (const r of done) {
    // When the view says done, the header says both layers are ready and nothing is indexing: every document has
    // its vectors (checked in the store above).
    expect(r, 'the header at "Indexing — done"').toMatchObject({
      indexing: 'idle',
      busy: false,
      lexical: true,
      semantic: true,
    });
    // And the counts are the store's, not those of a read still to come.
    expect(r.counts, 'the Index counts at "Indexing — done"').toMatchObject({
      documents: stored.documents,
      chunks: stored.chunks,
      sentences: stored.sentences,
      vectors: stored.vectors,
      concepts: graph.concepts,
      edges: graph.edges,
    });
  }
  for (const [k, r] of readings.entries()) {
    const at = `drawn state ${k}: ${JSON.stringify(r)}`;
    // "indexing…" in the header exactly while the view's heading says indexing is on.
    if (r.heading !== null) expect(r.busy, at).toBe(!r.heading.includes('— done'));
    expect(r.busy, at).toBe(r.indexing === 'running');
    // The view's drop shows documents searchable: the header says the lexical layer answers.
    if (r.searchable && r.searchable[0] > 0) expect(r.lexical, at).toBe(true);
    // "semantic ready" exactly when the view's drop shows every document with its vectors (the library was empty).
    if (r.embedded) expect(r.semantic, at).toBe(r.embedded[1] > 0 && r.embedded[0] === r.embedded[1]);
  }
});

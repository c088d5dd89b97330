// The Library view's one progress for a whole drop: files, sentences, searchable documents and documents with
// vectors, projected from the bytes read so far, with rates and time left.
import { describe, expect, it } from 'vitest';
import { DropTally, RateMeter, SettledEta } from '../../../src/ui/estimates/dropProgress.ts';
import type { LibraryCoverage } from '../../../src/services/ingest/ingestProtocol.ts';

const coverage = (c: Partial<LibraryCoverage>): LibraryCoverage => ({
  documents: 0,
  sentences: 0,
  searchableDocuments: 0,
  searchableSentences: 0,
  embeddedDocuments: 0,
  embeddedSentences: 0,
  ...c,
});

describe('RateMeter', () => {
  it('measures over the recent window and shows nothing for a span under 2 s', () => {
    const m = new RateMeter();
    m.add(0, 0);
    m.add(1000, 100);
    expect(m.rate(1000)).toBeNaN();
    m.add(10_000, 1000);
    expect(m.rate(10_000)).toBeCloseTo(100, 6);
    // A pause longer than the window brings the rate to zero (no time left is claimed).
    m.add(50_000, 1000);
    m.add(80_000, 1000);
    expect(m.rate(80_000)).toBe(0);
  });
});

describe('DropTally', () => {
  it('projects the drop from the bytes read and gives the time left at the measured rates', () => {
    // 100 documents already in the library, 20 of them still without vectors.
    const base = coverage({
      documents: 100,
      sentences: 1000,
      searchableDocuments: 100,
      embeddedDocuments: 80,
      embeddedSentences: 800,
    });
    const tally = new DropTally(base, 0);
    tally.queued('a.txt', 1000);
    tally.queued('b.txt', 3000);
    const unknown = tally.rows(0);
    expect(unknown.find((r) => r.key === 'sentences')?.total).toBeNaN();
    // a.txt (a quarter of the bytes) yields 10 documents, 100 sentences in 4 s.
    tally.coverage(coverage({ ...base, documents: 110, sentences: 1100 }), 4000);
    tally.fileDone('a.txt', 4000);
    const rows = Object.fromEntries(tally.rows(4000).map((r) => [r.key, r]));
    expect(rows.files).toMatchObject({ done: 1, total: 2, approximate: false });
    expect(rows.files.eta).toBeCloseTo(4, 6);
    expect(rows.sentences).toMatchObject({ done: 100, total: 400, approximate: true });
    expect(rows.sentences.rate).toBeCloseTo(25, 6);
    expect(rows.sentences.eta).toBeCloseTo(12, 6);
    expect(rows.searchable).toMatchObject({ done: 0, total: 40 });
    // Vectors: the 20 waiting before the drop, and the drop's 40.
    expect(rows.embedded).toMatchObject({ done: 0, total: 60 });
    expect(rows.embedded.eta).toBeNaN();

    tally.coverage(
      coverage({
        documents: 140,
        sentences: 1400,
        searchableDocuments: 140,
        embeddedDocuments: 100,
        embeddedSentences: 1000,
      }),
      8000,
    );
    tally.fileDone('b.txt', 8000);
    tally.coverage(
      coverage({
        documents: 140,
        sentences: 1400,
        searchableDocuments: 140,
        embeddedDocuments: 120,
        embeddedSentences: 1200,
      }),
      12_000,
    );
    const done = Object.fromEntries(tally.rows(12_000).map((r) => [r.key, r]));
    expect(done.files).toMatchObject({ done: 2, total: 2, eta: 0 });
    expect(done.sentences).toMatchObject({ done: 400, total: 400, approximate: false, eta: 0 });
    expect(done.searchable).toMatchObject({ done: 40, total: 40 });
    expect(done.embedded).toMatchObject({ done: 40, total: 60 });
    // 200 sentences left at 400 sentences in 12 s.
    expect(done.embedded.eta).toBeCloseTo(200 / (400 / 12), 6);
  });

  it('a queue resumed after a reload counts files without sizes', () => {
    const tally = new DropTally(coverage({}), 0);
    tally.queued('queued file', null);
    tally.fileDone('queued file', 1000);
    const rows = Object.fromEntries(tally.rows(1000).map((r) => [r.key, r]));
    expect(rows.files).toMatchObject({ done: 1, total: 1 });
    expect(rows.sentences).toMatchObject({ done: 0, total: 0, approximate: false });
  });
});

describe('SettledEta', () => {
  it('shows nothing until the estimates have come for 10 s, then follows a steady count-down closely', () => {
    const eta = new SettledEta();
    // 120 s left at the start, the work going at a steady pace: the estimate falls one second a second.
    const shown: number[] = [];
    for (let t = 0; t <= 20_000; t += 1000) shown.push(eta.update(120 - t / 1000, t));
    expect(shown.slice(0, 10).every(Number.isNaN)).toBe(true);
    expect(shown[10]).toBeCloseTo(110, 6);
    expect(shown[20]).toBeCloseTo(100, 6);
  });

  it('waits for steady estimates before it shows one, and then moves only part of the way on a swing', () => {
    const eta = new SettledEta();
    // Jumpy estimates at first (the rate still finding its level): nothing shown, even after 10 s.
    const early = [900, 500, 800, 400, 700, 350, 650, 300, 600, 598, 597].map((e, k) =>
      eta.update(e, k * 1000),
    );
    expect(early.every(Number.isNaN)).toBe(true);
    // Steady from 8 s on: shown 3 s later.
    let shown = Number.NaN;
    for (let t = 12_000; t <= 14_000; t += 1000) shown = eta.update(600 - t / 1000 + 12, t);
    expect(Number.isFinite(shown)).toBe(true);
    const before = shown;
    // A graph rebuild stalls the rate for a moment: the raw estimate jumps to 72 minutes. The time left moves a
    // fraction of the way (EWMA, 10 s) and stays shown.
    const swing = eta.update(4320, 15_000);
    expect(swing).toBeGreaterThan(before);
    expect(swing).toBeLessThan(before + 0.1 * (4320 - before));
    // The rate recovers: the time left comes back down towards the estimates.
    for (let t = 16_000; t <= 30_000; t += 1000) shown = eta.update(600 - t / 1000 + 12, t);
    expect(shown).toBeLessThan(swing);
    expect(shown).toBeGreaterThan(582);
  });

  it('counts down between estimates and keeps its value while the rate is unknown', () => {
    const eta = new SettledEta();
    for (let t = 0; t <= 10_000; t += 1000) eta.update(60 - t / 1000, t);
    expect(eta.update(Number.NaN, 15_000)).toBeCloseTo(45, 6);
  });
});

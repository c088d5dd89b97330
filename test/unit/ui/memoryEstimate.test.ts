// Before a drop is queued: the memory its library will need in the tab, from file sizes, against what the browser
// gives a tab — and, when it will not fit, the words, the numbers and the CLI command the Library view shows.
import { describe, expect, it } from 'vitest';
import {
  checkMemory,
  cliCommand,
  DEFAULT_BUDGET_BYTES,
  droppedFolder,
  estimateMemory,
  HEAP_MODEL,
  LEXICAL_PAGES_TEXT_MB,
  memoryBudget,
  TEXT_BYTES_PER_SENTENCE,
  type MemoryBudget,
} from '../../../src/ui/estimates/memoryEstimate.ts';
import { estimateDrop } from '../../../src/ui/estimates/storageEstimate.ts';

const MB = 1024 * 1024;
const GB = 1024 * MB;
const budget = (mb: number): MemoryBudget => memoryBudget({ overrideMB: mb });

describe('memory budget', () => {
  it('takes the URL parameter first, then Chromium’s heap limit, then a quarter of the device, then 1 GB', () => {
    expect(memoryBudget({ overrideMB: 64, jsHeapSizeLimit: 4 * GB, deviceMemoryGB: 8 }).bytes).toBe(64 * MB);
    expect(memoryBudget({ overrideMB: null, jsHeapSizeLimit: 4 * GB, deviceMemoryGB: 8 })).toEqual({
      bytes: 4 * GB,
      source: "this browser's JavaScript heap limit",
    });
    const device = memoryBudget({ deviceMemoryGB: 4 });
    expect(device.bytes).toBe(GB);
    expect(device.source).toBe("a quarter of this device's 4 GB of memory");
    expect(memoryBudget({}).bytes).toBe(DEFAULT_BUDGET_BYTES);
    expect(DEFAULT_BUDGET_BYTES).toBe(GB);
    // A parameter that is not a positive number is ignored.
    expect(memoryBudget({ overrideMB: Number('abc'), jsHeapSizeLimit: 2 * GB }).bytes).toBe(2 * GB);
    expect(memoryBudget({ overrideMB: 0 }).bytes).toBe(DEFAULT_BUDGET_BYTES);
  });
});

describe('memory estimate', () => {
  it('stops growing the lexical peak where a library gets pages, and keeps the measured 100 MiB drop under it', () => {
    const large = estimateMemory(estimateDrop([{ name: 'corpus.jsonl', size: 101 * MB }]), 0);
    const atPages = estimateMemory(
      estimateDrop([{ name: 'corpus.jsonl', size: LEXICAL_PAGES_TEXT_MB * MB }]),
      0,
    );
    expect(large.lexicalPeak).toBe(atPages.lexicalPeak);
    // docs/results/drop-heap.md: 101 MB of text dropped without vectors peaked at 495.4 MB of JS heap.
    expect(large.lexicalPeak).toBeGreaterThanOrEqual(495.4 * MB);
    // With sentence vectors there are no pages: the line goes on.
    expect(large.semanticPeak).toBeGreaterThan(atPages.semanticPeak * 5);
    // A 101 MB lexical drop fits Chromium's 4 GB heap; the same with vectors does not.
    const budget = { bytes: 4096 * MB, source: 'test' };
    expect(large.lexicalPeak).toBeLessThan(budget.bytes);
    expect(large.semanticPeak).toBeGreaterThan(budget.bytes);
  });

  it('grows with the library’s text: the drop’s, plus the stored sentences’', () => {
    const drop = estimateDrop([{ name: 'corpus.jsonl', size: 10 * MB }]);
    const alone = estimateMemory(drop, 0);
    expect(alone.libraryTextBytes).toBe(10 * MB);
    const { semantic, lexical } = HEAP_MODEL;
    expect(alone.semanticPeak).toBeCloseTo((semantic.total.baseMB + 10 * semantic.total.perTextMB) * MB, -3);
    expect(alone.lexicalPeak).toBeCloseTo((lexical.total.baseMB + 10 * lexical.total.perTextMB) * MB, -3);
    expect(alone.semanticOpen).toBeCloseTo((semantic.query.baseMB + 10 * semantic.query.perTextMB) * MB, -3);
    // Vectors cost more than the lexical layer; the query worker alone less than the tab as a whole.
    expect(alone.semanticPeak).toBeGreaterThan(alone.lexicalPeak);
    expect(alone.semanticPeak).toBeGreaterThan(alone.semanticOpen);
    expect(alone.lexicalPeak).toBeGreaterThan(alone.lexicalOpen);

    const onTop = estimateMemory(drop, 20_000);
    expect(onTop.libraryTextBytes).toBe(10 * MB + 20_000 * TEXT_BYTES_PER_SENTENCE);
    expect(onTop.semanticPeak).toBeGreaterThan(alone.semanticPeak);
  });

  it('puts a MuSiQue-sized drop above, and near, what bench:drop measured for it (docs/results/limits.md)', () => {
    // 3.2 MB of text in one JSON Lines file of 3.5 MB: 354.9 MB with vectors, 224.6 MB lexical only.
    const e = estimateMemory(estimateDrop([{ name: 'corpus.jsonl', size: 3.513 * MB }]), 0);
    expect(e.semanticPeak).toBeGreaterThanOrEqual(354.9 * MB);
    expect(e.semanticPeak).toBeLessThan(1.6 * 354.9 * MB);
    expect(e.lexicalPeak).toBeGreaterThanOrEqual(224.6 * MB);
    expect(e.lexicalPeak).toBeLessThan(1.6 * 224.6 * MB);
  });

  it('counts a PDF’s text as a fraction of its bytes', () => {
    const pdf = estimateMemory(estimateDrop([{ name: 'book.pdf', size: 10 * MB }]), 0);
    const txt = estimateMemory(estimateDrop([{ name: 'book.txt', size: 10 * MB }]), 0);
    expect(pdf.dropTextBytes).toBeCloseTo(3 * MB, 0);
    expect(pdf.semanticPeak).toBeLessThan(txt.semanticPeak);
  });
});

describe('memory check', () => {
  const opts = (b: MemoryBudget, vectors = true) => ({
    storedSentences: 0,
    vectors,
    budget: b,
    folder: 'papers' as string | null,
  });

  it('says nothing when the peak fits', () => {
    const drop = estimateDrop([{ name: 'papers/a.md', size: 200_000 }]);
    expect(checkMemory(drop, opts(memoryBudget({ jsHeapSizeLimit: 4 * GB })))).toBeNull();
  });

  it('names the text, the peak, the budget and its source, and the command, when it does not fit', () => {
    const drop = estimateDrop([
      { name: 'papers/a.md', size: 2 * MB },
      { name: 'papers/b.md', size: 2 * MB },
    ]);
    const peak = (HEAP_MODEL.semantic.total.baseMB + 4 * HEAP_MODEL.semantic.total.perTextMB) * MB;
    const lexicalPeak = (HEAP_MODEL.lexical.total.baseMB + 4 * HEAP_MODEL.lexical.total.perTextMB) * MB;
    // Just enough for the peak: it fits; a byte less does not.
    expect(checkMemory(drop, opts({ bytes: peak, source: 'test' }))).toBeNull();
    const short = checkMemory(drop, opts({ bytes: peak - 1, source: 'test' }));
    expect(short).not.toBeNull();
    expect(short?.lexicalFits).toBe(lexicalPeak <= peak - 1);
    expect(short?.message).toMatch(
      /^These 2 files hold about 4\.0 MB of text\. Indexing it with sentence vectors/,
    );
    expect(short?.message).toContain('The tab will likely run out of memory');
    expect(short?.command).toBe('npm run cli -- index papers --out library.bundle');

    // A small budget from the URL parameter: every number in the message is the model's, in the app's units.
    const tiny = checkMemory(drop, opts(budget(64)));
    expect(tiny?.lexicalFits).toBe(false);
    expect(tiny?.message).toContain(
      'this tab can use about 64 MB (the heapLimitMB parameter in the address)',
    );
    expect(tiny?.message).not.toContain('Without sentence vectors');
    expect(tiny?.bundleNote).toContain('Import bundle…');
    expect(tiny?.bundleNote).toContain('?bundle=');
    expect(tiny?.bundleNote).toMatch(
      /more than this tab can use: build it with --embedder none --pages instead/,
    );
  });

  it('offers the lexical layer when only it fits, and checks the lexical layer when vectors are off', () => {
    const drop = estimateDrop([{ name: 'papers/a.txt', size: 4 * MB }]);
    const lexicalPeak = (HEAP_MODEL.lexical.total.baseMB + 4 * HEAP_MODEL.lexical.total.perTextMB) * MB;
    const between = { bytes: lexicalPeak, source: 'test' };
    const short = checkMemory(drop, opts(between));
    expect(short?.lexicalFits).toBe(true);
    expect(short?.message).toMatch(
      /Without sentence vectors \(the lexical layer only\) it needs about .*, which fits\./,
    );
    // Vectors off: the same budget holds the lexical layer, so nothing is said.
    expect(checkMemory(drop, opts(between, false))).toBeNull();
    const lexicalShort = checkMemory(drop, opts({ bytes: lexicalPeak - 1, source: 'test' }, false));
    expect(lexicalShort?.message).toContain('Indexing its lexical layer in this tab');
    expect(lexicalShort?.command).toBe('npm run cli -- index papers --out library.bundle --embedder none');
  });

  it('counts the library already stored', () => {
    const drop = estimateDrop([{ name: 'a.txt', size: MB }]);
    const b = memoryBudget({ jsHeapSizeLimit: 2 * GB });
    expect(checkMemory(drop, { ...opts(b), storedSentences: 0 })).toBeNull();
    // 200,000 stored sentences are ~30 MB of text: with them, the same small drop does not fit.
    const full = checkMemory(drop, { ...opts(b), storedSentences: 200_000 });
    expect(full?.message).toMatch(
      /^This file holds about 1\.0 MB of text \(\d+ MB with the text already in your library\)/,
    );
  });
});

describe('the CLI command', () => {
  it('names the dropped folder when the files share one, quoted for the shell', () => {
    expect(droppedFolder(['papers/a.md', 'papers/sub/b.md'])).toBe('papers');
    expect(droppedFolder(['a.md', 'b.md'])).toBeNull();
    expect(droppedFolder(['x/a.md', 'y/b.md'])).toBeNull();
    expect(cliCommand(null, true)).toBe('npm run cli -- index <folder> --out library.bundle');
    expect(cliCommand("Jo's notes", true)).toBe("npm run cli -- index 'Jo'\\''s notes' --out library.bundle");
  });
});

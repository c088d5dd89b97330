// A bundle read by ranges reads, once open, the hash pages every question reads (BlockStore.readUpperPages): the
// source choice starts it when the bundle opens and stops it when another bundle replaces it or the opening is given
// back; a failure there is left to the question that reads those pages.
import { describe, expect, it } from 'vitest';
import type { PagedBundle } from '../../../../src/core/paged/index.ts';
import { SourceChoice } from '../../../../src/services/source/sourceChoice.ts';

/** A bundle whose store records each readUpperPages call's signal (nothing else of it is read here). */
function bundleReading(signals: AbortSignal[], fails = false): PagedBundle {
  const store = {
    readUpperPages: (signal: AbortSignal) => {
      signals.push(signal);
      return fails ? Promise.reject(new Error('corrupted hash page')) : Promise.resolve(0);
    },
  };
  return { library: { reader: { store } } } as unknown as PagedBundle;
}

const choice = () => new SourceChoice({} as never, {} as never, {} as never);

describe('SourceChoice reading ahead for a bundle read by ranges', () => {
  it('starts once the bundle is open, and stops when another replaces it or it is given back', async () => {
    const signals: AbortSignal[] = [];
    const sources = choice();
    sources.readByRanges(Promise.resolve(bundleReading(signals)));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(signals).toHaveLength(1);
    expect(signals[0].aborted).toBe(false);
    const giveBack = sources.readByRanges(Promise.resolve(bundleReading(signals)));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(signals.map((s) => s.aborted)).toEqual([true, false]);
    giveBack();
    expect(signals[1].aborted).toBe(true);
  });

  it('reads nothing ahead for a bundle read whole, and leaves a failure to the question', async () => {
    const signals: AbortSignal[] = [];
    const sources = choice();
    sources.readByRanges(Promise.resolve(undefined));
    sources.readByRanges(Promise.resolve(bundleReading(signals, true)));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(signals).toHaveLength(1);
    expect(await sources.bundleByRanges()).toBeDefined();
  });
});

describe('SourceChoice reading a question’s typed words ahead', () => {
  it('reads them from a bundle read by ranges only', async () => {
    const sources = choice();
    // No bundle read by ranges: nothing is opened or loaded for typed words (a library in memory or in storage).
    expect(await sources.typing()).toBeUndefined();
    const typed: Array<{ text: string; wanted: () => boolean }> = [];
    const bundle = {
      library: {
        reader: { store: { readUpperPages: () => Promise.resolve(0) } },
        prepare: (text: string, wanted: () => boolean) => {
          typed.push({ text, wanted });
          return Promise.resolve();
        },
      },
      manifest: { parts: [], counts: {} },
    } as unknown as PagedBundle;
    sources.readByRanges(Promise.resolve(bundle));
    const source = await sources.typing();
    expect(source?.prepare).toBeDefined();
    await source!.prepare!('who directed ', () => true);
    expect(typed.map((t) => t.text)).toEqual(['who directed ']);
    expect(typed[0].wanted()).toBe(true);
  });
});

// Hostile paged indexes (issue 43): pages whose every digest is right but whose counts, degrees or records lie. Each
// is answered or refused with a message naming the part, in bounded time. The question runs in a worker under a time
// limit (boundedRun.ts): before the fixes each of them never ended, and a synchronous loop cannot be stopped from the
// test. The crafted pages are made here, from honest pages written once for the file (pagedCases.ts).
import { describe, expect, it } from 'vitest';
import { runBounded } from '../../support/boundedRun.ts';
import { PAGES_QUESTION } from '../../support/hostilePages.ts';
import { CRAFTED } from '../../support/pagedCases.ts';

/** Far above what a case takes (a few seconds, most of it the worker's start-up), far below "never ends". */
const LIMIT_MS = 60_000;

async function ask(name: keyof typeof CRAFTED, mode = 'ppr') {
  const written = await CRAFTED[name]();
  return runBounded<string[]>(
    'test/support/craftedReads.ts',
    'askPages',
    [written, PAGES_QUESTION, mode],
    LIMIT_MS,
  );
}

describe('hostile pages', { timeout: LIMIT_MS + 10_000 }, () => {
  it('honest pages answer the question (the cases below change only what they name)', async () => {
    const run = await ask('honest');
    expect(run.outcome).toBe('value');
    if (run.outcome === 'value') expect(run.value.length).toBeGreaterThan(0);
  });

  it('tiny stored walk degrees under forged top brackets (version 2) are refused by the rows, and the walk ends', async () => {
    // The walk sums an exact degree from the concept's row (it does not read the `degrees` section): the row's sum
    // falls far below the bracket `open` claims.
    const run = await ask('tinyDegrees');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(
        /crafted\.bundle: pages\.bin stores the walk degree of concept \d+ as between \d+(\.\d+)? and Infinity, but its row sums to/,
      );
  });

  it('tiny stored walk degrees under honest brackets (version 2): the question is answered as honest pages answer it', async () => {
    const [honest, forged] = await Promise.all([ask('honest'), ask('tinySectionDegrees')]);
    expect(forged.outcome).toBe('value');
    if (honest.outcome === 'value' && forged.outcome === 'value') expect(forged.value).toEqual(honest.value);
  });

  it('tiny stored walk degrees (version 2) are refused by the Graph view, which reads them, naming the degree', async () => {
    const run = await runBounded<number[]>(
      'test/support/craftedReads.ts',
      'graphPages',
      [await CRAFTED.tinySectionDegrees()],
      LIMIT_MS,
    );
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(
        /crafted\.bundle: pages\.bin's degrees section gives concept \d+ a walk degree of 1e-300/,
      );
  });

  it('honest pages draw the Graph view from their stored degrees', async () => {
    const run = await runBounded<number[]>(
      'test/support/craftedReads.ts',
      'graphPages',
      [await CRAFTED.honest()],
      LIMIT_MS,
    );
    expect(run.outcome).toBe('value');
    if (run.outcome === 'value') expect(run.value.every((d) => d > 0)).toBe(true);
  });

  it('walk degree brackets the rows do not sum into (version 2) are refused', async () => {
    const run = await ask('wrongDegrees');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(
        /crafted\.bundle: pages\.bin stores the walk degree of concept \d+ as between 0 and 1, but its row sums to/,
      );
  });

  it('honest version 3 pages (lists without shares) answer as version 2 pages do', async () => {
    const [v2, v3] = await Promise.all([ask('honest'), ask('honestV3')]);
    expect(v3.outcome).toBe('value');
    if (v3.outcome === 'value') expect(v3.value.length).toBeGreaterThan(0);
    if (v2.outcome === 'value' && v3.outcome === 'value') expect(v3.value).toEqual(v2.value);
  });

  it('a version 3 list count of 0 (shares 0/0) is refused, naming the concept', async () => {
    const run = await ask('zeroCountV3');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(/crafted\.bundle: pages\.bin's chunk list of concept \d+ has a count of 0/);
  });

  it('version 3 pages without share parameters, or with one not a number, are refused at open', async () => {
    for (const name of ['noSharesV3', 'nanSharesV3'] as const) {
      const run = await ask(name);
      expect(run.outcome).toBe('error');
      if (run.outcome === 'error') expect(run.message).toMatch(/has bad share parameters/);
    }
  });

  it('tiny walk degrees in a version 1 `open` are refused, naming the degree', async () => {
    const run = await ask('tinyDegreesV1');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error') expect(run.message).toMatch(/crafted\.bundle: .*walk degree of concept \d+/);
  });

  it('a chunk concept count of 2^32−1 is refused at open, against the rows section it would need', async () => {
    // Before: decodeRowGroup looped 4.3 billion times.
    const run = await ask('hugeCount');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(
        /crafted\.bundle: pages\.bin \(open\) gives chunk 0 4294967295 concepts of \d+/,
      );
  });

  it("postings whose varints run past their list are refused naming the term's postings, in BM25 and PPR", async () => {
    // Before: "paged library: a varint runs past its bytes", a message that named no part (fuzzPages.scale). Every
    // term's postings are crafted: which term is named first depends on the blocks read together, a word or its stem
    // ("~" + stem, src/core/graph/analyzer.ts).
    for (const mode of ['bm25', 'ppr']) {
      const run = await ask('unendingPostings', mode);
      expect(run.outcome).toBe('error');
      if (run.outcome === 'error')
        expect(run.message).toMatch(
          /crafted\.bundle: pages\.bin's postings of "~?\w+" do not decode \(paged library: a varint/,
        );
    }
  });

  it('a record whose "sentences" claims 2e9 entries is refused when its group is decoded', async () => {
    // Before: recordSentences looped over the claimed length, allocating as it went (2.5 GB in 33 s in the CLI).
    const run = await ask('hugeSentences');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(
        /crafted\.bundle: pages\.bin group k0 does not decode \(its records 0 has "sentences" that are not a list/,
      );
  });
});

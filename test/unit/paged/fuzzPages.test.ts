// The paged format's and the range reader's fuzzer in the default tier (issue 43): a few hundred cases of changed
// pages, bundles and lying hosts, each answered or refused with a message naming the part (test/support/
// pagesFuzz.ts). Run in a worker under a time limit, so that a case that never ends fails the test instead of
// hanging it. Many thousands of cases: fuzzPages.scale.test.ts (`npm run test:scale`).
import { describe, expect, it } from 'vitest';
import { runBounded } from '../../support/boundedRun.ts';
import type { FuzzReport } from '../../support/pagesFuzz.ts';

/** Far above the ~20 s and ~10 s the two take (docs/results/hostile-round-three.md); a hang ends here. */
const LIMIT_MS = 120_000;
/** The newest fields' cases, a hang ends here. */
const NEWEST_LIMIT_MS = 360_000;
/** The default tier runs every third case of the newest fields' value grids (newestFieldsFuzz.ts, `stride`). */
const NEWEST_STRIDE = 3;

async function fuzz(
  fn: 'fuzzPages' | 'fuzzHost' | 'fuzzAnalyzer' | 'fuzzNewest',
  count: number,
  limitMs = LIMIT_MS,
): Promise<FuzzReport> {
  const module = fn === 'fuzzNewest' ? 'test/support/newestFieldsFuzz.ts' : 'test/support/pagesFuzz.ts';
  const run = await runBounded<FuzzReport>(module, fn, [count], limitMs);
  if (run.outcome !== 'value')
    throw new Error(`${fn}: ${run.outcome} ${'message' in run ? run.message : ''}`);
  console.log(
    `${fn}: ${run.value.cases} cases, ${run.value.answered} answered, ${run.value.refused} refused in ` +
      `${(run.value.ms / 1000).toFixed(1)} s; slowest ${run.value.slowest.ms.toFixed(0)} ms (${run.value.slowest.name}); ` +
      `peak ${run.value.peakMB.toFixed(0)} MB`,
  );
  return run.value;
}

describe('fuzzing the paged format and the range reader', { timeout: LIMIT_MS + 10_000 }, () => {
  it('changed pages and bundles: each answered or refused naming the part, memory bounded', async () => {
    const report = await fuzz('fuzzPages', 300);
    // Each case in bounded time: the slowest (a walk over a version 1 part, start-up included) took 1.8 s.
    expect(report.slowest.ms).toBeLessThan(20_000);
    expect(report.bad).toEqual([]);
    expect(report.cases).toBe(300);
    expect(report.refused).toBeGreaterThan(100);
    expect(report.peakMB).toBeLessThan(300);
  });

  it('every value of the analyzer field (pages and manifest): answered or refused naming pages.bin', async () => {
    const report = await fuzz('fuzzAnalyzer', 0);
    expect(report.bad).toEqual([]);
    // 1 and 2 are versions this app has, and no value at all is version 1: 3 of the values answer, both ways.
    expect(report.answered).toBeGreaterThanOrEqual(6);
    expect(report.refused).toBeGreaterThan(20);
    expect(report.peakMB).toBeLessThan(300);
  });

  it(
    'a third of the value changes of the newest fields (titleChunks, the themes part), every other change: answered or refused naming the part',
    {
      timeout: NEWEST_LIMIT_MS + 10_000,
    },
    async () => {
      // Every third case of the value grids (a field set to one value) and every other case: 162 of 438, 24.7 s at
      // load ~14. All of them (53 s at load ~45) are the scale tier's, fuzzPages.scale.test.ts.
      const report = await fuzz('fuzzNewest', NEWEST_STRIDE, NEWEST_LIMIT_MS);
      expect(report.cases).toBeGreaterThan(120);
      expect(report.bad).toEqual([]);
      // Refused: each titleChunks value out of its range, each themes field of the wrong kind, each bound passed, the
      // flipped byte and the bomb. Answered: the honest bundle, titleChunks missing (read as built), 3 MB of themes.
      expect(report.refused).toBeGreaterThan(100);
      expect(report.answered).toBeGreaterThanOrEqual(3);
      expect(report.slowest.ms).toBeLessThan(20_000);
      expect(report.peakMB).toBeLessThan(300);
    },
  );

  it('a host that lies: each read answered or refused naming the URL', async () => {
    const report = await fuzz('fuzzHost', 45);
    expect(report.slowest.ms).toBeLessThan(20_000);
    expect(report.bad).toEqual([]);
    expect(report.cases).toBe(45);
    expect(report.peakMB).toBeLessThan(300);
  });
});

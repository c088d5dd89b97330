// The paged format's fuzzer in the scale tier (`npm run test:scale`; `*.scale.test.ts` is left out of `npm test`):
// FUZZ_CASES cases of changed pages and bundles (default 5,000) and a tenth as many reads from a lying host, with the
// invariant of fuzzPages.test.ts. FUZZ_SEED draws another set. And every case of the newest fields (titleChunks, the
// themes part), of which the default tier runs a third of the value changes.
import { describe, expect, it } from 'vitest';
import { runBounded } from '../../support/boundedRun.ts';
import type { FuzzReport } from '../../support/pagesFuzz.ts';

const CASES = Number(process.env.FUZZ_CASES ?? 5000);
const SEED = Number(process.env.FUZZ_SEED ?? 4343);
/** About 70 ms a case here; far more than that, and a hang ends the run. */
const LIMIT_MS = 60_000 + CASES * 1000;

async function fuzz(fn: 'fuzzPages' | 'fuzzHost' | 'fuzzNewest', count: number): Promise<FuzzReport> {
  const [module, args] =
    fn === 'fuzzNewest'
      ? ['test/support/newestFieldsFuzz.ts', [1]]
      : ['test/support/pagesFuzz.ts', [count, SEED]];
  const run = await runBounded<FuzzReport>(module, fn, args, LIMIT_MS);
  if (run.outcome !== 'value')
    throw new Error(`${fn}: ${run.outcome} ${'message' in run ? run.message : ''}`);
  console.log(
    `${fn}: ${run.value.cases} cases${fn === 'fuzzNewest' ? '' : ` (seed ${SEED})`}, ${run.value.answered} answered, ${run.value.refused} refused ` +
      `in ${(run.value.ms / 1000).toFixed(1)} s; slowest ${run.value.slowest.ms.toFixed(0)} ms ` +
      `(${run.value.slowest.name}); peak ${run.value.peakMB.toFixed(0)} MB`,
  );
  return run.value;
}

/**
 * Run by `npm run test:scale` (or with FUZZ_CASES set): until the scale tier's exclusion from `npm test` lands, a
 * plain vitest run of the unit folder skips it rather than spend minutes on it.
 */
const scaleTier = process.env.npm_lifecycle_event === 'test:scale' || process.env.FUZZ_CASES !== undefined;

describe.runIf(scaleTier)('fuzzing the paged format at scale', { timeout: LIMIT_MS + 10_000 }, () => {
  it(`${CASES} changed pages and bundles`, async () => {
    const report = await fuzz('fuzzPages', CASES);
    expect(report.bad).toEqual([]);
    expect(report.slowest.ms).toBeLessThan(20_000);
    expect(report.peakMB).toBeLessThan(300);
  });

  it('every change of the newest fields (titleChunks, the themes part)', async () => {
    const report = await fuzz('fuzzNewest', 0);
    expect(report.bad).toEqual([]);
    // Refused: each titleChunks value out of its range, each themes field of the wrong kind, each bound passed, the
    // flipped byte and the bomb. Answered: the honest bundle, titleChunks missing (read as built), 3 MB of themes.
    expect(report.refused).toBeGreaterThan(150);
    expect(report.answered).toBeGreaterThanOrEqual(3);
    expect(report.slowest.ms).toBeLessThan(20_000);
    expect(report.peakMB).toBeLessThan(300);
  });

  it(`${Math.ceil(CASES / 10)} reads from a lying host`, async () => {
    const report = await fuzz('fuzzHost', Math.ceil(CASES / 10));
    expect(report.bad).toEqual([]);
    expect(report.peakMB).toBeLessThan(300);
  });
});

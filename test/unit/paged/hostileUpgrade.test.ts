// `cli upgrade` on crafted version 1 and 2 bundles (issue 43, MED 5): every digest right, the values wrong. Before the fix
// a negative IDF looped in idfDfOf, a list offset of Infinity looped in a varint, and a manifest whose entries alias
// the pages' bytes was written out entry by entry (1.14 MB in, 301 MB out). Each runs in a worker under a time limit.
import { describe, expect, it } from 'vitest';
import { runBounded } from '../../support/boundedRun.ts';
import { CRAFTED_BUNDLES } from '../../support/pagedCases.ts';

const LIMIT_MS = 60_000;
/** The bundle is crafted here (pagedCases.ts); only the upgrade runs in the worker. */
const upgrade = async (name: keyof typeof CRAFTED_BUNDLES, listsInRowsBytes?: number) =>
  runBounded<number>(
    'test/support/craftedReads.ts',
    'upgradeBytes',
    [await CRAFTED_BUNDLES[name](), listsInRowsBytes],
    LIMIT_MS,
  );

describe('cli upgrade on crafted bundles', { timeout: LIMIT_MS + 10_000 }, () => {
  it('refuses a negative IDF, naming it', async () => {
    const run = await upgrade('negativeIdf');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(/crafted\.bundle: pages\.bin \(open\) has idf that are not numbers ≥ 0/);
  });

  it('refuses a list offset of Infinity, naming it', async () => {
    const run = await upgrade('infiniteOffset');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(
        /crafted\.bundle: pages\.bin listOffsets go backwards or are not byte offsets/,
      );
  });

  it('refuses version 2 shares that are not what version 3 computes from the counts, naming the concept', async () => {
    const run = await upgrade('forgedShare');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(
        /crafted\.bundle: pages\.bin's chunk list of concept 0 stores a share of [\d.e-]+ where its counts give [\d.e-]+/,
      );
  });

  it('refuses version 3 rows that hold more or fewer ids than their counts when cutting them into version 5 groups, naming the rows', async () => {
    // As a library too large to keep its lists in its rows (listsInRowsBytes 0): its rows are regrouped.
    const past = await upgrade('rowsPastIds', 0);
    expect(past.outcome).toBe('error');
    if (past.outcome === 'error')
      expect(past.message).toMatch(
        /crafted\.bundle: pages\.bin's rows hold bytes past their chunks' concept ids \(at byte \d+\)/,
      );
    const short = await upgrade('rowsShort', 0);
    expect(short.outcome).toBe('error');
    if (short.outcome === 'error')
      expect(short.message).toMatch(
        /crafted\.bundle: pages\.bin's rows end in chunk \d+ of \d+, before their chunks' concept ids do/,
      );
    // The honest version 3 bundle upgrades so.
    const honest = await upgrade('honestV3', 0);
    expect(honest.outcome).toBe('value');
  });

  it('refuses manifest entries that share bytes, writing nothing', async () => {
    const run = await upgrade('aliasedManifest');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(/crafted\.bundle: parts pages\.bin and table\.alias0\.bin share bytes/);
  });
});

// One end-to-end size check in the default tier: a 10 MB plain-text file parses, hashes and chunks in under 6 s of
// CPU, every chunk within the limit. The 50 MB file (under 30 s) is the scale tier's: large.scale.test.ts.
import { describe, it } from 'vitest';
import { checkLargeText } from '../../support/largeText.ts';

describe('prepareFile on 10 MB', () => {
  it('parses and chunks a generated 10 MB .txt in under 6 s of CPU with every chunk within the limit', async () => {
    await checkLargeText(10);
  }, 60_000);
});

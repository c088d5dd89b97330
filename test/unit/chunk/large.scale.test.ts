// The scale tier (npm run test:scale) of large.test.ts: a 50 MB plain-text file must parse, hash and chunk in well
// under 30 s of CPU, every chunk within the limit.
import { describe, it } from 'vitest';
import { checkLargeText } from '../../support/largeText.ts';

describe('prepareFile on 50 MB', () => {
  it('parses and chunks a generated 50 MB .txt in under 30 s of CPU with every chunk within the limit', async () => {
    await checkLargeText(50);
  }, 120_000);
});

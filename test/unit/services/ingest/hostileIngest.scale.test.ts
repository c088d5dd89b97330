// The scale tier (npm run test:scale) of hostileIngest.test.ts: the whole hostile-input corpus in one batch through
// the real ingest pipeline — megabyte Markdown lines, 1 MB HTML, 200,000 bad .jsonl lines, the bombs — each file its
// verdict, the ordinary files indexed, the failures leaving the store as it was. The default tier runs the same check
// on one file of each verdict and reason.
import { describe, it } from 'vitest';
import { checkHostileBatch } from '../../../support/hostileBatch.ts';
import { hostileCorpus } from '../../../support/hostileCorpus.ts';

describe('hostile input through the ingest pipeline, the whole corpus', () => {
  it('gives every hostile file its verdict, indexes the rest of the batch, and failures change nothing stored', async () => {
    await checkHostileBatch(hostileCorpus());
  }, 600_000);
});

// When the warm start has the query worker load the library: also during a drop once its files are all stored and
// its graph covers some documents, so the question at "searchable" finds them read and analysed
// (docs/results/trust.md, round eleven).
import { describe, expect, it } from 'vitest';
import { warmDue } from '../../../src/ui/state/warmDue.ts';

describe('warmDue', () => {
  it('loads once indexing is idle or has only embedding left, whatever is searchable or waiting', () => {
    expect(warmDue(false, 0, 0)).toBe(true);
    expect(warmDue(false, 12, 3)).toBe(true);
  });

  it('loads during a drop once every file is stored and the graph covers some documents, not before', () => {
    expect(warmDue(true, 0, 0)).toBe(false);
    expect(warmDue(true, 5, 2)).toBe(false);
    expect(warmDue(true, 5, 0)).toBe(true);
  });
});

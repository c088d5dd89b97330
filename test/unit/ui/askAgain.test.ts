// When the Ask view asks a question again by itself (src/ui/state/askAgain.ts): an answer given while documents
// waited for the concept graph is asked again once a refresh makes more of them searchable, and only then.
import { describe, expect, it } from 'vitest';
import { askAgainDue, searchableDocuments } from '../../../src/ui/state/askAgain.ts';

describe('asking again when the graph takes in what waited', () => {
  const waiting = { awaitingGraph: { documents: 20 } };

  it('is due once more documents are searchable than when the answer was asked', () => {
    expect(askAgainDue(waiting, 40, 40, false)).toBe(false);
    expect(askAgainDue(waiting, 40, 60, false)).toBe(true);
  });

  it('is not due for an answer over everything stored, while a question runs, or for early evidence', () => {
    expect(askAgainDue({}, 40, 60, false)).toBe(false);
    expect(askAgainDue(null, 40, 60, false)).toBe(false);
    expect(askAgainDue(waiting, 40, 60, true)).toBe(false);
    expect(askAgainDue({ ...waiting, stage: 'early' }, 40, 60, false)).toBe(false);
  });

  it('counts what the graph covers while a run goes on, every stored document once it ended', () => {
    const during = { running: true, coverage: { searchableDocuments: 40 }, counts: { documents: 60 } };
    expect(searchableDocuments(during)).toBe(40);
    expect(searchableDocuments({ ...during, coverage: null })).toBe(0);
    expect(searchableDocuments({ ...during, running: false })).toBe(60);
  });
});

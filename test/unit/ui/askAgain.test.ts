// When the Ask view asks a question again by itself (src/ui/state/askAgain.ts): an answer given while documents
// waited for the concept graph, or while files of the drop were still to be stored, is asked again once a refresh
// makes more documents searchable, and only then.
import { describe, expect, it } from 'vitest';
import { askAgainDue, documentsComing, searchableDocuments } from '../../../src/ui/state/askAgain.ts';

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

  it('is due for an answer given while files of the drop still waited, once more are searchable', () => {
    // A first drop's first refresh covers its first batch: nothing stored is ahead of the graph (no awaitingGraph),
    // and the rest of the drop is still in the queue.
    const coming = { documents: 0, files: 3 };
    expect(askAgainDue({}, 32, 32, false, coming)).toBe(false);
    expect(askAgainDue({}, 32, 107, false, coming)).toBe(true);
    expect(askAgainDue({}, 32, 107, true, coming)).toBe(false);
    expect(askAgainDue({ stage: 'early' }, 32, 107, false, coming)).toBe(false);
    expect(askAgainDue({}, 32, 107, false, null)).toBe(false);
  });

  it('says what is coming while a run goes on: documents the graph does not cover, files waiting', () => {
    const during = {
      running: true,
      coverage: { searchableDocuments: 40 },
      counts: { documents: 60 },
      waiting: 2,
    };
    expect(documentsComing(during)).toEqual({ documents: 20, files: 2 });
    expect(documentsComing({ ...during, waiting: 0 })).toEqual({ documents: 20, files: 0 });
    expect(documentsComing({ ...during, counts: { documents: 40 } })).toEqual({ documents: 0, files: 2 });
    // Everything stored is searchable and nothing waits (vectors may still be added): nothing is coming.
    expect(documentsComing({ ...during, counts: { documents: 40 }, waiting: 0 })).toBeNull();
    expect(documentsComing({ ...during, running: false })).toBeNull();
  });

  it('counts what the graph covers while a run goes on, every stored document once it ended', () => {
    const during = { running: true, coverage: { searchableDocuments: 40 }, counts: { documents: 60 } };
    expect(searchableDocuments(during)).toBe(40);
    expect(searchableDocuments({ ...during, coverage: null })).toBe(0);
    expect(searchableDocuments({ ...during, running: false })).toBe(60);
  });
});

import { describe, expect, it } from 'vitest';
import { bestExcerpt } from '../../../src/core/retrieval/excerpt.ts';
import { cleanHeading, sectionPaths, withSectionPaths } from '../../../src/core/retrieval/sectionPath.ts';

describe('sectionPaths', () => {
  it('nests headings by level under the document title, dropping heading ids', () => {
    const paths = sectionPaths('Computed Properties {#computed-properties}', [
      { index: 0, level: 1, heading: 'Computed Properties {#computed-properties}' },
      { index: 1, level: 2, heading: 'Basic Example {#basic-example}' },
      { index: 2, level: 2, heading: 'Best Practices' },
      { index: 3, level: 3, heading: 'Getters should be side-effect free' },
      { index: 4, level: 2, heading: 'Writable Computed' },
    ]);
    expect(paths.get(0)).toEqual(['Computed Properties']);
    expect(paths.get(1)).toEqual(['Computed Properties', 'Basic Example']);
    expect(paths.get(3)).toEqual([
      'Computed Properties',
      'Best Practices',
      'Getters should be side-effect free',
    ]);
    // A level-2 heading closes the level-3 one before it.
    expect(paths.get(4)).toEqual(['Computed Properties', 'Writable Computed']);
  });

  it('puts the file title first when the headings do not repeat it, and keeps the text before any heading', () => {
    const paths = sectionPaths('notes.txt', [
      { index: 0, level: 0, heading: '' },
      { index: 1, level: 2, heading: 'Setup' },
    ]);
    expect(paths.get(0)).toEqual(['notes.txt']);
    expect(paths.get(1)).toEqual(['notes.txt', 'Setup']);
  });

  it('gives every chunk its section path, and the title where the section is unknown', () => {
    const chunks = withSectionPaths(
      [{ id: 'd1', title: 'Guide' }],
      [{ docId: 'd1', index: 0, level: 1, heading: 'Install' }],
      [
        { docId: 'd1', sectionIndex: 0 },
        { docId: 'd1', sectionIndex: 7 },
      ],
    );
    expect(chunks.map((c) => c.path)).toEqual([['Guide', 'Install'], ['Guide']]);
    expect(cleanHeading('  A  {#a}')).toBe('A');
  });
});

describe('bestExcerpt', () => {
  const s = (score: number, tokens: number) => ({ start: 0, end: 0, score, tokens });

  it('grows from the best sentence towards the better neighbour while it fits', () => {
    // Best is #2 (0.9); neighbours #1 (0.5) and #3 (0.7): #3 first, then #1, then #4 (0.6) does not fit.
    const run = bestExcerpt([s(0.1, 10), s(0.5, 10), s(0.9, 10), s(0.7, 10), s(0.6, 15)], 30);
    expect(run).toEqual({ first: 1, last: 3 });
  });

  it('starts from the best sentence that fits at all, and gives up when none does', () => {
    expect(bestExcerpt([s(0.9, 50), s(0.3, 10)], 20)).toEqual({ first: 1, last: 1 });
    expect(bestExcerpt([s(0.9, 50)], 20)).toBeUndefined();
  });
});

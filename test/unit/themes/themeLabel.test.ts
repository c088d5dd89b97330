// A theme's label: its concepts ranked by centrality within the community times the square root of the share of
// their documents that are in the theme, three that each add a word, no number among them.
import { describe, expect, it } from 'vitest';
import { labelScore, labelTerms } from '../../../src/core/themes/themeLabel.ts';

describe('labelTerms', () => {
  it('passes over a concept whose words are all in the label already, and numbers', () => {
    expect(labelTerms(['event', 'events', '1st', 'event handling', '1920s', 'emit'], 3)).toEqual([
      'event',
      'event handling',
      'emit',
    ]);
    expect(labelTerms(['virtual dom', 'virtual', 'rendering'], 2)).toEqual(['virtual dom', 'rendering']);
  });

  it('keeps identifiers with digits, which are words of their own', () => {
    expect(labelTerms(['i32', 'u32', 'x86_64'], 3)).toEqual(['i32', 'u32', 'x86_64']);
  });

  it('fills the label from the rest when too few concepts add a word', () => {
    expect(labelTerms(['slot', 'slots', '3rd'], 3)).toEqual(['slot', 'slots', '3rd']);
  });
});

describe('labelScore', () => {
  it('ranks a concept all in its theme above a more central one spread over four times as many documents', () => {
    const own = labelScore({ centrality: 0.1, documents: 10, documentsInTheme: 10 });
    const spread = labelScore({ centrality: 0.15, documents: 40, documentsInTheme: 10 });
    // 0.1 × √1 against 0.15 × √0.25 = 0.075.
    expect(own).toBeCloseTo(0.1, 9);
    expect(spread).toBeCloseTo(0.075, 9);
    expect(own).toBeGreaterThan(spread);
  });

  it('keeps centrality first between concepts equally the theme’s own', () => {
    const a = labelScore({ centrality: 0.2, documents: 3, documentsInTheme: 3 });
    const b = labelScore({ centrality: 0.1, documents: 1, documentsInTheme: 1 });
    expect(a).toBeGreaterThan(b);
    expect(labelScore({ centrality: 0.2, documents: 0, documentsInTheme: 0 })).toBe(0);
  });
});

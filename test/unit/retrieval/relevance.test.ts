// One relevance scale for every mode: the same passages rate the same whatever scale their mode scores on; an
// off-topic question (no word of it in any passage) is "no good match"; the passages shown before "more".
import { describe, expect, it } from 'vitest';
import { passagesShown, rateEvidence, relevanceLabel } from '../../../src/core/retrieval/relevance.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';

const analyzer = createTermAnalyzer();
const terms = (t: string) => analyzer.terms(t);

const PASSAGES = [
  {
    text: "We can force a watcher's callback to run immediately with the immediate option.",
    path: ['Watchers'],
  },
  {
    text: 'A computed property caches its value until its reactive dependencies change.',
    path: ['Computed'],
  },
  {
    text: 'Lifecycle hooks let you run code at specific stages of a component instance.',
    path: ['Lifecycle'],
  },
];

describe('rateEvidence', () => {
  it('rates the same passages the same on any score scale (PageRank mass, cosine, BM25)', () => {
    const question = 'How do I run a watcher callback immediately?';
    const scales = [
      [0.016, 0.004, 0.0016],
      [0.8, 0.2, 0.08],
      [6.4, 1.6, 0.64],
    ];
    const rated = scales.map((s) =>
      rateEvidence(
        question,
        PASSAGES.map((p, i) => ({ ...p, score: s[i] })),
        terms,
      ).relevance.map((r) => r.value),
    );
    // The ratio of each score to the best is the same on the three scales, and so is the rating.
    expect(rated[1]).toEqual(rated[0]);
    expect(rated[2]).toEqual(rated[0]);
    expect(rated[0][0]).toBe(100); // every word of the question, the best score
    expect(rated[0][0]).toBeGreaterThan(rated[0][1]);
  });

  it('says "no good match" when none of the question’s words occurs, and not when one does', () => {
    const scored = PASSAGES.map((p, i) => ({ ...p, score: 1 - i / 10 }));
    const off = rateEvidence('quantum chromodynamics', scored, terms);
    expect(off.noGoodMatch).toBe(true);
    expect(off.relevance.map((r) => r.value)).toEqual([0, 0, 0]);
    const on = rateEvidence('quantum chromodynamics of a computed property', scored, terms);
    expect(on.noGoodMatch).toBe(false);
    // A question of stop words only says nothing either way: the ranking alone rates it.
    expect(rateEvidence('how is it', scored, terms).noGoodMatch).toBe(false);
  });

  it('counts the heading path as the passage’s words', () => {
    const [withPath] = rateEvidence(
      'watchers',
      [{ text: 'It runs eagerly.', path: ['Watchers'], score: 1 }],
      terms,
    ).relevance;
    const [without] = rateEvidence('watchers', [{ text: 'It runs eagerly.', score: 1 }], terms).relevance;
    expect(withPath.value).toBe(100);
    expect(without.value).toBe(0);
  });
});

describe('labels and passages shown', () => {
  it('labels the scale', () => {
    expect([100, 60, 59, 35, 34, 15, 14, 0].map(relevanceLabel)).toEqual([
      'strong',
      'strong',
      'good',
      'good',
      'partial',
      'partial',
      'weak',
      'weak',
    ]);
  });

  it('shows 5 to 8 passages: those within half of the best', () => {
    expect(passagesShown([])).toBe(0);
    expect(passagesShown([90, 10])).toBe(2);
    expect(passagesShown(Array.from({ length: 40 }, (_, i) => 100 - i * 20))).toBe(5);
    expect(passagesShown(Array.from({ length: 40 }, (_, i) => 100 - i))).toBe(8);
    expect(passagesShown([100, 90, 80, 70, 60, 55, 10, 5, 1])).toBe(6);
  });
});

// A question's analysed texts kept for its later runs (keptTerms.ts): each text analysed once until cleared, every
// caller given the analyser's own terms in a list of its own, and the analyser's other methods untouched.
import { describe, expect, it, vi } from 'vitest';
import { KeptTerms } from '../../../src/core/paged/keptTerms.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';

describe('KeptTerms', () => {
  it('analyses a text once until cleared, and gives each caller a copy of the analyser’s terms', () => {
    const analyzer = createTermAnalyzer();
    const terms = vi.spyOn(analyzer, 'terms');
    const kept = new KeptTerms(analyzer);
    const text = 'The walkers walked the walk: PageRank over checked row blocks.';
    const first = kept.analyzer.terms(text);
    expect(first).toEqual(createTermAnalyzer().terms(text));
    first.push('changed by a caller');
    expect(kept.analyzer.terms(text)).toEqual(createTermAnalyzer().terms(text));
    expect(terms).toHaveBeenCalledTimes(1);
    kept.analyzer.terms('another text');
    expect(terms).toHaveBeenCalledTimes(2);
    kept.clear();
    kept.analyzer.terms(text);
    expect(terms).toHaveBeenCalledTimes(3);
  });

  it('keeps the analyser’s other methods and fields, own or inherited', () => {
    const analyzer = createTermAnalyzer();
    const kept = new KeptTerms(analyzer).analyzer;
    expect(kept.version).toBe(analyzer.version);
    expect(kept.words('Port of Spain')).toEqual(analyzer.words('Port of Spain'));
    class Hand {
      terms(text: string): string[] {
        return text.split(' ');
      }
      phrases(): string[] {
        return ['a phrase'];
      }
      words(text: string): string[] {
        return [text];
      }
    }
    const hand = new KeptTerms(new Hand()).analyzer;
    expect(hand.phrases('x')).toEqual(['a phrase']);
    expect(hand.terms('a b')).toEqual(['a', 'b']);
  });
});

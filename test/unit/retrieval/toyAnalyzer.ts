// A tiny analyser for retrieval tests: lowercase ASCII words minus a few stop words, capitalized phrases.
import type { TermAnalyzer } from '../../../src/core/graph/analyzer.ts';

const STOP = new Set([
  'the',
  'a',
  'an',
  'of',
  'in',
  'was',
  'is',
  'who',
  'what',
  'when',
  'did',
  'his',
  'her',
  'and',
]);

export const toyAnalyzer: TermAnalyzer = {
  terms: (text) => (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !STOP.has(w) && w.length > 1),
  phrases: (text) =>
    (text.match(/[A-Z][a-z0-9]*(?: (?:of )?[A-Z][a-z0-9]*)+/g) ?? []).map((p) => p.toLowerCase()),
  words: (text) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [],
};

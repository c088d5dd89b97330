// The analyser's stems (text analyzer version 2): plain English words meet their other forms, names and identifiers
// keep theirs, and BM25 still ranks a passage that uses the question's very word above one that uses another form.
import { describe, expect, it } from 'vitest';
import { STEM_PREFIX } from '../../../src/core/graph/index.ts';
import { Bm25Index } from '../../../src/core/retrieval/bm25.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';

const stems = (text: string) =>
  createTermAnalyzer()
    .terms(text)
    .filter((t) => t.startsWith(STEM_PREFIX))
    .map((t) => t.slice(STEM_PREFIX.length));

describe('text analyzer version 2: stems', () => {
  it('gives the Snowball English stem of plain words beside the word as written', () => {
    expect(createTermAnalyzer().terms('Watchers run immediately.')).toEqual([
      'watchers',
      '~watcher',
      'run',
      '~run',
      'immediately',
      '~immedi',
    ]);
    // "immediate" and "immediately", "borrowing" and "borrowed" meet on their stems.
    expect(stems('immediate')).toEqual(stems('immediately'));
    expect(stems('borrowing')).toEqual(stems('borrowed'));
  });

  it('never stems identifiers, words with digits, or capitalised names in mid-sentence', () => {
    expect(stems('Call watchEffect, fs.readFile and max_connections in v3.2 or es2015 builds')).toEqual([
      'call',
      'build',
    ]);
    // "Windows" mid-sentence is a name (not "window"); the same word starting a sentence or a line is a word.
    expect(stems('Install it on Windows today.')).toEqual(['instal', 'today']);
    expect(stems('It runs. Windows open.\nRenders fast')).toEqual([
      'run',
      'window',
      'open',
      'render',
      'fast',
    ]);
    // A Title Case heading is not a run of names.
    expect(stems('Computed Properties')).toEqual(['comput', 'properti']);
    // Chinese words, all-capital acronyms: as written.
    expect(stems('在概念图上 HTTP APIs')).toEqual([]);
  });

  it('keeps version 1 (no stems) for libraries built before stemming, and refuses an unknown version', () => {
    const v1 = createTermAnalyzer(1);
    expect(v1.version).toBe(1);
    expect(v1.terms('Watchers run immediately.')).toEqual(['watchers', 'run', 'immediately']);
    expect(createTermAnalyzer().atVersion!(1).terms('watchers')).toEqual(['watchers']);
    expect(() => createTermAnalyzer(9)).toThrow(/version 9 is unknown/);
  });

  it('lets BM25 find another form of a question word, ranking the very form first', () => {
    const analyzer = createTermAnalyzer();
    const passages = [
      'A watcher runs a callback when its source changes.',
      'Deep watchers traverse every nested property of the source.',
      'Lists render one item per entry.',
    ];
    const index = new Bm25Index(passages.map((p) => analyzer.terms(p)));
    const rank = (q: string) => index.search(analyzer.terms(q), 10).map((c) => c.chunk);
    // Both watcher passages answer either form; the one that says the question's word comes first.
    expect(rank('How do watchers work?')).toEqual([1, 0]);
    expect(rank('How does a watcher work?')).toEqual([0, 1]);
    // Version 1 finds only the very form.
    const v1 = createTermAnalyzer(1);
    const plain = new Bm25Index(passages.map((p) => v1.terms(p)));
    expect(plain.search(v1.terms('How do watchers work?'), 10).map((c) => c.chunk)).toEqual([1]);
  });

  it('counts a chunk length in words as written, so stems do not lengthen prose against code', () => {
    const analyzer = createTermAnalyzer();
    const index = new Bm25Index([analyzer.terms('watchers watch values'), analyzer.terms('fooBar bazQux')]);
    expect(index.lengthOf(0)).toBe(3);
    expect(index.lengthOf(1)).toBe(2);
  });
});

// Keyphrases per chunk: salient within the document, headings kept, no generic words, independent of other documents.
import { describe, expect, it } from 'vitest';
import { chunkKeyphrases, type KeyphraseChunk } from '../../../src/core/graph/keyphrases.ts';
import { createTermAnalyzer } from '../../../src/core/text/analyzer.ts';

const analyzer = createTermAnalyzer();
const distinct = (list: string[]) => [...new Set(list)].sort();

const MANUAL: KeyphraseChunk[] = [
  {
    docId: 'watchers',
    path: ['Watchers', 'Eager Watchers'],
    text: 'A watcher is lazy by default. Pass immediate: true to run the watcher callback immediately. The watcher callback then runs once at creation. Actually this is important and much needed.',
  },
  {
    docId: 'watchers',
    path: ['Watchers', 'Callback Flush Timing'],
    text: 'Watcher callbacks run before the DOM update. Use flush: post to access the updated DOM in a watcher callback, or watchPostEffect.',
  },
  {
    docId: 'watchers',
    path: ['Watchers', 'Stopping a Watcher'],
    text: 'A watcher created synchronously in setup() stops when the owner component is unmounted. Call the returned handle to stop a watcher.',
  },
];

describe('chunkKeyphrases', () => {
  it('keeps the salient terms and the heading of each chunk and never a generic word', () => {
    const lists = chunkKeyphrases(analyzer, MANUAL, { keyphraseScale: 3 });
    const first = distinct(lists[0]);
    // The section's own subject, from its heading and its text.
    expect(first).toContain('eager');
    expect(first).toContain('lazy');
    // The page's subject is kept though it is in every chunk of the page: its title names it.
    for (const l of lists) expect(distinct(l)).toContain('watchers');
    expect(distinct(lists[1])).toContain('watchposteffect');
    for (const l of lists)
      for (const generic of ['actually', 'important', 'much', 'needed', 'run'])
        expect(l).not.toContain(generic);
  });

  it('repeats a keyphrase as often as the chunk uses it (its tf for the TF-IDF weight)', () => {
    const lists = chunkKeyphrases(analyzer, MANUAL, { keyphraseScale: 0 });
    expect(lists[0].filter((t) => t === 'watcher').length).toBe(3);
  });

  it('keeps a recurring word pair as a term, not a pair seen once', () => {
    const lists = chunkKeyphrases(analyzer, MANUAL, { keyphraseScale: 0 });
    expect(lists.flat()).toContain('watcher callback');
    expect(lists.flat()).not.toContain('owner component');
  });

  it('keeps fewer terms per word in a long chunk than in a short one, and at least its headings', () => {
    const words = Array.from({ length: 400 }, (_, i) => `term${i}x`).join(' ');
    // Sections of documents of two chunks each (a document of one chunk keeps more: the next test).
    const [short, , long] = chunkKeyphrases(
      analyzer,
      [
        { docId: 'a', text: words.split(' ').slice(0, 25).join(' ') },
        { docId: 'a', text: 'other' },
        { docId: 'b', text: words, path: ['Ownership'] },
        { docId: 'b', text: 'other' },
      ],
      { keyphraseScale: 3 },
    );
    expect(distinct(short).length).toBe(Math.ceil(3 * Math.sqrt(25)));
    expect(distinct(long).length).toBeLessThanOrEqual(Math.ceil(3 * Math.sqrt(402)) + 2);
    expect(long).toContain('ownership');
    // An English chunk alone in its document is capped as well.
    const [alone] = chunkKeyphrases(analyzer, [{ docId: 'c', text: words }], { keyphraseScale: 3 });
    expect(distinct(alone).length).toBeLessThanOrEqual(Math.ceil(3 * Math.sqrt(400)));
    // A long Chinese chunk alone in its document keeps a bounded number (100), not all of its words.
    const han = Array.from({ length: 300 }, (_, i) =>
      String.fromCodePoint(0x4e00 + 2 * i, 0x4e01 + 2 * i),
    ).join('，');
    const [chinese] = chunkKeyphrases(analyzer, [{ docId: 'z', text: han }], { keyphraseScale: 1 });
    expect(distinct(chinese).length).toBe(100);
  });

  it("gives a document the same keyphrases whatever else the library holds (the incremental graph's premise)", () => {
    const alone = chunkKeyphrases(analyzer, MANUAL, { keyphraseScale: 3 });
    const other: KeyphraseChunk = {
      docId: 'encyclopedia',
      path: ['Lothair II'],
      text: 'Lothair II was a king. His watcher was lazy and immediate.',
    };
    const mixed = chunkKeyphrases(analyzer, [other, ...MANUAL], { keyphraseScale: 3 });
    expect(mixed.slice(1)).toEqual(alone);
    expect(distinct(mixed[0])).toContain('lothair ii');
  });

  it('keeps every candidate of a document that is one chunk (no other section to weigh its words against)', () => {
    // A paragraph of Chinese prose: nearly every word occurs once, so a cap would keep the alphabetically first.
    const text =
      '为解决此问题，我们提出在句子级别构建概念语义嵌入。对于每个概念，我们首先识别与其关联的所有文本块，然后使用句子分割器将这些块分割为句子，得到包含该概念的所有句子集合。';
    const c = analyzer.candidates!(text);
    const all = distinct([...c.words, ...c.units]);
    expect(all.length).toBeGreaterThan(15);
    const [alone] = chunkKeyphrases(analyzer, [{ docId: 'p', text }], { keyphraseScale: 1 });
    expect(distinct(alone)).toEqual(all);
    // The same paragraph as one of two sections of a document is capped as before: ⌈1 · √candidates⌉ and headings.
    const [capped] = chunkKeyphrases(
      analyzer,
      [
        { docId: 'd', text },
        { docId: 'd', text: '概念图的边由语义相关性与共现共同决定。' },
      ],
      { keyphraseScale: 1 },
    );
    expect(distinct(capped).length).toBeLessThan(all.length);
  });
});

// The highlighted sentence prefers prose that answers over a code fragment, over the real Vue "Eager Watchers"
// passage: with cosines where the code line "watch: {" scores highest (as the issue saw once vectors existed),
// the pick is still "We can force a watcher's callback to be executed immediately … immediate: true"; a code
// block that is the evidence is highlighted whole.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareFile } from '../../../src/core/prepare.ts';
import { enclosingBlock, looksLikeCode, pickSentences } from '../../../src/core/retrieval/sentencePick.ts';
import type { SentenceHit } from '../../../src/core/retrieval/types.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';

const analyzer = createTermAnalyzer();
const terms = (t: string) => analyzer.terms(t);
const QUESTION =
  'My watcher only runs after the value changes, but I also want it to fetch data once as soon as the component ' +
  'is created. Do I have to repeat the call in onMounted?';

async function eagerWatchers(): Promise<{ text: string; sentences: SentenceHit[] }> {
  const file = join(import.meta.dirname, '../../fixtures/vuedocs/pages/guide__essentials__watchers.md');
  const { documents } = await prepareFile(
    'guide__essentials__watchers.md',
    new Uint8Array(readFileSync(file)),
    {
      maxChunkTokens: 1200,
    },
  );
  const doc = documents[0];
  const chunk = doc.chunks.find((c) => c.text.startsWith('Eager Watchers'));
  if (!chunk) throw new Error('no "Eager Watchers" chunk in the fixture');
  const sentences = doc.sentences
    .filter((s) => s.chunkId === chunk.id)
    .map((s) => ({ start: s.start - chunk.start, end: s.end - chunk.start, score: 0.3 }));
  return { text: chunk.text, sentences };
}

describe('looksLikeCode', () => {
  it('tells code lines from prose that quotes code', () => {
    for (const code of [
      'watch: {',
      'immediate: true',
      '{ immediate: true }',
      '},',
      'export default {',
      'watch(',
    ]) {
      expect(looksLikeCode(code), code).toBe(true);
    }
    for (const prose of [
      "We can force a watcher's callback to be executed immediately by passing the immediate: true option:",
      'The initial execution of the handler function will happen just before the created hook.',
      'Eager Watchers',
    ]) {
      expect(looksLikeCode(prose), prose).toBe(false);
    }
  });
});

describe('pickSentences', () => {
  it('picks the prose that answers over "watch: {" even when the code line has the best cosine', async () => {
    const { text, sentences } = await eagerWatchers();
    const at = (needle: string) => sentences.findIndex((s) => text.slice(s.start, s.end).startsWith(needle));
    const watch = at('watch: {');
    const force = at("We can force a watcher's callback to be executed immediately by declaring");
    expect(watch).toBeGreaterThanOrEqual(0);
    expect(force).toBeGreaterThanOrEqual(0);
    sentences[watch].score = 0.62;
    sentences[force].score = 0.5;
    // The raw order (what the highlight was before): the code line first.
    expect([...sentences].sort((a, b) => b.score - a.score)[0]).toBe(sentences[watch]);
    const picked = pickSentences(text, sentences, {
      byVector: true,
      questionTerms: new Set(terms(QUESTION)),
      terms,
    });
    const first = text.slice(picked[0].start, picked[0].end);
    expect(first).toMatch(
      /^We can force a watcher's callback to be executed immediately .*immediate: true option:$/,
    );
    expect(picked.map((p) => text.slice(p.start, p.end))).not.toContain('watch: {');
  });

  it('highlights a code block whole when code is the evidence', () => {
    const text = 'Setup\n\nconst count = ref(0)\nwatch(count, (n) => {\n  console.log(n)\n})\n\nThe end.';
    const line = text.indexOf('watch(count');
    const hits: SentenceHit[] = [
      { start: 0, end: 5, score: 0.1 },
      { start: line, end: line + 'watch(count, (n) => {'.length, score: 0.9 },
      { start: text.indexOf('The end.'), end: text.length, score: 0.05 },
    ];
    const picked = pickSentences(text, hits, {
      byVector: true,
      questionTerms: new Set(terms('watch count')),
      terms,
    });
    expect(text.slice(picked[0].start, picked[0].end)).toBe(
      'const count = ref(0)\nwatch(count, (n) => {\n  console.log(n)\n})',
    );
    expect(enclosingBlock(text, line, line + 5)).toEqual({ start: picked[0].start, end: picked[0].end });
  });

  it('without vectors keeps only sentences that share a word with the question', () => {
    const text = 'Cats purr. Dogs bark.';
    const picked = pickSentences(
      text,
      [
        { start: 0, end: 10, score: 0.5 },
        { start: 11, end: 21, score: 0 },
      ],
      { byVector: false, questionTerms: new Set(terms('cats')), terms },
    );
    expect(picked).toEqual([{ start: 0, end: 10, score: 0.5 }]);
  });
});

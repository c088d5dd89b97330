// A corpus-wide question through the one ask(): in the default mode it is answered by the library's themes, each
// theme's representative passage shown as evidence (so its sentence is citable), over a library in memory and over
// its pages read by ranges alike; any other question or mode is answered the ordinary way.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseQuestionMode } from '../../../../src/services/questions/modeRegistry.ts';
import { ask } from '../../../../src/services/source/ask.ts';
import type { LibrarySource } from '../../../../src/services/source/librarySource.ts';
import { openSource } from '../../../../src/services/source/openSource.ts';
import { themesOfLibrary } from '../../../../src/services/themes/themesOf.ts';
import { bothLibraries, type BothLibraries } from '../../../support/pagedLibraries.ts';

const FIXTURE = join(import.meta.dirname, '../../../fixtures/vuedocs/pages');
let both: BothLibraries;
let memory: LibrarySource;
let pages: LibrarySource;

beforeAll(async () => {
  both = await bothLibraries(FIXTURE);
  memory = openSource({ library: both.library });
  pages = openSource({ paged: both.paged, themes: () => Promise.resolve(themesOfLibrary(both.library)) });
}, 120_000);

const request = (question: string, mode = 'default') => ({
  question,
  mode: parseQuestionMode(mode, { allowDefault: true }).name,
  budget: 3000,
});

describe('a corpus-wide question in ask()', () => {
  it.each(['memory', 'pages'] as const)(
    'is answered by the themes over %s, each sentence in its passage',
    async (kind) => {
      const source = kind === 'memory' ? memory : pages;
      const themes = themesOfLibrary(both.library);
      expect(themes.themes.length).toBeGreaterThanOrEqual(3);
      const result = await ask(source, request('What is this about?'));
      expect(result.themes).toBeDefined();
      const shown = result.themes!.themes;
      expect(shown.length).toBeGreaterThanOrEqual(3);
      expect(result.evidence).toHaveLength(shown.length);
      shown.forEach((theme, i) => {
        const stored = themes.themes[i];
        expect(theme.label).toBe(stored.label);
        const card = result.evidence[theme.passage];
        // The card is the theme's first representative passage, and its sentence is a sentence of that card.
        expect(card.chunkId).toBe(stored.passages[0]);
        expect(theme.sentence.length).toBeGreaterThan(0);
        expect(card.text).toContain(theme.sentence);
        expect(card.docTitle.length).toBeGreaterThan(0);
      });
      // Cards in rank order: scores never rise.
      for (let i = 1; i < result.evidence.length; i++)
        expect(result.evidence[i].score).toBeLessThanOrEqual(result.evidence[i - 1].score);
      // Citable: the written answer's citation source knows the shown passages' sentences.
      const cited = source.citations();
      expect(cited).toBeDefined();
      if (kind === 'pages') expect(result.reads?.bytes).toBeGreaterThan(0);
    },
  );

  it('answers the same themes from memory and from pages', async () => {
    const a = await ask(memory, request('What are the main topics of these documents?'));
    const b = await ask(pages, request('What are the main topics of these documents?'));
    expect(b.themes).toEqual(a.themes);
    expect(b.evidence.map((e) => e.chunkId)).toEqual(a.evidence.map((e) => e.chunkId));
  });

  it('answers a question with a content word, or another mode, the ordinary way', async () => {
    const content = await ask(memory, request('What does watchEffect track?'));
    expect(content.themes).toBeUndefined();
    const walk = both.engine.search({ text: 'What does watchEffect track?' }, 'ppr', 3000);
    expect(content.evidence.map((e) => e.chunkId)).toEqual(walk.map((h) => h.chunkId));
    const bm25 = await ask(memory, request('What is this about?', 'bm25'));
    expect(bm25.themes).toBeUndefined();
  });

  it('without themes (a source that has none) goes the ordinary way', async () => {
    const none = openSource({ paged: both.paged });
    const result = await ask(none, request('What is this about?'));
    expect(result.themes).toBeUndefined();
  });
});

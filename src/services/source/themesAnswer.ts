// The answer to a corpus-wide question ("What is this about?") without an LLM: the library's largest themes, each
// with its size, its key documents and one representative sentence from a passage of its own, shown as evidence so
// that every sentence is citable like any other answer's. `ask()` gives it in the default mode when the question is
// recognised (core/themes/corpusQuestion.ts) and the source has themes.
import type { RetrievedChunk } from '../../core/retrieval/index.ts';
import type { LibraryThemes, Theme } from '../../core/themes/index.ts';
import type { SourceQuestion } from './librarySource.ts';
import type { ThemesOverview } from '../themes/themesProtocol.ts';
import { answerCandidates, answerPassages, THEMES_SHOWN } from '../themes/answerPassages.ts';

/** Themes an answer shows at least when the budget is small. */
const THEMES_SHOWN_MIN = 3;

/** The largest themes' passages as hits (in theme order, within `budget` tokens) and the overview that cites them. */
export async function themesAnswer(
  themes: LibraryThemes,
  question: SourceQuestion,
  terms: (text: string) => string[],
  budget: number,
): Promise<{ hits: RetrievedChunk[]; overview: ThemesOverview }> {
  const candidates = answerCandidates(themes);
  await question.readChunks?.(answerPassages(themes));
  const hits: RetrievedChunk[] = [];
  const overview: ThemesOverview = {
    total: themes.themes.length,
    chunks: themes.chunks,
    documents: themes.documents,
    themes: [],
  };
  let used = 0;
  for (const theme of candidates) {
    const id = theme.passages[0];
    const chunk = question.chunk(id);
    if (!chunk) continue;
    if (hits.length >= THEMES_SHOWN_MIN && used + chunk.tokens > budget) break;
    used += chunk.tokens;
    const best = bestSentence(chunk.text, chunk.sentences, theme, terms);
    hits.push({
      chunkId: id,
      docId: chunk.docId,
      // Rank order is theme order (largest share first): a score that falls with it keeps the cards in that order.
      score: 1 - hits.length / (THEMES_SHOWN + 1),
      text: chunk.text,
      tokens: chunk.tokens,
      provenance: { mode: 'themes', concepts: theme.concepts.slice(0, 5), via: `theme: ${theme.label}` },
      bestSentences: [{ ...best, score: 1 }],
    });
    overview.themes.push({
      label: theme.label,
      concepts: theme.concepts,
      chunks: theme.chunks,
      documents: theme.documents,
      share: theme.share,
      keyDocuments: theme.keyTitles,
      sentence: chunk.text.slice(best.start, best.end).trim(),
      passage: hits.length - 1,
      question: themeQuestion(theme),
    });
  }
  return { hits, overview };
}

/** The question that opens a theme: its top concepts' words, asked in the default mode. */
export function themeQuestion(theme: Pick<Theme, 'concepts'>): string {
  return [...new Set(theme.concepts.slice(0, 4).flatMap((c) => c.split(/\s+/)))].join(' ');
}

/** The sentence of a passage that holds the most of its theme's concepts (the first sentence on a tie). */
function bestSentence(
  text: string,
  sentences: ReadonlyArray<{ start: number; end: number }> | undefined,
  theme: Theme,
  terms: (text: string) => string[],
): { start: number; end: number } {
  const list = sentences?.length ? sentences : [{ start: 0, end: text.length }];
  const wanted = new Set(theme.concepts.flatMap((c) => terms(c)));
  let best = list[0];
  let bestHeld = -1;
  for (const s of list) {
    const own = new Set(terms(text.slice(s.start, s.end)));
    let held = 0;
    for (const t of wanted) if (own.has(t)) held++;
    if (held > bestHeld) {
      best = s;
      bestHeld = held;
    }
  }
  return { start: best.start, end: best.end };
}

// Which themes a "What is this about?" answer shows and the one passage it reads of each. Both the answer
// (source/themesAnswer.ts) and the graph refresh that stores those passages' records with the themes (themesOf.ts
// themesForStore) ask it here, below both, so the store holds exactly what the answer will read.
import type { LibraryThemes, Theme } from '../../core/themes/index.ts';

/** Themes an answer shows at most. */
export const THEMES_SHOWN = 8;

/** The themes an answer may show: the largest, with a passage. */
export function answerCandidates(themes: LibraryThemes): Theme[] {
  return themes.themes.filter((t) => t.passages.length > 0).slice(0, THEMES_SHOWN);
}

/** The chunk ids of the passages a themes answer reads (the first of each theme it may show). */
export function answerPassages(themes: LibraryThemes): string[] {
  return answerCandidates(themes).map((t) => t.passages[0]);
}

// The themes overview an answer carries (AskResult.themes): what the page, `cli ask` and the Themes panel show of a
// corpus-wide question's answer.

import type { GlobalPlan, GlobalResult, LibraryThemes, Theme } from '../../core/themes/index.ts';

/** One theme as an answer shows it. */
interface ThemeShown extends Pick<Theme, 'label' | 'concepts' | 'chunks' | 'documents' | 'share'> {
  /** The titles of the documents with the most of its chunks (the theme's keyTitles). */
  keyDocuments: string[];
  /** The theme's most representative sentence, from its first passage (the evidence card `passage`). */
  sentence: string;
  /** Index in the answer's evidence of the passage the sentence is from (its citation). */
  passage: number;
  /** The question that opens the theme: its top concepts, asked in the default mode. */
  question: string;
}

export interface ThemesOverview extends Pick<LibraryThemes, 'chunks' | 'documents'> {
  /** Themes the library has in all (the answer shows the largest). */
  total: number;
  themes: ThemeShown[];
}

/** A library's themes as the Themes panel lists them, largest first. */
export interface ThemesList extends Pick<LibraryThemes, 'chunks' | 'documents'> {
  themes: Array<Omit<ThemeShown, 'sentence' | 'passage'>>;
}

/** The global answer's cost before it runs (GraphRAG's global search over the themes, bounded by κ): its plan. */
export interface GlobalEstimate extends Omit<GlobalPlan, 'maps'> {
  /** Passages the map calls are given. */
  passages: number;
}

/** A passage the global answer was given, numbered as its citations number it, and where it opens. */
export interface GlobalPassageShown {
  n: number;
  docId: string;
  docTitle: string;
  start: number;
  end: number;
  /** The label of the theme it represents. */
  theme: string;
}

/** The global answer: its text with [n] citations, the passages they number, and what it cost. */
export interface GlobalAnswerOut extends GlobalResult {
  passages: GlobalPassageShown[];
}

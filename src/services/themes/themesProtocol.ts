// The themes overview an answer carries (AskResult.themes): what the page, `cli ask` and the Themes panel show of a
// corpus-wide question's answer.

/** One theme as an answer shows it. */
interface ThemeShown {
  label: string;
  concepts: string[];
  chunks: number;
  documents: number;
  /** Share of the library's text (0–1). */
  share: number;
  keyDocuments: string[];
  /** The theme's most representative sentence, from its first passage (the evidence card `passage`). */
  sentence: string;
  /** Index in the answer's evidence of the passage the sentence is from (its citation). */
  passage: number;
  /** The question that opens the theme: its top concepts, asked in the default mode. */
  question: string;
}

export interface ThemesOverview {
  /** Themes the library has in all (the answer shows the largest). */
  total: number;
  chunks: number;
  documents: number;
  themes: ThemeShown[];
}

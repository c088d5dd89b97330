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

/** A library's themes as the Themes panel lists them, largest first. */
export interface ThemesList {
  chunks: number;
  documents: number;
  themes: Array<Omit<ThemeShown, 'sentence' | 'passage'>>;
}

/** The global answer's cost before it runs (GraphRAG's global search over the themes, bounded by κ). */
export interface GlobalEstimate {
  question: string;
  kappa: number;
  /** Themes mapped, of all, and the share of the text they hold (0–1). */
  themes: number;
  of: number;
  share: number;
  passages: number;
  calls: number;
  /** At most (the reduce prompt counted with every partial answer at its cap). */
  inputTokens: number;
  outputTokens: number;
  cost: number;
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
export interface GlobalAnswerOut {
  text: string;
  cited: number[];
  passages: GlobalPassageShown[];
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
}

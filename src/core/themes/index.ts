// The public API of src/core/themes: a library's themes (communities of its concept graph) and the recogniser of a
// corpus-wide question they answer.
export { computeThemes, themesGraphFromTable, withKeyTitles } from './themes.ts';
export type { LibraryThemes, Theme, ThemeInput, ThemeOptions } from './themes.ts';
export { isCorpusQuestion } from './corpusQuestion.ts';
export { readThemes, THEME_LIMITS } from './themesShape.ts';
export { readThemesPart, THEMES_PART, themesPart } from './themesPart.ts';
export { planGlobalAnswer, runGlobalAnswer } from './globalAnswer.ts';
export type { GlobalPlan, GlobalResult } from './globalAnswer.ts';

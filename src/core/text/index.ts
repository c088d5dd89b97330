// The public API of src/core/text: what the services, the store, the CLI, the UI and other core folders use.
// Modules not listed here are this folder's own; tests may still reach them directly.
export { createTermAnalyzer } from './analyzer.ts';
export { cleanHeadingText } from './headings.ts';
export { DEFAULT_MAX_SENTENCE_TOKENS, splitSentences } from './sentences.ts';
export { countTokens } from './tokens.ts';
export {
  isCjkTerm,
  sameScriptChunks,
  scriptCountsOf,
  ScriptTally,
  termChunkCount,
  type ScriptChunks,
} from './scripts.ts';

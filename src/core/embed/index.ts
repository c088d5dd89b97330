// The public API of src/core/embed: what the services, the store, the CLI, the UI and other core folders use.
// Modules not listed here are this folder's own; tests may still reach them directly.
// USE-lite (use.ts), transformers.js (transformers.ts) and the endpoint embedder (openai.ts) are not re-exported:
// src/services/embed/embedders.ts loads them by path, lazily, so importing this API never pulls a model runtime in.
export { EmbedAbortError } from './abort.ts';
export { expandRows, uniqueTexts } from './dedupe.ts';
export {
  USE_EMBEDDER_ID,
  embedderIdOf,
  formatEmbedderSpec,
  identitySpec,
  parseEmbedderSpec,
} from './spec.ts';
export type { EmbedderSpec } from './spec.ts';
export { chunkVectors } from './vectors.ts';

// The public API of src/core/embed: what the services, the store, the CLI, the UI and other core folders use.
// Modules not listed here are this folder's own; tests may still reach them directly.
// USE-lite (use.ts), transformers.js (transformers.ts) and the endpoint embedder (openai.ts) are not re-exported:
// the registry (registry.ts) and the platforms' USE-lite loaders import them lazily, by path, so importing this API
// never pulls a model runtime in.
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
export { dot } from './vectors.ts';
export { createEmbedder, isEndpointEmbedder } from './registry.ts';
export type { EmbedderPlatform } from './registry.ts';

// The public API of src/core/pipeline: what the services, the store, the CLI, the UI and other core folders use.
// Modules not listed here are this folder's own; tests may still reach them directly.
export { embedDocuments, embedTexts } from './embedDocuments.ts';

// The public API of src/core/answer: what the services, the store, the CLI, the UI and other core folders use.
// Modules not listed here are this folder's own; tests may still reach them directly.
export { answerQuestion } from './answer.ts';

// The public API of src/core/llm: what the services, the store, the CLI, the UI and other core folders use.
// Modules not listed here are this folder's own; tests may still reach them directly.
export { LlmClient } from './client.ts';
export type { ChatMessage } from './client.ts';
export { isAbortError, redact } from './errors.ts';
export { isRedirect, redirectMessage, redirectMode } from './keyedFetch.ts';
export { currencyOf, DEFAULT_CURRENCY, DEFAULT_LLM_SETTINGS, validateLlmSettings } from './settings.ts';
export type { LlmSettings } from './settings.ts';
export { testConnection } from './testConnection.ts';
export type { ConnectionDiagnosis } from './testConnection.ts';
export { costOf, estimateMessageTokens } from './usage.ts';
export type { CallUsage, StepUsage } from './usage.ts';
export { stripThinking } from './json.ts';
export { addStepUsage, emptyStepUsage, runJsonStep, spendOf, usageOfSpend } from './step.ts';
export type { Checked, StepSpend } from './step.ts';
export type { TraceEvent } from './trace.ts';
export { backoffDelay, DEFAULT_BACKOFF, parseRetryAfter, sleep } from './backoff.ts';
export type { BackoffOptions } from './backoff.ts';

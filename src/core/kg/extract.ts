// One chunk's KG extraction: a JSON step (src/core/llm/step.ts: validate, one repair call, then a failure with the
// reason). Transport failures (endpoint down, bad key, cancelled) are thrown by the step: they say nothing about
// the chunk, so it must not be marked failed.
import { runJsonStep, spendOf, type LlmClient } from '../llm/index.ts';
import { EXTRACTION_MAX_TOKENS, extractionMessages } from './prompt.ts';
import { validateExtraction } from './schema.ts';
import type { ChunkOutcome } from './store.ts';

export async function extractChunk(
  client: LlmClient,
  chunkText: string,
  signal?: AbortSignal,
): Promise<ChunkOutcome> {
  const outcome = await runJsonStep(
    client,
    {
      name: 'KG extraction',
      messages: extractionMessages(chunkText),
      validate: (value) => {
        const v = validateExtraction(value);
        return v.ok ? v : { ok: false, errors: v.errors };
      },
      temperature: 0,
      maxTokens: EXTRACTION_MAX_TOKENS,
    },
    { signal },
  );
  return outcome.ok
    ? { status: 'done', extraction: outcome.value, ...spendOf(outcome) }
    : { status: 'failed', reason: outcome.reason, ...spendOf(outcome) };
}

// One chunk's KG extraction: ask for strict JSON, validate it, ask once more with the problems spelled out when
// the reply is malformed, and otherwise report the chunk failed with the reason. Transport failures (endpoint
// down, bad key, cancelled) are thrown instead: they say nothing about the chunk, so it must not be marked failed.
import type { LlmClient } from '../llm/index.ts';
import { EXTRACTION_MAX_TOKENS, extractionMessages, repairMessages } from './prompt.ts';
import { parseJsonReply, validateExtraction } from './schema.ts';
import type { ChunkOutcome } from './store.ts';

function problemsOf(
  reply: string,
): { ok: true; value: import('./types.ts').Extraction } | { ok: false; problems: string[] } {
  const parsed = parseJsonReply(reply);
  if (!parsed.ok) return { ok: false, problems: [parsed.error] };
  const valid = validateExtraction(parsed.value);
  return valid.ok ? { ok: true, value: valid.value } : { ok: false, problems: valid.errors };
}

export async function extractChunk(
  client: LlmClient,
  chunkText: string,
  signal?: AbortSignal,
): Promise<ChunkOutcome> {
  let inputTokens = 0;
  let outputTokens = 0;
  let cost = 0;
  const call = async (messages: ReturnType<typeof extractionMessages>): Promise<string> => {
    const r = await client.chat({
      messages,
      json: true,
      temperature: 0,
      maxTokens: EXTRACTION_MAX_TOKENS,
      signal,
    });
    inputTokens += r.usage.inputTokens;
    outputTokens += r.usage.outputTokens;
    cost += r.usage.cost;
    return r.text;
  };
  const first = await call(extractionMessages(chunkText));
  const checked = problemsOf(first);
  if (checked.ok)
    return { status: 'done', extraction: checked.value, attempts: 1, inputTokens, outputTokens, cost };
  const second = await call(repairMessages(chunkText, first, checked.problems));
  const rechecked = problemsOf(second);
  if (rechecked.ok) {
    return { status: 'done', extraction: rechecked.value, attempts: 2, inputTokens, outputTokens, cost };
  }
  return {
    status: 'failed',
    reason: `KG extraction: malformed output twice: ${rechecked.problems.slice(0, 3).join('; ')}`,
    attempts: 2,
    inputTokens,
    outputTokens,
    cost,
  };
}

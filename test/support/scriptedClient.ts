// The LLM client the unit tests point at the scripted server: free (prices 0 unless a test sets them), two calls in
// flight, and retries after 5–20 ms instead of seconds so that a scripted 429 or 500 does not slow the suite.
import { LlmClient } from '../../src/core/llm/client.ts';
import type { LlmSettings } from '../../src/core/llm/settings.ts';

export function scriptedClient(
  server: { baseUrl: string },
  settings: Partial<LlmSettings> = {},
  options: ConstructorParameters<typeof LlmClient>[1] = {},
): LlmClient {
  return new LlmClient(
    {
      baseUrl: server.baseUrl,
      model: 'scripted-model',
      apiKey: '',
      priceInPerM: 0,
      priceOutPerM: 0,
      concurrency: 2,
      ...settings,
    },
    { backoff: { baseMs: 5, maxMs: 20 }, ...options },
  );
}

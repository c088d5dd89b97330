// Where the LLM endpoint settings live (the settings table, key 'llm'; never exported in bundles) and how the
// services that send requests to that endpoint read them: validated, so a request never goes out half configured.
import { validateLlmSettings, type LlmSettings } from '../../core/llm/index.ts';

/** Settings-table key of the LLM endpoint settings (never exported in bundles). */
export const LLM_SETTINGS_KEY = 'llm';

/**
 * The LLM endpoint settings from the settings table, validated. Read only by the services that send requests to
 * that endpoint, so the API key goes nowhere else.
 */
export async function readLlmSettings(settings: {
  getSetting<T>(key: string): Promise<T | undefined>;
}): Promise<LlmSettings> {
  const s = await settings.getSetting<LlmSettings>(LLM_SETTINGS_KEY);
  if (!s) throw new Error('LLM: no endpoint configured; set the base URL and model in Settings first');
  const problems = validateLlmSettings(s);
  if (problems.length) throw new Error(problems.join('; '));
  return s;
}

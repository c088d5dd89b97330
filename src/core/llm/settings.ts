// LLM endpoint settings: what the user types into the Settings view, validated in one place.
// The API key lives here but is never logged, exported or put into an error message (see redact.ts).

export interface LlmSettings {
  /** Base URL of an OpenAI-compatible server, with or without the trailing `/v1`. */
  baseUrl: string;
  model: string;
  /** Bearer token; empty for local servers without auth. */
  apiKey: string;
  /** Price in `currency` per million input tokens (0 for local models). */
  priceInPerM: number;
  /** Price per million output tokens. */
  priceOutPerM: number;
  /** How many requests may be in flight at once. */
  concurrency: number;
  /** ISO 4217 code of the prices (USD, EUR, CNY…); absent in settings saved before it existed: USD. */
  currency?: string;
}

/** The currency a cost is shown in when the settings name none. */
export const DEFAULT_CURRENCY = 'USD';

/** The settings' currency code, upper case (USD when they name none). */
export function currencyOf(s: Pick<LlmSettings, 'currency'> | undefined): string {
  return (s?.currency?.trim() || DEFAULT_CURRENCY).toUpperCase();
}

/** Whether the runtime can show amounts in this ISO 4217 code. */
function knownCurrency(code: string): boolean {
  if (!/^[A-Za-z]{3}$/.test(code)) return false;
  try {
    new Intl.NumberFormat('en', { style: 'currency', currency: code });
    return true;
  } catch {
    return false;
  }
}

export const DEFAULT_LLM_SETTINGS: LlmSettings = {
  baseUrl: 'http://127.0.0.1:11434/v1',
  model: '',
  apiKey: '',
  priceInPerM: 0,
  priceOutPerM: 0,
  concurrency: 2,
  currency: DEFAULT_CURRENCY,
};

/** Returns a list of human-readable problems; empty when the settings can be used. */
export function validateLlmSettings(s: LlmSettings): string[] {
  const problems: string[] = [];
  let url: URL | undefined;
  try {
    url = new URL(s.baseUrl);
  } catch {
    problems.push(`LLM settings: base URL "${s.baseUrl}" is not a valid URL`);
  }
  if (url && url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push(`LLM settings: base URL must start with http:// or https:// (got ${url.protocol})`);
  }
  if (!s.model.trim()) problems.push('LLM settings: model name is empty');
  if (!(s.priceInPerM >= 0)) problems.push('LLM settings: price per million input tokens must be ≥ 0');
  if (!(s.priceOutPerM >= 0)) problems.push('LLM settings: price per million output tokens must be ≥ 0');
  if (s.currency !== undefined && !knownCurrency(s.currency.trim())) {
    problems.push(
      `LLM settings: currency "${s.currency}" is not a three-letter ISO 4217 code (USD, EUR, CNY…)`,
    );
  }
  if (!Number.isInteger(s.concurrency) || s.concurrency < 1 || s.concurrency > 64) {
    problems.push('LLM settings: concurrency must be an integer between 1 and 64');
  }
  return problems;
}

/** `http://host:1234` and `http://host:1234/v1/` both become `http://host:1234/v1`. */
export function apiRoot(baseUrl: string): string {
  const trimmed = baseUrl.trim().replace(/\/+$/, '');
  return /\/v1$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

// "Test connection": one cheap probe of the endpoint, turned into a diagnosis the user can act on.
// Browsers hide CORS failures behind a bare TypeError from fetch, so a failed fetch from a page whose origin
// differs from the endpoint's is reported as a probable CORS block with the fix for each common local server.
import { isRedirect, redirectMessage, redirectMode } from './keyedFetch.ts';
import { redact } from './errors.ts';
import { apiRoot, validateLlmSettings, type LlmSettings } from './settings.ts';
import { messageOf } from '../errors.ts';

type ConnectionStatus =
  'ok' | 'invalid-settings' | 'unreachable' | 'cors' | 'auth' | 'unknown-model' | 'error';

export interface ConnectionDiagnosis {
  status: ConnectionStatus;
  ok: boolean;
  /** One or two sentences for the user. */
  message: string;
  latencyMs?: number;
  /** Models the server lists (GET /v1/models), when it answered. */
  models?: string[];
}

export interface TestConnectionOptions {
  fetch?: typeof fetch;
  /** The page's origin, when running in a browser (`location.origin`); enables the CORS diagnosis. */
  pageOrigin?: string;
  timeoutMs?: number;
  now?: () => number;
}

function corsAdvice(pageOrigin: string): string {
  return (
    `The browser blocked the response (CORS): the server must allow requests from ${pageOrigin}. ` +
    `Ollama: start it with OLLAMA_ORIGINS=${pageOrigin} (e.g. \`OLLAMA_ORIGINS=${pageOrigin} ollama serve\`). ` +
    'LM Studio: Developer → Server settings → turn on "Enable CORS". ' +
    'llama.cpp server: recent builds allow any origin; otherwise put it behind a proxy that adds ' +
    'Access-Control-Allow-Origin. vLLM: --allowed-origins. Hosted APIs usually allow browsers; check the base URL.'
  );
}

export async function testConnection(
  settings: LlmSettings,
  options: TestConnectionOptions = {},
): Promise<ConnectionDiagnosis> {
  const problems = validateLlmSettings(settings);
  if (problems.length) return { status: 'invalid-settings', ok: false, message: problems.join('; ') };
  const fetchFn = options.fetch ?? ((i, init) => globalThis.fetch(i, init));
  const now = options.now ?? (() => Date.now());
  const root = apiRoot(settings.baseUrl);
  const headers: Record<string, string> = {};
  if (settings.apiKey) headers.Authorization = `Bearer ${settings.apiKey}`;
  const clean = (t: string): string => redact(t, settings.apiKey).replace(/\s+/g, ' ').slice(0, 200);

  const timed = async (url: string, init: RequestInit): Promise<Response> => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 15_000);
    try {
      return await fetchFn(url, {
        ...init,
        signal: controller.signal,
        redirect: redirectMode(settings.apiKey),
      });
    } finally {
      clearTimeout(timer);
    }
  };

  const started = now();
  let models: Response;
  try {
    models = await timed(`${root}/models`, { headers });
  } catch (err) {
    const cause = messageOf(err);
    const crossOrigin = options.pageOrigin && new URL(root).origin !== options.pageOrigin;
    if (crossOrigin && err instanceof TypeError) {
      // A browser cannot tell "nothing listens there" from "CORS refused": say both, CORS first.
      return {
        status: 'cors',
        ok: false,
        message: `Could not read ${root}/models. Either nothing is listening there, or ${corsAdvice(options.pageOrigin!)}`,
      };
    }
    return {
      status: 'unreachable',
      ok: false,
      message: `Cannot reach ${root} (${clean(cause)}). Is the server running, and is the base URL right?`,
    };
  }
  const latencyMs = now() - started;
  if (isRedirect(models)) {
    return { status: 'unreachable', ok: false, message: clean(redirectMessage(`${root}/models`, models)) };
  }
  if (models.status === 401 || models.status === 403) {
    return {
      status: 'auth',
      ok: false,
      latencyMs,
      message: `The server refused the API key (HTTP ${models.status}). Check the key in Settings.`,
    };
  }
  let listed: string[] | undefined;
  if (models.ok) {
    try {
      const json = (await models.json()) as {
        data?: Array<{ id?: string }>;
        models?: Array<{ name?: string }>;
      };
      listed = (json.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string');
    } catch {
      listed = undefined;
    }
  }
  if (listed && listed.length > 0 && !listed.includes(settings.model)) {
    return {
      status: 'unknown-model',
      ok: false,
      latencyMs,
      models: listed,
      message: `The server does not know the model "${settings.model}". It offers: ${listed.slice(0, 20).join(', ')}.`,
    };
  }
  // /models may be missing (404) on some servers; a one-token completion settles it.
  const probeStart = now();
  let probe: Response;
  try {
    probe = await timed(`${root}/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model: settings.model,
        messages: [{ role: 'user', content: 'Reply with OK.' }],
        max_tokens: 1,
        stream: false,
      }),
    });
  } catch (err) {
    const cause = messageOf(err);
    return {
      status: 'unreachable',
      ok: false,
      message: `The chat endpoint did not answer (${clean(cause)}).`,
    };
  }
  const probeMs = now() - probeStart;
  if (isRedirect(probe)) {
    return {
      status: 'unreachable',
      ok: false,
      message: clean(redirectMessage(`${root}/chat/completions`, probe)),
    };
  }
  if (probe.status === 401 || probe.status === 403) {
    return { status: 'auth', ok: false, message: `The server refused the API key (HTTP ${probe.status}).` };
  }
  if (probe.status === 404) {
    return {
      status: 'unknown-model',
      ok: false,
      models: listed,
      message: `HTTP 404 from ${root}/chat/completions: unknown model "${settings.model}" or wrong base URL.`,
    };
  }
  if (!probe.ok) {
    const body = await probe.text().catch(() => '');
    return {
      status: 'error',
      ok: false,
      message: `The server answered HTTP ${probe.status}: ${clean(body)}`,
    };
  }
  return {
    status: 'ok',
    ok: true,
    latencyMs: probeMs,
    models: listed,
    message: `Connected to ${root}: model "${settings.model}" answered in ${probeMs} ms.`,
  };
}

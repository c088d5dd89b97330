// Embedder for an OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, LM Studio, llama.cpp server, TEI,
// vLLM…). The dimension is learned from the first response. The API key goes only into the Authorization header
// of requests to the given base URL; it is never part of an error message or a log line.
// Retries are opt-in (`maxAttempts`, default 1: one attempt, as the app has always done): the CLI turns them on
// for long runs against a service, where a 429, a 5xx or a dropped connection in hour two must not end the run.

import type { Embedder } from '../types.ts';
import { normalizeRows } from './vectors.ts';
import { throwIfAborted } from './abort.ts';
import { expandRows, uniqueTexts } from './dedupe.ts';
import { embedderIdOf } from './spec.ts';
import { redact } from '../llm/index.ts';
import { isRedirect, redirectMessage, redirectMode } from '../llm/index.ts';
import { backoffDelay, DEFAULT_BACKOFF, parseRetryAfter, sleep, type BackoffOptions } from '../llm/index.ts';
import { messageOf } from '../errors.ts';

export interface OpenAIEmbedderOptions {
  /** e.g. "http://localhost:11434/v1" or "https://api.openai.com/v1"; "/embeddings" is appended. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Texts per request (default 64). */
  batchSize?: number;
  /** Known dimension; otherwise learned from the first response (the `dimension` getter is 0 until then). */
  dimension?: number;
  /** Injectable for tests and workers; defaults to the global fetch. */
  fetch?: typeof fetch;
  /**
   * Attempts per request (default 1: no retry). A 429, a 5xx, an unreachable endpoint or a body that is not JSON
   * is retried after a back-off (the server's Retry-After when it sends one); any other 4xx fails at once.
   */
  maxAttempts?: number;
  /** Back-off between attempts (default the LLM client's: 0.5 s doubling to 30 s, with jitter). */
  backoff?: BackoffOptions;
  /** Told of each retry before its wait (the message is redacted: it never holds the key). */
  onRetry?: (retry: EmbeddingRetry) => void;
}

/** One retry about to happen. */
interface EmbeddingRetry {
  /** The attempt that failed (1-based) and the most that will be made. */
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  /** Why the attempt failed (endpoint and status or network error). */
  message: string;
}

/**
 * A failed request to the endpoint. `status` is the HTTP status when the server answered; `retryable` says whether
 * the same request may succeed later (429, 5xx, network, a body that is not JSON).
 */
class EmbeddingEndpointError extends Error {
  readonly status?: number;
  readonly retryable: boolean;
  readonly retryAfterS?: number;
  constructor(message: string, info: { status?: number; retryable: boolean; retryAfterS?: number }) {
    super(message);
    this.name = 'EmbeddingEndpointError';
    this.status = info.status;
    this.retryable = info.retryable;
    this.retryAfterS = info.retryAfterS;
  }
}

const DEFAULTS = { batchSize: 64 };
const MAX_MESSAGE = 300;

interface EmbeddingsResponse {
  data?: Array<{ embedding?: unknown; index?: number }>;
}

/** The endpoint URL: base URL without trailing slashes + "/embeddings". */
function embeddingsUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '') + '/embeddings';
}

async function serverMessage(res: Response): Promise<string> {
  const body = await res.text().catch(() => '');
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const msg =
      typeof parsed.error === 'string'
        ? parsed.error
        : typeof parsed.error?.message === 'string'
          ? parsed.error.message
          : typeof parsed.message === 'string'
            ? parsed.message
            : body;
    return msg.slice(0, MAX_MESSAGE);
  } catch {
    return body.slice(0, MAX_MESSAGE);
  }
}

/** Creates an embedder with id `openai:<baseUrl>#<model>`. No request is made until embed() is called. */
export function createOpenAIEmbedder(
  options: OpenAIEmbedderOptions,
): Embedder & { readonly dimension: number } {
  const { baseUrl, model } = options;
  if (!/^https?:\/\//.test(baseUrl)) {
    throw new Error(`openai embedder: baseUrl must start with http:// or https://, got '${baseUrl}'`);
  }
  if (!model) throw new Error('openai embedder: no model name given');
  const batchSize = options.batchSize ?? DEFAULTS.batchSize;
  const maxAttempts = options.maxAttempts ?? 1;
  if (!(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
    throw new Error(`openai embedder: maxAttempts must be a whole number ≥ 1, got ${maxAttempts}`);
  }
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const url = embeddingsUrl(baseUrl);
  let dimension = options.dimension ?? 0;
  // Servers echo a wrong key back ("Incorrect API key provided: sk-…"): error messages are redacted as the LLM
  // client's are, so a key never reaches a log line or the UI.
  const clean = (text: string): string => redact(text, options.apiKey ?? '');

  async function request(batch: string[], signal?: AbortSignal): Promise<Float32Array> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
    let res: Response;
    try {
      res = await doFetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model, input: batch, encoding_format: 'float' }),
        signal,
        redirect: redirectMode(options.apiKey),
      });
    } catch (e) {
      if ((e as { name?: string }).name === 'AbortError') throw e;
      throw new EmbeddingEndpointError(`openai embedder: ${url} is unreachable: ${clean(messageOf(e))}`, {
        retryable: true,
      });
    }
    if (isRedirect(res)) throw new Error(`openai embedder: ${clean(redirectMessage(url, res))}`);
    if (!res.ok) {
      const retryable = res.status === 429 || res.status >= 500;
      throw new EmbeddingEndpointError(
        `openai embedder: ${url} answered HTTP ${res.status}: ${clean(await serverMessage(res))}`,
        {
          status: res.status,
          retryable,
          retryAfterS: retryable ? parseRetryAfter(res.headers.get('retry-after')) : undefined,
        },
      );
    }
    let json: EmbeddingsResponse;
    try {
      json = (await res.json()) as EmbeddingsResponse;
    } catch (e) {
      if ((e as { name?: string }).name === 'AbortError') throw e;
      // A proxy's error page or a connection cut mid-body: the same request may well succeed next time.
      throw new EmbeddingEndpointError(`openai embedder: ${url} answered with a body that is not JSON`, {
        status: res.status,
        retryable: true,
      });
    }
    const data = json.data;
    if (!Array.isArray(data) || data.length !== batch.length) {
      throw new Error(
        `openai embedder: ${url} returned ${Array.isArray(data) ? data.length : 'no'} embeddings for ` +
          `${batch.length} inputs`,
      );
    }
    // Servers may return items out of order; `index` says where each belongs.
    const ordered = data.every((d) => typeof d.index === 'number')
      ? [...data].sort((a, b) => (a.index as number) - (b.index as number))
      : data;
    const first = ordered[0].embedding;
    if (!Array.isArray(first) || first.length === 0) {
      throw new Error(`openai embedder: ${url} returned an embedding that is not a list of numbers`);
    }
    if (dimension === 0) dimension = first.length;
    const out = new Float32Array(batch.length * dimension);
    ordered.forEach((d, i) => {
      const v = d.embedding;
      if (!Array.isArray(v) || v.length !== dimension) {
        throw new Error(
          `openai embedder: ${url} returned an embedding of length ${Array.isArray(v) ? v.length : '?'} ` +
            `where ${dimension} was expected`,
        );
      }
      for (let j = 0; j < dimension; j++) out[i * dimension + j] = Number(v[j]);
    });
    return normalizeRows(out, dimension);
  }

  /** One batch, retried as `maxAttempts` allows; the last error says how many attempts were made. */
  async function requestWithRetries(batch: string[], signal?: AbortSignal): Promise<Float32Array> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await request(batch, signal);
      } catch (e) {
        const retryable = e instanceof EmbeddingEndpointError && e.retryable;
        if (!retryable || signal?.aborted) throw e;
        if (attempt >= maxAttempts) {
          if (maxAttempts === 1) throw e;
          throw new EmbeddingEndpointError(`${e.message} (gave up after ${attempt} attempts)`, {
            status: e.status,
            retryable: false,
          });
        }
        const delayMs = backoffDelay(attempt - 1, e.retryAfterS, options.backoff ?? DEFAULT_BACKOFF);
        options.onRetry?.({ attempt, maxAttempts, delayMs, message: e.message });
        await sleep(delayMs, signal);
      }
    }
  }

  return {
    id: embedderIdOf({ kind: 'openai', baseUrl, model }),
    get dimension() {
      return dimension;
    },
    async embed(allTexts: string[], signal?: AbortSignal): Promise<Float32Array> {
      const { unique: texts, index } = uniqueTexts(allTexts);
      const parts: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        throwIfAborted(signal, 'openai embedder');
        parts.push(await requestWithRetries(texts.slice(i, i + batchSize), signal));
      }
      const result = new Float32Array(texts.length * dimension);
      let off = 0;
      for (const p of parts) {
        result.set(p, off);
        off += p.length;
      }
      return expandRows(result, index, dimension);
    },
  };
}

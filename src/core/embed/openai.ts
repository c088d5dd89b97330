// Embedder for an OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, LM Studio, llama.cpp server…).
// The dimension is learned from the first response. The API key goes only into the Authorization header of
// requests to the given base URL; it is never part of an error message or a log line.

import type { Embedder } from '../types.ts';
import { normalizeRows } from './vectors.ts';
import { throwIfAborted } from './abort.ts';
import { expandRows, uniqueTexts } from './dedupe.ts';
import { embedderIdOf } from './spec.ts';
import { redact } from '../llm/index.ts';
import { isRedirect, redirectMessage, redirectMode } from '../llm/index.ts';

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
      throw new Error(
        `openai embedder: ${url} is unreachable: ${clean(e instanceof Error ? e.message : String(e))}`,
      );
    }
    if (isRedirect(res)) throw new Error(`openai embedder: ${clean(redirectMessage(url, res))}`);
    if (!res.ok) {
      throw new Error(
        `openai embedder: ${url} answered HTTP ${res.status}: ${clean(await serverMessage(res))}`,
      );
    }
    let json: EmbeddingsResponse;
    try {
      json = (await res.json()) as EmbeddingsResponse;
    } catch {
      throw new Error(`openai embedder: ${url} answered with a body that is not JSON`);
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
        parts.push(await request(texts.slice(i, i + batchSize), signal));
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

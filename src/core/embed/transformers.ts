// Embedder for any Hugging Face feature-extraction ONNX model (transformers.js 2.17 + onnxruntime): mean
// pooling + L2 normalization. The model is a local folder (Node: a path; browser: a same-origin path) or an
// http(s) URL the user gave; it must hold config.json, tokenizer.json, tokenizer_config.json and
// onnx/model_quantized.onnx (or onnx/model.onnx). The Hugging Face hub itself is never contacted: the model is
// always resolved as "<parent>/<name>" through transformers.js's local-model path, with remote models off.

import { env, pipeline } from '@xenova/transformers';
import type { Embedder } from '../types.ts';
import { normalizeRows } from './vectors.ts';
import { throwIfAborted } from './abort.ts';
import { expandRows, uniqueTexts } from './dedupe.ts';
import { embedderIdOf } from './spec.ts';
import { messageOf } from '../errors.ts';

export interface TransformersEmbedderOptions {
  /** A local folder or an http(s) URL of a folder holding the model files. */
  model: string;
  /** Use onnx/model_quantized.onnx (default true) or onnx/model.onnx. */
  quantized?: boolean;
  /** Texts per model call. */
  batchSize?: number;
  /** Browser only: where onnxruntime-web's .wasm files are served (default '/ort/'). */
  wasmPaths?: string;
  /** Browser only: onnxruntime-web WASM threads (default 1; more needs cross-origin isolation, see below). */
  threads?: number;
}

const DEFAULTS = { quantized: true, batchSize: 32, wasmPaths: '/ort/' };
const PROBE_TEXT = 'dimension probe';

interface FeatureTensor {
  data: Float32Array;
  dims: number[];
}
type FeatureExtractor = ((
  texts: string[],
  opts: { pooling: 'mean'; normalize: boolean },
) => Promise<FeatureTensor>) & {
  dispose?: () => Promise<void>;
};

function isNode(): boolean {
  const proc = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof proc?.versions?.node === 'string';
}

/** Splits "a/b/name/" into ["a/b/", "name"], keeping URLs intact. */
export function splitModelLocation(model: string): { parent: string; name: string } {
  const trimmed = model.replace(/[\\/]+$/, '');
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  if (cut < 0) return { parent: './', name: trimmed };
  const name = trimmed.slice(cut + 1);
  if (!name) throw new Error(`transformers embedder: cannot find a model name in '${model}'`);
  return { parent: trimmed.slice(0, cut + 1), name };
}

// transformers.js keeps its settings in one global `env`, and model loading reads them asynchronously;
// serialize loads so two embedders with different folders never see each other's settings.
let loading: Promise<unknown> = Promise.resolve();

/** Loads the model and returns an Embedder with id `hf:<model>`, dimension read from a probe embedding. */
export async function createTransformersEmbedder(options: TransformersEmbedderOptions): Promise<Embedder> {
  const model = options.model.trim();
  if (!model) throw new Error('transformers embedder: no model folder or URL given');
  const quantized = options.quantized ?? DEFAULTS.quantized;
  const batchSize = options.batchSize ?? DEFAULTS.batchSize;
  const { parent, name } = splitModelLocation(model);

  const load = loading.then(async () => {
    env.allowLocalModels = true;
    env.allowRemoteModels = false;
    env.localModelPath = parent;
    env.useFSCache = false;
    env.useBrowserCache = false;
    const wasm = (env.backends.onnx as { wasm?: { wasmPaths?: unknown; numThreads?: number } }).wasm;
    if (!isNode() && wasm) {
      wasm.wasmPaths = options.wasmPaths ?? DEFAULTS.wasmPaths;
      // One thread unless asked: in a minified production build onnxruntime-web 1.14's pthread workers (created
      // from a stringified bundled function) fail with "e is not defined" under cross-origin isolation.
      wasm.numThreads = options.threads ?? 1;
    }
    try {
      return (await pipeline('feature-extraction', name, { quantized })) as unknown as FeatureExtractor;
    } catch (e) {
      const file = quantized ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx';
      throw new Error(
        `transformers embedder: model '${model}' could not be loaded (needs config.json, tokenizer.json, ` +
          `tokenizer_config.json and ${file}): ${messageOf(e)}`,
      );
    }
  });
  loading = load.catch(() => undefined);
  const extractor = await load;

  const probe = await extractor([PROBE_TEXT], { pooling: 'mean', normalize: true });
  const dimension = probe.dims[probe.dims.length - 1];
  if (!(dimension > 0))
    throw new Error(`transformers embedder: model '${model}' returned dims [${probe.dims}]`);

  let queue: Promise<unknown> = Promise.resolve();
  async function embedAll(allTexts: string[], signal?: AbortSignal): Promise<Float32Array> {
    const { unique: texts, index } = uniqueTexts(allTexts);
    // Each batch is padded to its longest text: batching texts of similar length wastes less work.
    const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length);
    const result = new Float32Array(texts.length * dimension);
    for (let i = 0; i < order.length; i += batchSize) {
      throwIfAborted(signal, 'transformers embedder');
      const rowsOf = order.slice(i, i + batchSize);
      const out = await extractor(
        rowsOf.map((r) => texts[r]),
        { pooling: 'mean', normalize: true },
      );
      if (out.data.length !== rowsOf.length * dimension) {
        throw new Error(
          `transformers embedder: got dims [${out.dims}] for ${rowsOf.length} texts of model '${model}'`,
        );
      }
      rowsOf.forEach((r, k) =>
        result.set(out.data.subarray(k * dimension, (k + 1) * dimension), r * dimension),
      );
    }
    // transformers.js normalizes already; normalizing again is cheap and makes the contract independent of it.
    return expandRows(normalizeRows(result, dimension), index, dimension);
  }

  return {
    id: embedderIdOf({ kind: 'hf', model }),
    dimension,
    embed(texts: string[], signal?: AbortSignal): Promise<Float32Array> {
      const run = queue.then(() => embedAll(texts, signal));
      queue = run.catch(() => undefined);
      return run;
    },
    async dispose(): Promise<void> {
      await queue;
      await extractor.dispose?.();
    },
  };
}

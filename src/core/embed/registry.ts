// The one registry of embedder kinds: for each kind, whether it is an endpoint and how the embedder is created (its
// spec's grammar and the id it records in a library are spec.ts's). Creation takes the platform's part (where USE-lite's model files come from, where
// transformers.js finds its WASM, the key and fetch of an endpoint), so this stays platform-neutral: the workers
// (src/services/embed/embedders.ts) pass the browser's, the CLI (src/cli/embedders.ts) Node's. A new kind is one
// entry here and its grammar in spec.ts. The model runtimes are imported lazily, so reading a spec never loads one.
import type { Embedder } from '../types.ts';
import { parseEmbedderSpec, type EmbedderSpec } from './spec.ts';
import type { OpenAIEmbedderOptions } from './openai.ts';

type EmbedderKind = EmbedderSpec['kind'];
type SpecOf<K extends EmbedderKind> = Extract<EmbedderSpec, { kind: K }>;

/** What only the platform knows about creating an embedder. */
export interface EmbedderPlatform {
  /** USE-lite as this platform loads it (browser: model files from the app's origin; Node: from node_modules). */
  use(spec: SpecOf<'use'>): Promise<Embedder>;
  /** transformers.js: where onnxruntime-web's WASM files are served (browser only). */
  hf?: { wasmPaths?: string };
  /**
   * An endpoint embedder: its key (never part of the spec), the fetch its requests go through, and how the CLI
   * batches and retries its requests (the app keeps the defaults).
   */
  openai?: Omit<OpenAIEmbedderOptions, 'baseUrl' | 'model'>;
}

interface EmbedderKindEntry<K extends EmbedderKind> {
  /**
   * An endpoint: its work happens on a server (one embedding worker is enough, it batches its own requests) and it
   * takes an API key, kept beside the spec. Otherwise a local model.
   */
  endpoint: boolean;
  create(spec: SpecOf<K>, platform: EmbedderPlatform): Promise<Embedder>;
}

const EMBEDDER_KINDS: { readonly [K in EmbedderKind]: EmbedderKindEntry<K> } = {
  use: { endpoint: false, create: (spec, platform) => platform.use(spec) },
  hf: {
    endpoint: false,
    async create(spec, platform) {
      const { createTransformersEmbedder } = await import('./transformers.ts');
      return createTransformersEmbedder({ model: spec.model, ...platform.hf });
    },
  },
  openai: {
    endpoint: true,
    async create(spec, platform) {
      const { createOpenAIEmbedder } = await import('./openai.ts');
      return createOpenAIEmbedder({ baseUrl: spec.baseUrl, model: spec.model, ...platform.openai });
    },
  },
};

/** The embedder a spec (text, or already read) names, created the platform's way. */
export function createEmbedder(spec: string | EmbedderSpec, platform: EmbedderPlatform): Promise<Embedder> {
  const read = typeof spec === 'string' ? parseEmbedderSpec(spec) : spec;
  const entry = EMBEDDER_KINDS[read.kind] as EmbedderKindEntry<EmbedderKind>;
  return entry.create(read, platform);
}

/** Whether a spec names an endpoint embedder (see EmbedderKindEntry.endpoint). */
export function isEndpointEmbedder(spec: EmbedderSpec): boolean {
  return EMBEDDER_KINDS[spec.kind].endpoint;
}

// One lazily created, memoized embedder per worker, chosen by the user's setting. The heavy model (USE-lite in
// TF.js WASM, or an ONNX model) is loaded on first use, reused while the choice is unchanged, and disposed
// explicitly when the choice changes or the page asks. Model files come from the app's own origin.
import type { Embedder } from '../src/core/types.ts';
import type { EmbedderChoice } from './protocol.ts';

/** Same-origin paths of the files that src/tools/copy-assets.mjs copies into public/ on install. */
export const USE_MODEL_URL = '/models/use/model.json';
export const USE_VOCAB_URL = '/models/use/vocab.json';
export const TFJS_WASM_PATH = '/tfjs/';

export function choiceKey(choice: EmbedderChoice): string {
  switch (choice.kind) {
    case 'use':
      return 'use';
    case 'transformers':
      return `hf:${choice.model}`;
    case 'openai':
      return `openai:${choice.baseUrl}|${choice.model}|${choice.apiKey.length}`;
  }
}

async function create(choice: EmbedderChoice): Promise<Embedder> {
  switch (choice.kind) {
    case 'use': {
      const { createUseEmbedder } = await import('../src/core/embed/use.ts');
      return createUseEmbedder({
        modelUrl: USE_MODEL_URL,
        vocabUrl: USE_VOCAB_URL,
        wasmPath: TFJS_WASM_PATH,
      });
    }
    case 'transformers': {
      const { createTransformersEmbedder } = await import('../src/core/embed/transformers.ts');
      return createTransformersEmbedder({ model: choice.model });
    }
    case 'openai': {
      const { createOpenAIEmbedder } = await import('../src/core/embed/openai.ts');
      return createOpenAIEmbedder({ baseUrl: choice.baseUrl, model: choice.model, apiKey: choice.apiKey });
    }
  }
}

export class EmbedderHolder {
  private key: string | null = null;
  private loading: Promise<Embedder> | null = null;

  /** The embedder for this choice, loading it once; a different choice disposes the previous model first. */
  async get(choice: EmbedderChoice): Promise<Embedder> {
    const key = choiceKey(choice);
    if (this.loading && this.key === key) return this.loading;
    await this.dispose();
    this.key = key;
    this.loading = create(choice);
    try {
      return await this.loading;
    } catch (error) {
      this.key = null;
      this.loading = null;
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`embedder: could not load "${key}": ${message}`, { cause: error });
    }
  }

  async dispose(): Promise<void> {
    const loading = this.loading;
    this.key = null;
    this.loading = null;
    if (!loading) return;
    const embedder = await loading.catch(() => null);
    await embedder?.dispose?.();
  }
}

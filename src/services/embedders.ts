// One lazily created, memoized embedder per worker, chosen by the user's setting (an embedder spec and, for an
// endpoint, its key; see src/services/embedderChoice.ts). The heavy model (USE-lite in TF.js WASM, or an ONNX
// model) is loaded on first use, reused while the choice is unchanged, and disposed explicitly when the choice
// changes or the page asks. Model files come from the app's own origin.
import type { Embedder } from '../core/types.ts';
import { identitySpec } from '../core/embed/spec.ts';
import { specOf, toEmbedderChoice } from './embedderChoice.ts';
import type { EmbedderChoice, StoredEmbedderChoice } from './protocol.ts';

/**
 * Same-origin URL of a file that src/tools/copy-assets.mjs copies into public/ on install. Resolved against the
 * worker script, which sits one folder below the app root both in the build (assets/) and on the dev server
 * (workers/), so the app also works when served from a sub-path.
 */
export function appUrl(path: string): string {
  return new URL(`../${path}`, self.location.href).href;
}

/**
 * What the memo is keyed by, and how a failed load is named: the spec and whether a key is set. The key itself
 * is never part of it (it would reach error messages); a changed key is detected separately.
 */
export function choiceKey(choice: EmbedderChoice): string {
  return `${identitySpec(specOf(choice))}${choice.apiKey ? ' (with key)' : ''}`;
}

async function create(choice: EmbedderChoice): Promise<Embedder> {
  const spec = specOf(choice);
  switch (spec.kind) {
    case 'use': {
      const [{ createUseEmbedder }, tf] = await Promise.all([
        import('../core/embed/use.ts'),
        import('@tensorflow/tfjs-core'),
      ]);
      // TF.js picks its multi-threaded WASM build under cross-origin isolation; its pthread workers fail in the
      // minified production bundle ("e is not defined") and gave USE-lite no speed-up here (OFFLINE-STACK.md).
      tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
      return createUseEmbedder(
        { model: appUrl('models/use/model.json'), vocab: appUrl('models/use/vocab.json') },
        { wasmPaths: appUrl('tfjs/') },
      );
    }
    case 'hf': {
      const { createTransformersEmbedder } = await import('../core/embed/transformers.ts');
      return createTransformersEmbedder({ model: spec.model, wasmPaths: appUrl('ort/') });
    }
    case 'openai': {
      const { createOpenAIEmbedder } = await import('../core/embed/openai.ts');
      return createOpenAIEmbedder({ baseUrl: spec.baseUrl, model: spec.model, apiKey: choice.apiKey });
    }
  }
}

export class EmbedderHolder {
  private key: string | null = null;
  private apiKey: string | undefined;
  private loading: Promise<Embedder> | null = null;

  /**
   * The embedder for this choice (the 'embedder' setting as stored, in either shape), loading it once; a
   * different choice disposes the previous model first.
   */
  async get(stored: StoredEmbedderChoice): Promise<Embedder> {
    const choice = toEmbedderChoice(stored);
    const key = choiceKey(choice);
    if (this.loading && this.key === key && this.apiKey === choice.apiKey) return this.loading;
    await this.dispose();
    this.key = key;
    this.apiKey = choice.apiKey;
    this.loading = create(choice);
    try {
      return await this.loading;
    } catch (error) {
      this.key = null;
      this.apiKey = undefined;
      this.loading = null;
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`embedder: could not load "${key}": ${message}`, { cause: error });
    }
  }

  async dispose(): Promise<void> {
    const loading = this.loading;
    this.key = null;
    this.apiKey = undefined;
    this.loading = null;
    if (!loading) return;
    const embedder = await loading.catch(() => null);
    await embedder?.dispose?.();
  }
}

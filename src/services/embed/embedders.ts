// One lazily created, memoized embedder per worker, chosen by the user's setting (an embedder spec and, for an
// endpoint, its key; see src/services/embed/embedderChoice.ts). The heavy model (USE-lite in TF.js WASM, or an ONNX
// model) is loaded on first use, reused while the choice is unchanged, and disposed explicitly when the choice
// changes or the page asks. Model files come from the app's own origin. A holder given a worker factory (the
// ingest worker's) runs a local embedder on a pool of embedding workers (src/services/embed/embedPool.ts) sized by the
// 'workers' part of the setting; each of those workers holds one plain holder (createEmbedWorkerService).
import { transfer, wrap } from 'comlink';
import type { Embedder } from '../../core/types.ts';
import { identitySpec } from '../../core/embed/index.ts';
import { createEmbedPool, type EmbedPool, type PoolWorker, type PoolWorkerIdentity } from './embedPool.ts';
import {
  embedWorkerCount,
  specOf,
  toEmbedderChoice,
  type EmbedderChoice,
  type EmbedderSettings,
  type StoredEmbedderChoice,
} from './embedderChoice.ts';
import { workerLedger } from '../ledger/ledger.ts';

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

async function create(choice: EmbedderSettings): Promise<Embedder> {
  const spec = specOf(choice);
  switch (spec.kind) {
    case 'use': {
      const [{ createUseEmbedder }, tf] = await Promise.all([
        import('../../core/embed/use.ts'),
        import('@tensorflow/tfjs-core'),
      ]);
      // TF.js picks its multi-threaded WASM build under cross-origin isolation; its pthread workers fail in the
      // minified production bundle ("e is not defined") and gave USE-lite no speed-up here (OFFLINE-STACK.md).
      tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
      return createUseEmbedder(
        { model: appUrl('models/use/model.json'), vocab: appUrl('models/use/vocab.json') },
        { wasmPaths: appUrl('tfjs/'), backend: choice.backend ?? 'auto' },
      );
    }
    case 'hf': {
      const { createTransformersEmbedder } = await import('../../core/embed/transformers.ts');
      return createTransformersEmbedder({ model: spec.model, wasmPaths: appUrl('ort/') });
    }
    case 'openai': {
      const { createOpenAIEmbedder } = await import('../../core/embed/openai.ts');
      // Its requests are recorded in the network ledger of whichever worker embeds (ingest, query, kg, embed).
      return createOpenAIEmbedder({
        baseUrl: spec.baseUrl,
        model: spec.model,
        apiKey: choice.apiKey,
        fetch: workerLedger().fetch('embeddings'),
      });
    }
  }
}

export interface EmbedderHolderOptions {
  /** Starts one embedding worker for a choice; given, local embedders run on a pool of them. */
  spawnEmbedWorker?: (choice: EmbedderSettings) => PoolWorker;
  /** Logical cores the automatic pool size is taken from (default: navigator.hardwareConcurrency). */
  cores?: number;
}

export class EmbedderHolder {
  private key: string | null = null;
  private apiKey: string | undefined;
  private loading: Promise<Embedder> | null = null;

  constructor(private readonly options: EmbedderHolderOptions = {}) {}

  /**
   * The embedder for this choice (the 'embedder' setting as stored, in either shape), loading it once; a
   * different choice (or worker count, or backend) disposes the previous model first.
   */
  async get(stored: StoredEmbedderChoice | EmbedderSettings): Promise<Embedder> {
    const choice = toEmbedderChoice(stored);
    const workers = this.options.spawnEmbedWorker
      ? embedWorkerCount(choice, this.options.cores ?? globalThis.navigator?.hardwareConcurrency)
      : 1;
    const key = choiceKey(choice);
    const memoKey = `${key} workers=${workers} backend=${choice.backend ?? 'auto'}`;
    if (this.loading && this.key === memoKey && this.apiKey === choice.apiKey) return this.loading;
    await this.dispose();
    this.key = memoKey;
    this.apiKey = choice.apiKey;
    const spawn = this.options.spawnEmbedWorker;
    // One worker would only add a hop: the model then runs here, as without a pool.
    this.loading =
      spawn && workers > 1
        ? createEmbedPool({ size: workers, spawn: () => spawn(choice), name: key })
        : create(choice);
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

/**
 * What one embedding worker (workers/embed.worker.ts) serves: it loads the pool's choice once, in a plain holder
 * (never a pool of its own), and embeds one batch at a time, handing each result's buffer over instead of copying.
 */
export function createEmbedWorkerService() {
  const holder = new EmbedderHolder();
  let loaded: Promise<Embedder> | null = null;
  return {
    async load(choice: EmbedderSettings): Promise<PoolWorkerIdentity> {
      loaded = holder.get(choice);
      const embedder = await loaded;
      const backend = (embedder as { backend?: unknown }).backend;
      return {
        id: embedder.id,
        dimension: embedder.dimension,
        ...(typeof backend === 'string' ? { backend } : {}),
      };
    },
    async embed(texts: string[]): Promise<Float32Array> {
      if (!loaded) throw new Error('embed worker: embed() before load()');
      const rows = await (await loaded).embed(texts);
      const own = rows.byteOffset === 0 && rows.byteLength === rows.buffer.byteLength ? rows : rows.slice();
      return transfer(own, [own.buffer]);
    },
    dispose: (): Promise<void> => holder.dispose(),
  };
}

/** What the page-side pool calls on an embedding worker (workers/embed.worker.ts only exposes this service). */
export type EmbedWorkerApi = ReturnType<typeof createEmbedWorkerService>;

/**
 * The browser's embedding worker for a choice, as the pool sees it. A worker that dies (an uncaught error, out of
 * memory) is reported through onCrash; its pending calls never settle, the pool stops waiting for them.
 */
export function spawnEmbedWorker(choice: EmbedderSettings): PoolWorker {
  const worker = new Worker(new URL('../../../workers/embed.worker.ts', import.meta.url), {
    type: 'module',
    name: 'embed',
  });
  const remote = wrap<EmbedWorkerApi>(worker);
  return {
    load: () => remote.load(choice),
    embed: (texts) => remote.embed(texts),
    terminate: () => worker.terminate(),
    onCrash(listener) {
      worker.addEventListener('error', (event: Event) => {
        listener((event as ErrorEvent).message || 'the embedding worker stopped unexpectedly');
      });
      worker.addEventListener('messageerror', () => listener('a message from the worker could not be read'));
    },
  };
}

/**
 * An embedder for a worker that has other work of its own (the query worker's questions, the KG worker's entities
 * and atomic questions): a local model runs in an embedding worker of its own (a pool of one), so it loads on
 * another thread while this one reads the library or builds the engine, and the calling worker never holds a copy
 * of the model. An endpoint embedder stays in the calling worker (its work happens on the server).
 */
export function embedderInOwnWorker(): {
  get(stored: StoredEmbedderChoice): Promise<Embedder>;
  dispose(): Promise<void>;
} {
  const here = new EmbedderHolder();
  let key: string | null = null;
  let pool: Promise<EmbedPool> | null = null;
  const disposePool = async (): Promise<void> => {
    const current = pool;
    pool = null;
    key = null;
    await (await current?.catch(() => null))?.dispose();
  };
  return {
    async get(stored) {
      const choice = toEmbedderChoice(stored);
      if (specOf(choice).kind === 'openai') {
        await disposePool();
        return here.get(choice);
      }
      const wanted = `${choiceKey(choice)} backend=${choice.backend ?? 'auto'}`;
      if (pool && key === wanted) return pool;
      await disposePool();
      await here.dispose();
      const name = choiceKey(choice);
      const loading = createEmbedPool({ size: 1, spawn: () => spawnEmbedWorker(choice), name });
      key = wanted;
      pool = loading;
      loading.catch(() => {
        // Not kept: the next question tries again (the model may not have been cached when offline).
        if (pool === loading) [pool, key] = [null, null];
      });
      return loading.catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(`embedder: could not load "${name}": ${message}`, { cause: error });
      });
    },
    async dispose() {
      await disposePool();
      await here.dispose();
    },
  };
}

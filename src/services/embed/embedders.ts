// One lazily created, memoized embedder per worker, chosen by the user's setting (an embedder spec and, for an
// endpoint, its key; see embedderChoice.ts). The core registry (src/core/embed/registry.ts) creates it; this module
// gives the browser's part (model files and WASM from the app's own origin, the network ledger's fetch). The heavy
// model is loaded on first use, reused while the choice is unchanged, and disposed explicitly when the choice
// changes or the page asks. A holder given a worker factory runs a local embedder on a pool of embedding workers
// (embedPool.ts): the ingest worker's sized by the 'workers' part of the setting, the query and KG workers' a pool of
// one; each of those workers holds one plain holder (createEmbedWorkerService).
import { transfer, wrap } from 'comlink';
import type { Embedder } from '../../core/types.ts';
import {
  createEmbedder,
  identitySpec,
  isEndpointEmbedder,
  type EmbedderPlatform,
} from '../../core/embed/index.ts';
import { createEmbedPool, type PoolWorker, type PoolWorkerIdentity } from './embedPool.ts';
import {
  embedWorkerCount,
  specOf,
  toEmbedderChoice,
  type EmbedderChoice,
  type EmbedderSettings,
  type StoredEmbedderChoice,
} from './embedderChoice.ts';
import { workerLedger } from '../ledger/ledger.ts';
import { messageOf } from '../../core/errors.ts';

/**
 * Same-origin URL of a file that src/tools/copy-assets.mjs copies into public/ on install. Resolved against the
 * worker script, which sits one folder below the app root both in the build (assets/) and on the dev server
 * (workers/), so the app also works when served from a sub-path.
 */
function appUrl(path: string): string {
  return new URL(`../${path}`, self.location.href).href;
}

/**
 * What the memo is keyed by, and how a failed load is named: the spec and whether a key is set. The key itself
 * is never part of it (it would reach error messages); a changed key is detected separately.
 */
export function choiceKey(choice: EmbedderChoice): string {
  return `${identitySpec(specOf(choice))}${choice.apiKey ? ' (with key)' : ''}`;
}

/** The browser's part of creating an embedder (the core registry does the rest): every file from the app's origin. */
function browserPlatform(choice: EmbedderSettings): EmbedderPlatform {
  return {
    async use() {
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
    },
    // Getters: only the kind being created reads its part (a Node test's holder has no page location).
    get hf() {
      return { wasmPaths: appUrl('ort/') };
    },
    // Its requests are recorded in the network ledger of whichever worker embeds (ingest, query, kg, embed).
    get openai() {
      return { apiKey: choice.apiKey, fetch: workerLedger().fetch('embeddings') };
    },
  };
}

function create(choice: EmbedderSettings): Promise<Embedder> {
  return createEmbedder(specOf(choice), browserPlatform(choice));
}

export interface EmbedderHolderOptions {
  /** Starts one embedding worker for a choice; given, local embedders run on a pool of them. */
  spawnEmbedWorker?: (choice: EmbedderSettings) => PoolWorker;
  /** Logical cores the automatic pool size is taken from (default: navigator.hardwareConcurrency). */
  cores?: number;
  /**
   * Embedding workers a choice runs on, 0 for this thread (with spawnEmbedWorker; default: embedWorkerCount, and
   * this thread where that is one worker).
   */
  poolSize?: (choice: EmbedderSettings) => number;
}

/**
 * The one cache of a loaded embedder: each worker that embeds holds one, keeping one model (here, or on a pool of
 * embedding workers) for the current choice.
 */
export class EmbedderHolder {
  private key: string | null = null;
  private apiKey: string | undefined;
  private loading: Promise<Embedder> | null = null;

  constructor(private readonly options: EmbedderHolderOptions = {}) {}

  /** Embedding workers for a choice; 0: the model runs in this thread. */
  private workersFor(choice: EmbedderSettings): number {
    if (!this.options.spawnEmbedWorker) return 0;
    if (this.options.poolSize) return this.options.poolSize(choice);
    const workers = embedWorkerCount(choice, this.options.cores ?? globalThis.navigator?.hardwareConcurrency);
    // One worker would only add a hop: the model then runs here, as without a pool.
    return workers > 1 ? workers : 0;
  }

  /**
   * The embedder for this choice (the 'embedder' setting as stored, in either shape), loading it once; a
   * different choice (or worker count, or backend) disposes the previous model first.
   */
  async get(stored: StoredEmbedderChoice | EmbedderSettings): Promise<Embedder> {
    const choice = toEmbedderChoice(stored);
    const workers = this.workersFor(choice);
    const key = choiceKey(choice);
    const memoKey = `${key} workers=${workers} backend=${choice.backend ?? 'auto'}`;
    if (this.loading && this.key === memoKey && this.apiKey === choice.apiKey) return this.loading;
    await this.dispose();
    this.key = memoKey;
    this.apiKey = choice.apiKey;
    const spawn = this.options.spawnEmbedWorker;
    const loading =
      spawn && workers > 0
        ? createEmbedPool({ size: workers, spawn: () => spawn(choice), name: key })
        : create(choice);
    this.loading = loading;
    try {
      return await loading;
    } catch (error) {
      // Not kept: the next call tries again (the model may not have been cached when offline).
      if (this.loading === loading) {
        this.key = null;
        this.apiKey = undefined;
        this.loading = null;
      }
      const message = messageOf(error);
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
type EmbedWorkerApi = ReturnType<typeof createEmbedWorkerService>;

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
export function embedderInOwnWorker(): EmbedderHolder {
  return new EmbedderHolder({
    spawnEmbedWorker,
    poolSize: (choice) => (isEndpointEmbedder(specOf(choice)) ? 0 : 1),
  });
}

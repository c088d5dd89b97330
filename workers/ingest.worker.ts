// The indexing worker: a thin Comlink wrapper over IngestPipeline with the real parser (prepareFile, run in a
// parse worker of its own that a time limit or Cancel can terminate: parseRunner.ts), the
// embedder chosen in Settings (loaded lazily, once) and the concept-graph rebuild. Progress and per-file outcomes
// go to the page as events through a Comlink proxy callback; cancel() aborts the run and drops the queue.
import { expose } from 'comlink';
import packageJson from '../package.json';
import { exportLibraryBlob, bundleFileName } from '../src/store/bundleExport.ts';
import { importBundle, type ImportResult } from '../src/store/bundleImport.ts';
import { openDatabase } from '../src/store/db.ts';
import { Repo } from '../src/store/repo.ts';
import { browserCrossTabLock } from '../src/services/crossTab.ts';
import { EmbedderHolder } from '../src/services/embedders.ts';
import { rebuildConceptGraph } from '../src/services/graphBuild.ts';
import { EMBED_BATCH, IngestPipeline } from '../src/services/ingestPipeline.ts';
import { spawnParseWorker, WorkerParser } from '../src/services/parseRunner.ts';
import { DEFAULT_EMBEDDER, type EmbedderChoice, type IngestListener } from '../src/services/protocol.ts';

const APP_VERSION = packageJson.version;

const db = openDatabase();
const repo = new Repo(db);
const embedders = new EmbedderHolder();
let listener: IngestListener | null = null;
/** Indexing, graph rebuilds, import and removal: one tab at a time (workers/crossTab.ts). */
const lock = browserCrossTabLock('ingest', self.name);

const parser = new WorkerParser(spawnParseWorker);

const pipeline = new IngestPipeline({
  repo,
  prepare: parser.prepare,
  embedder: (choice) => embedders.get(choice),
  rebuildGraph: rebuildConceptGraph,
  lock,
  emit: (event) => {
    if (event.type === 'changed') lock.changed();
    listener?.(event);
  },
});

const api = {
  /** Receives every event (a Comlink proxy of a page callback). */
  subscribe(callback: IngestListener): void {
    listener = callback;
  },
  /** Queues files (their buffers are transferred) and starts indexing. */
  async enqueue(files: { name: string; bytes: ArrayBuffer }[]): Promise<void> {
    await pipeline.enqueue(files);
  },
  /** Resumes a queue left by a reload; resolves when the queue is empty. */
  async resume(): Promise<void> {
    await pipeline.ensureRunning();
  },
  isRunning(): boolean {
    return pipeline.isRunning;
  },
  /** Stops indexing and drops the queue; documents already stored stay (each one is complete). */
  async cancel(): Promise<void> {
    await pipeline.cancel();
  },
  async removeDocument(docId: string): Promise<boolean> {
    return pipeline.removeDocument(docId);
  },
  async clearFailed(): Promise<void> {
    await repo.clearFailedPending();
    listener?.({ type: 'changed' });
  },
  /**
   * Diagnostics for the ingest-rate benchmark: embeds texts with the configured embedder in batches of the
   * pipeline's size and returns the time taken (the model is loaded first and not counted).
   */
  async measureEmbedder(
    texts: string[],
  ): Promise<{ sentences: number; seconds: number; loadSeconds: number }> {
    const t0 = performance.now();
    const embedder = await embedders.get(
      (await repo.getSetting<EmbedderChoice>('embedder')) ?? DEFAULT_EMBEDDER,
    );
    await embedder.embed(['warm up']);
    const t1 = performance.now();
    for (let i = 0; i < texts.length; i += EMBED_BATCH) await embedder.embed(texts.slice(i, i + EMBED_BATCH));
    const t2 = performance.now();
    return { sentences: texts.length, seconds: (t2 - t1) / 1000, loadSeconds: (t1 - t0) / 1000 };
  },
  /** The whole library as one bundle file (never the settings or the queue). */
  async exportBundle(): Promise<{ blob: Blob; fileName: string }> {
    return { blob: await exportLibraryBlob(db, { appVersion: APP_VERSION }), fileName: bundleFileName() };
  },
  /**
   * Validates a bundle completely, then writes it in one transaction (a bad bundle is refused with the reason and
   * the library is untouched); rebuilds the concept graph when a merge made the stored one stale.
   */
  async importBundle(file: Blob): Promise<ImportResult> {
    if (pipeline.isRunning)
      throw new Error('bundle import: wait until indexing has finished (or cancel it) first');
    const held = await lock.tryRun(async () => {
      const result = await importBundle(db, file.stream(), { totalBytes: file.size });
      if (result.graphStale) await rebuildConceptGraph(repo, new AbortController().signal);
      return result;
    });
    if (!held.ran)
      throw new Error('bundle import: another tab is indexing this library; wait until it has finished');
    lock.changed();
    listener?.({ type: 'changed' });
    return held.value;
  },
  /** Frees the embedding model (it is loaded again lazily). */
  async dispose(): Promise<void> {
    await embedders.dispose();
  },
};

export type IngestApi = typeof api;

expose(api);

// The ingest service behind the indexing worker: a thin layer over IngestPipeline (parse, embed, store, rebuild
// the concept graph) plus what else writes the library — document removal, bundle export and import — and the
// embedder benchmark. Progress and per-file outcomes go to the page as events through one subscribed callback (a
// Comlink proxy); cancel() aborts the run and drops the queue. Dependencies are injected by workers/ingest.worker.ts.
import { exportLibraryBlob, bundleFileName } from '../../store/bundleExport.ts';
import { importBundle, type ImportResult } from '../../store/bundleImport.ts';
import type { Repo } from '../../store/repo.ts';
import type { Embedder } from '../../core/types.ts';
import type { CrossTabLock } from '../library/crossTab.ts';
import { graphHandOverTo } from '../library/graphHandOver.ts';
import { IncrementalGraphRefresh } from './graphBuild.ts';
import { EMBED_BATCH, IngestPipeline } from './ingestPipeline.ts';
import type { PrepareFn, PrepareManyFn } from './limitedParse.ts';
import { readEmbedderChoice, type EmbedderChoice } from '../embed/embedderChoice.ts';
import type { IngestListener } from './ingestProtocol.ts';
import { importFailure } from './storageGuard.ts';

export interface IngestServiceDeps {
  repo: Repo;
  /** Parses a file into documents (in a parse worker of its own that a time limit or Cancel can terminate). */
  prepare: PrepareFn;
  /** Parses several small files in one call (the same parse worker); without it they are parsed one by one. */
  prepareMany?: PrepareManyFn;
  /** The embedder chosen in Settings, loaded lazily, once (EmbedderHolder). */
  embedders: { get(choice: EmbedderChoice): Promise<Embedder>; dispose(): Promise<void> };
  /**
   * Stops the parse worker once a drain has ended (WorkerParser.terminate): its parsers' memory is not held while
   * the library idles; the next file starts a fresh one.
   */
  releaseParser?: () => void;
  /** Indexing, graph rebuilds, import and removal: one tab at a time. */
  lock: CrossTabLock;
  /** Written into exported bundles. */
  appVersion: string;
  /**
   * The store of recognised pages (IndexedDB `conceptrag-ocr`): pages kept for a file whose recognition a reload
   * interrupted. A removed document's go with it, and all of them when the library is emptied or indexing cancelled.
   */
  ocrPages?: { forget(prefix: string): Promise<void> };
}

/**
 * How long after the worker starts it checks the store: the tally against a count of the documents, then whether
 * pages are due (every document id). Each walks the documents' text (about 100 MB at 100 MiB), and the browser's
 * IndexedDB thread serves an origin's reads one after another, the query worker's Blob slices among them: run at
 * once, these walks and the page's counts held a reopened 100 MiB library's first evidence back to 6.4–6.8 s; without
 * them it came in 2.4–2.5 s (docs/results/drop-projected.md, "Start-up reads after the first question"). Ten seconds
 * cover the first question of a reader who asks at once; nothing waits on these checks meanwhile (the counts trust
 * the tally, and questions are answered from the pages stored, or by words until there are some).
 */
const STARTUP_CHECKS_DELAY_MS = 10_000;

export function createIngestService(deps: IngestServiceDeps) {
  const { repo, embedders, lock } = deps;
  let listener: IngestListener | null = null;
  let startupChecks: ReturnType<typeof setTimeout> | undefined;
  const checkAtStart = async (): Promise<void> => {
    // A library stored before the tally (or imported by an app from before it), or one an older app wrote to behind
    // it, gets it counted, and the page reads the counts again (IndexMeta.sentenceTally).
    if (await repo.checkTally().catch(() => false)) {
      lock.changed();
      listener?.({ type: 'changed' });
    }
    // Pages left unwritten by a reload (or by an app before them) are written now, with their progress shown.
    await pipeline.resumePages();
  };
  // One incremental concept graph for the library, kept between refreshes (and stored, for a reload).
  const graph = new IncrementalGraphRefresh();
  /** The query worker's port, once the page has joined the two workers (serveGraph). */
  let handOver: ReturnType<typeof graphHandOverTo> | null = null;
  const pipeline = new IngestPipeline({
    repo,
    prepare: deps.prepare,
    prepareMany: deps.prepareMany,
    embedder: (choice) => embedders.get(choice),
    releaseEmbedder: () => embedders.dispose(),
    rebuildGraph: graph.refresh,
    // A library answered from its pages has them refreshed during a drop instead of the graph: the graph goes.
    releaseGraph: () => graph.release(),
    // The graph of a drop's last refresh goes to the query worker, whose first question would build it again.
    graphSettled: { coming: () => handOver?.coming(), settled: () => handOver?.settled() },
    lock,
    emit: (event) => {
      if (event.type === 'changed') lock.changed();
      // A drain has ended: the incremental graph waits in the store until the next one (release), and the parse
      // worker is stopped.
      if (event.type === 'idle') {
        graph.release();
        deps.releaseParser?.();
      }
      listener?.(event);
    },
  });

  return {
    /** Receives every event (a Comlink proxy of a page callback). */
    subscribe(callback: IngestListener): void {
      listener = callback;
      startupChecks ??= setTimeout(() => void checkAtStart(), STARTUP_CHECKS_DELAY_MS);
    },
    /** Files the page queued in the store itself (a drop's bytes): drained now, or before the running drain ends. */
    notifyQueued(): void {
      pipeline.notifyQueued();
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
      // No file of the dropped queue resumes: their recognised pages are of no more use.
      await deps.ocrPages?.forget('');
    },
    /** Removes documents (resolves once they are gone; the graph's refresh follows as a run, ending 'idle'). */
    async removeDocuments(docIds: string[]): Promise<number> {
      const docs = await repo.db.documents.bulkGet(docIds);
      const removed = await pipeline.removeDocuments(docIds);
      if (deps.ocrPages) {
        const emptied = (await repo.db.documents.count()) === 0;
        const keys = emptied ? [''] : docs.flatMap((d) => (d?.ocr?.key ? [`${d.ocr.key}/`] : []));
        for (const key of keys) await deps.ocrPages.forget(key);
      }
      return removed;
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
      const embedder = await embedders.get(await readEmbedderChoice(repo));
      await embedder.embed(['warm up']);
      const t1 = performance.now();
      for (let i = 0; i < texts.length; i += EMBED_BATCH)
        await embedder.embed(texts.slice(i, i + EMBED_BATCH));
      const t2 = performance.now();
      return { sentences: texts.length, seconds: (t2 - t1) / 1000, loadSeconds: (t1 - t0) / 1000 };
    },
    /** The whole library as one bundle file (never the settings or the queue). */
    async exportBundle(): Promise<{ blob: Blob; fileName: string }> {
      return {
        blob: await exportLibraryBlob(repo.db, { appVersion: deps.appVersion }),
        fileName: bundleFileName(),
      };
    },
    /**
     * Validates a bundle completely, then writes it in one transaction (a bad bundle is refused with the reason
     * and the library is untouched); rebuilds the concept graph when a merge made the stored one stale.
     */
    async importBundle(file: Blob): Promise<ImportResult> {
      if (pipeline.isRunning)
        throw new Error('bundle import: wait until indexing has finished (or cancel it) first');
      const held = await lock.tryRun(async () => {
        const result = await importBundle(repo.db, file.stream(), { totalBytes: file.size }).catch(
          (error: unknown) => {
            throw importFailure(error);
          },
        );
        // The merged library gets a full build (the stored state no longer covers it), then a fresh state.
        if (result.graphStale) await graph.rebuild(repo, new AbortController().signal);
        return result;
      });
      if (!held.ran)
        throw new Error('bundle import: another tab is indexing this library; wait until it has finished');
      lock.changed();
      listener?.({ type: 'changed' });
      return held.value;
    },
    /**
     * Hands the concept graph of a drop's last refresh to the query worker on `port` (the page joins the two workers:
     * src/ui/workers.ts), so the library opened after it does not build that graph again
     * (src/services/library/graphHandOver.ts).
     */
    serveGraph(port: MessagePort): void {
      handOver = graphHandOverTo(port, graph.handOver);
    },
  };
}

/** The ingest worker's API as the page calls it (workers/ingest.worker.ts only exposes this service). */
export type IngestApi = ReturnType<typeof createIngestService>;

// Sentence embedding for the ingest pipeline, from the store: documents without vectors, oldest first, in rounds
// whose batches span documents (core embedDocuments), each finished document's vectors in one transaction. Because
// the store says which documents still lack vectors, a reload resumes where it stopped and no sentence is embedded
// twice. One per drain: the model loads once, while the drain's first files are parsed.
import type { Embedder } from '../../core/types.ts';
import { embedDocuments } from '../../core/pipeline/index.ts';
import { EmbedderMismatchError, type Repo } from '../../store/repo.ts';
import { readEmbedderChoice, type EmbedderChoice } from '../embed/embedderChoice.ts';
import { SENTENCE_VECTORS_SETTING, type IngestEvent } from './ingestProtocol.ts';
import { describeError, StorageStopError } from './storageGuard.ts';

/** Sentences per embedder call: USE-lite sorts each call by length, so larger calls are faster (see EmbedLoopOptions). */
export const EMBED_BATCH = 128;
/**
 * Sentences per embedding round. Between rounds newly queued files are parsed and stored first, so a file
 * dropped while a large library is being embedded becomes searchable within a round (about 10–20 s of USE-lite).
 */
const EMBED_ROUND_SENTENCES = 1024;

/** What embedding takes of the pipeline's dependencies (IngestDeps). */
export interface EmbedDeps {
  repo: Repo;
  embedder(choice: EmbedderChoice): Promise<Embedder>;
  /**
   * Frees the model `embedder` loaded (EmbedderHolder.dispose): called once no document is left to embed, so the
   * semantic layer's build, the drain's peak of memory, does not run beside the model, nor does the library idle
   * with it. The next files load it again while they are parsed.
   */
  releaseEmbedder?(): Promise<void>;
}

/** What embedding uses of the pipeline's drain: its guarded write, its progress and its report of vectors stored. */
interface Drain {
  write<T>(file: string, write: () => Promise<T>, subject: string): Promise<T>;
  meter(total: number): { report(done: number, item?: string): void };
  emit(event: IngestEvent): void;
  stored(documents: number): Promise<void>;
}

export class EmbedRounds {
  private embedder: Promise<Embedder> | null = null;
  /** Embedding cannot go on in this drain (no embedder, another embedder's library, an endpoint error). */
  private stopped = false;
  /** Progress of the current embedding phase (restarted when new documents arrive). */
  private progress: { meter: ReturnType<Drain['meter']>; done: number } | null = null;

  constructor(
    private readonly deps: EmbedDeps,
    private readonly drain: Drain,
  ) {}

  /** Starts loading the configured embedder (once per drain); its failure is reported when embedding starts. */
  load(): Promise<Embedder> {
    if (!this.embedder) {
      this.embedder = readEmbedderChoice(this.deps.repo).then((choice) => this.deps.embedder(choice));
      this.embedder.catch(() => undefined);
    }
    return this.embedder;
  }

  /** New documents were stored: the progress counts what is left to embed again. */
  restart(): void {
    this.progress = null;
  }

  /** Frees this drain's embedder, if it loaded one (see EmbedDeps.releaseEmbedder). */
  async release(): Promise<void> {
    if (!this.embedder || !this.deps.releaseEmbedder) return;
    this.embedder = null;
    await this.deps.releaseEmbedder();
  }

  /**
   * Embeds one round of the documents stored without vectors and stores each finished document's vectors in
   * one transaction. Returns false when nothing is left, or when embedding cannot go on in this drain (the
   * reason is reported; the documents stay searchable by their words and wait for a later run).
   */
  async round(signal: AbortSignal): Promise<boolean> {
    const { repo } = this.deps;
    if (this.stopped) return false;
    // Sentence vectors are off (lexical layer only): the documents wait without vectors until they are turned on.
    if ((await repo.getSetting<boolean>(SENTENCE_VECTORS_SETTING)) === false) return false;
    const round = await repo.preparedDocuments(await repo.nextDocumentsToEmbed(EMBED_ROUND_SENTENCES));
    if (round.length === 0) return false;
    let embedder: Embedder;
    try {
      embedder = await this.load();
    } catch (error) {
      this.stop(error);
      return false;
    }
    if (!this.progress) {
      const counts = await repo.layerCounts();
      this.progress = { meter: this.drain.meter(counts.sentences - counts.embeddedSentences), done: 0 };
    }
    const progress = this.progress;
    const base = progress.done;
    try {
      await embedDocuments(round, embedder, {
        batchSize: EMBED_BATCH,
        signal,
        onProgress: (p) => {
          progress.done = base + p.done;
          progress.meter.report(progress.done, round[0]?.doc.sourceName);
        },
        onDocuments: async (completed) => {
          const file = completed[0]?.prepared.doc.sourceName ?? '';
          const written = await this.drain.write(
            file,
            () =>
              repo.putDocumentVectors(
                completed.map((c) => ({ docId: c.prepared.doc.id, vectors: c.vectors })),
                embedder.id,
              ),
            `the vectors of "${file}"`,
          );
          await this.drain.stored(written.length);
        },
      });
    } catch (error) {
      if (signal.aborted || error instanceof StorageStopError) throw error;
      this.stop(error);
      return false;
    }
    return true;
  }

  /** Embedding cannot go on in this drain: say why; the documents keep their lexical layer and wait. */
  private stop(error: unknown): void {
    this.stopped = true;
    const reason = error instanceof EmbedderMismatchError ? error.message : describeError(error);
    this.drain.emit({
      type: 'error',
      message: `ingest: documents are stored and searchable by their words, but their sentences cannot be embedded: ${reason}`,
    });
  }
}

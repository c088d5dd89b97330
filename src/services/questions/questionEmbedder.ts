// The question model of the query worker: the embedder chosen in Settings, loaded once (a changed choice is picked
// up on the next load: the holder keeps one model per choice), warmed ahead of the first question, and used only
// when it is the embedder that built the library's vectors.
import type { Embedder } from '../../core/types.ts';
import type { QuestionLibrary } from '../library/questionLibrary.ts';
import { track, type Tracked } from '../library/tracked.ts';
import { readEmbedderChoice, type EmbedderChoice, type SettingsReader } from '../embed/embedderChoice.ts';

/** One memoized embedder per choice (EmbedderHolder, embedderInOwnWorker). */
export interface EmbedderSource {
  get(choice: EmbedderChoice): Promise<Embedder>;
  dispose(): Promise<void>;
}

export class QuestionEmbedder {
  private embedder: Tracked<Embedder> | null = null;

  constructor(
    private readonly settings: SettingsReader,
    private readonly embedders: EmbedderSource,
  ) {}

  /** Whether the model is loaded right now. */
  get ready(): boolean {
    return Boolean(this.embedder?.done);
  }

  /** The configured question embedder, loaded once. */
  get(): Promise<Embedder> {
    if (this.embedder) return this.embedder.promise;
    const loading = track(readEmbedderChoice(this.settings).then((choice) => this.embedders.get(choice)));
    this.embedder = loading;
    loading.promise.catch(() => {
      // A model that failed to load (offline before it was cached) is tried again by the next question.
      if (this.embedder === loading) this.embedder = null;
    });
    return loading.promise;
  }

  /** Loads the question embedder and runs it once (its first call compiles the model's kernels). */
  async warm(mark?: (step: string) => void): Promise<void> {
    try {
      const embedder = await this.get();
      mark?.('modelLoaded');
      await embedder.embed(['warm up']);
      mark?.('modelWarm');
    } catch {
      // A missing model: the first real question reports it.
    }
  }

  /** The question vector, when the configured embedder is the one that built the library's vectors. */
  async vector(library: QuestionLibrary, question: string): Promise<Float32Array | undefined> {
    const embedder = await this.get();
    // Vectors of another embedder would be meaningless against this index: answer lexically instead.
    if (embedder.id !== library.embedderId) return undefined;
    return embedder.embed([question]);
  }

  /** Frees the model (loaded again lazily). */
  async dispose(): Promise<void> {
    this.embedder = null;
    await this.embedders.dispose();
  }
}

// Ask state: the question, mode and budget, and the ranked evidence returned by the query worker.
import { RETRIEVAL_MODES, type AskResult, type RetrievalMode } from '../../services/protocol.ts';
import { DEFAULT_MODE } from '../../core/retrieval/types.ts';
import { queryWorker } from '../workers.ts';

export const DEFAULT_BUDGET = 12000;

export class AskState {
  question = $state('');
  mode = $state<RetrievalMode>(DEFAULT_MODE);
  budget = $state(DEFAULT_BUDGET);
  busy = $state(false);
  result = $state<AskResult | null>(null);
  error = $state<string | null>(null);
  readonly modes = RETRIEVAL_MODES;
  /** Library version the query worker last loaded; a newer one makes it reload the corpus. */
  private loadedVersion = -1;

  /** Prepares the query worker (corpus, engine, question embedder) so the first question answers quickly. */
  async warmUp(libraryVersion: number, indexing: boolean): Promise<void> {
    if (indexing || libraryVersion === this.loadedVersion) return;
    const worker = queryWorker();
    await worker.invalidate();
    this.loadedVersion = libraryVersion;
    await worker.warmUp();
  }

  async ask(libraryVersion: number): Promise<void> {
    const question = this.question.trim();
    if (!question || this.busy) return;
    this.busy = true;
    this.error = null;
    // Old evidence must not pass for the answer to the new question (a reader, or a test, would take it as such).
    this.result = null;
    try {
      const worker = queryWorker();
      if (libraryVersion !== this.loadedVersion) {
        await worker.invalidate();
        this.loadedVersion = libraryVersion;
      }
      this.result = await worker.ask({ question, mode: this.mode, budget: this.budget });
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
      this.result = null;
    } finally {
      this.busy = false;
    }
  }
}

export const ask = new AskState();

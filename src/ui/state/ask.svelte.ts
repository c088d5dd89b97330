// Ask state: the question, mode and budget, and the ranked evidence returned by the query worker; and the one
// place that keeps the query worker's library current for every tab of the Ask view (evidence and LLM answer).
import type { Remote } from 'comlink';
import type { QueryApi } from '../../../workers/query.worker.ts';
import { RETRIEVAL_MODES, type AskResult, type RetrievalMode } from '../../services/queryProtocol.ts';
import { DEFAULT_MODE } from '../../core/retrieval/index.ts';
import { queryWorker } from '../workers.ts';

export const DEFAULT_BUDGET = 12000;

/** Library version the query worker last loaded; a newer one makes it reload the library. */
let loadedVersion = -1;

/** The query worker, told to reload first when the library changed since it last loaded. */
export async function currentQueryWorker(libraryVersion: number): Promise<Remote<QueryApi>> {
  const worker = queryWorker();
  if (libraryVersion !== loadedVersion) {
    await worker.invalidate('library');
    loadedVersion = libraryVersion;
  }
  return worker;
}

export class AskState {
  question = $state('');
  mode = $state<RetrievalMode>(DEFAULT_MODE);
  budget = $state(DEFAULT_BUDGET);
  busy = $state(false);
  result = $state<AskResult | null>(null);
  error = $state<string | null>(null);
  readonly modes = RETRIEVAL_MODES;

  /** Prepares the query worker (library, engine, question embedder) so the first question answers quickly. */
  async warmUp(libraryVersion: number, indexing: boolean): Promise<void> {
    if (indexing || libraryVersion === loadedVersion) return;
    await (await currentQueryWorker(libraryVersion)).warmUp();
  }

  async ask(libraryVersion: number): Promise<void> {
    const question = this.question.trim();
    if (!question || this.busy) return;
    this.busy = true;
    this.error = null;
    // Old evidence must not pass for the answer to the new question (a reader, or a test, would take it as such).
    this.result = null;
    try {
      const worker = await currentQueryWorker(libraryVersion);
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

// Embeds the sentences of prepared documents exactly once, in batches that span documents (a .jsonl of short
// passages would otherwise make tiny batches), while documents are still arriving (an async iterable: parsing
// overlaps embedding). Each document is handed over with all its sentence vectors, in arrival order, as soon as
// its last sentence is embedded; a cancelled run throws an AbortError and hands over nothing half-done.
// Two hand-overs: `onDocument` (one document at a time, awaited) for CLI and benchmarks, or `onDocuments` (the
// documents each embedder call completed, as one write that overlaps the next call) for the ingest worker, where
// one store transaction per batch lets IndexedDB commit while the model runs.

import type { Embedder, PreparedDocument, ProgressCallback } from '../types.ts';
import { EmbedAbortError } from '../embed/abort.ts';

/** A document with its sentences × dimension vectors, in sentence order. */
export interface EmbeddedDocument {
  prepared: PreparedDocument;
  vectors: Float32Array;
}

/** Where finished documents go: exactly one of the two. */
export type EmbedHandOver =
  | {
      /** Receives each finished document and its vectors. Awaited, in order, before anything else happens. */
      onDocument(prepared: PreparedDocument, vectors: Float32Array): void | Promise<void>;
      onDocuments?: never;
    }
  | {
      /**
       * Receives, in order, the documents completed by one embedder call (or, before the first call, leading
       * documents without sentences). Not awaited before the next embedder call starts: one hand-over runs at a
       * time, its failure surfaces at the next hand-over or at the end, and the one in flight is awaited before
       * the run ends, also when it is cancelled or fails.
       */
      onDocuments(completed: EmbeddedDocument[]): Promise<void>;
      onDocument?: never;
    };

export type EmbedDocumentsOptions = EmbedHandOver & {
  onProgress?: ProgressCallback;
  signal?: AbortSignal;
  /**
   * Sentences per embedder call (default 128). USE-lite sorts each call's texts by length before batching, so
   * larger calls are faster: 64 → 63, 128 → 72.5 sentences per CPU-second on 2Wiki in Node.
   */
  batchSize?: number;
  /** Total sentences, when known up front, for the progress bar; otherwise the sentences seen so far. */
  expectedSentences?: number;
  /**
   * With a partial batch in hand, how long to wait for the next document before embedding what is there, so a
   * slow producer never leaves the embedder idle (default 20 ms).
   */
  maxWaitMs?: number;
};

export interface EmbedDocumentsResult {
  documents: number;
  sentences: number;
  seconds: number;
  /** Sentences per second over the whole run. */
  rate: number;
  dimension: number;
}

const DEFAULTS = { batchSize: 128, maxWaitMs: 20 };
const WHERE = 'embedDocuments';

interface Entry {
  prepared: PreparedDocument;
  vectors: Float32Array | null;
  remaining: number;
}

type Source = AsyncIterable<PreparedDocument> | Iterable<PreparedDocument>;

function iteratorOf(source: Source): AsyncIterator<PreparedDocument> | Iterator<PreparedDocument> {
  if (Symbol.asyncIterator in source) return source[Symbol.asyncIterator]();
  return source[Symbol.iterator]();
}

const TIMED_OUT = Symbol('timed out');

/** Embeds every sentence of every document from `source` once; see the module comment. */
export async function embedDocuments(
  source: Source,
  embedder: Embedder,
  options: EmbedDocumentsOptions,
): Promise<EmbedDocumentsResult> {
  const batchSize = options.batchSize ?? DEFAULTS.batchSize;
  const maxWaitMs = options.maxWaitMs ?? DEFAULTS.maxWaitMs;
  if (!(batchSize >= 1)) throw new Error(`${WHERE}: batchSize must be ≥ 1, got ${batchSize}`);
  if (!options.onDocument === !options.onDocuments) {
    throw new Error(`${WHERE}: give exactly one of onDocument and onDocuments`);
  }
  const { signal } = options;
  const started = performance.now();
  const iterator = iteratorOf(source);

  // An endpoint embedder may learn its dimension from its first answer (0 until then).
  let dim = embedder.dimension;
  const queue: Entry[] = []; // documents not yet handed over, in arrival order
  let cursorDoc = 0; // index in `queue` of the next sentence to embed
  let cursorSentence = 0;
  let unassigned = 0; // sentences in `queue` not yet sent to the embedder
  let seenSentences = 0;
  let done = 0;
  let documents = 0;
  let sourceDone = false;
  let next: Promise<IteratorResult<PreparedDocument>> | null = null;

  let abortReject: ((e: unknown) => void) | null = null;
  const aborted = new Promise<never>((_, reject) => (abortReject = reject));
  aborted.catch(() => undefined);
  const onAbort = (): void => abortReject?.(new EmbedAbortError(WHERE));
  signal?.addEventListener('abort', onAbort, { once: true });

  const checkAbort = (): void => {
    if (signal?.aborted) throw new EmbedAbortError(WHERE);
  };

  const pull = (): Promise<IteratorResult<PreparedDocument>> => {
    next ??= Promise.resolve(iterator.next());
    return next;
  };

  const accept = (result: IteratorResult<PreparedDocument>): void => {
    next = null;
    if (result.done) {
      sourceDone = true;
      return;
    }
    const prepared = result.value;
    const n = prepared.sentences.length;
    queue.push({ prepared, vectors: n === 0 ? new Float32Array(0) : null, remaining: n });
    unassigned += n;
    seenSentences += n;
  };

  const report = (): void => {
    if (!options.onProgress) return;
    const seconds = (performance.now() - started) / 1000;
    options.onProgress({
      stage: 'embed',
      done,
      total: Math.max(options.expectedSentences ?? 0, seenSentences),
      rate: seconds > 0 ? done / seconds : 0,
    });
  };

  // The batch hand-over in flight (onDocuments), and its failure once known.
  let writing: Promise<void> | null = null;
  let writeFailure: { error: unknown } | null = null;
  const checkWrite = (): void => {
    if (writeFailure) throw writeFailure.error;
  };

  const takeFinished = (): Entry[] => {
    const finished: Entry[] = [];
    while (queue.length > 0 && queue[0].remaining === 0) {
      finished.push(queue.shift() as Entry);
      cursorDoc -= 1;
    }
    if (cursorDoc < 0) {
      cursorDoc = 0;
      cursorSentence = 0;
    }
    return finished;
  };

  const handOverFinished = async (): Promise<void> => {
    checkWrite();
    if (queue.length === 0 || queue[0].remaining !== 0) return;
    checkAbort();
    const { onDocument, onDocuments } = options;
    if (onDocument) {
      for (const entry of takeFinished()) {
        checkAbort();
        await onDocument(entry.prepared, entry.vectors ?? new Float32Array(0));
        documents += 1;
      }
      return;
    }
    // One write at a time, in document order: wait for the previous one before starting the next.
    if (writing) await writing;
    checkWrite();
    checkAbort();
    const completed = takeFinished().map((e) => ({
      prepared: e.prepared,
      vectors: e.vectors ?? new Float32Array(0),
    }));
    documents += completed.length;
    writing = (onDocuments as (c: EmbeddedDocument[]) => Promise<void>)(completed).catch((error: unknown) => {
      writeFailure ??= { error };
    });
  };

  /** Waits for the next document; with `limitMs`, gives up after that long (returns false). */
  const waitForDocument = async (limitMs: number | null): Promise<boolean> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const racers: Array<Promise<IteratorResult<PreparedDocument> | typeof TIMED_OUT>> = [pull(), aborted];
    if (limitMs !== null) racers.push(new Promise((r) => (timer = setTimeout(() => r(TIMED_OUT), limitMs))));
    try {
      const result = await Promise.race(racers);
      if (result === TIMED_OUT) return false;
      accept(result);
      return true;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  };

  try {
    for (;;) {
      checkAbort();
      while (unassigned < batchSize && !sourceDone) {
        const arrived = await waitForDocument(unassigned > 0 ? maxWaitMs : null);
        if (!arrived) break;
      }
      await handOverFinished();
      if (unassigned === 0) {
        if (sourceDone) break;
        continue;
      }

      const texts: string[] = [];
      const slots: Array<[Entry, number]> = [];
      while (texts.length < batchSize && cursorDoc < queue.length) {
        const entry = queue[cursorDoc];
        if (cursorSentence >= entry.prepared.sentences.length) {
          cursorDoc += 1;
          cursorSentence = 0;
          continue;
        }
        texts.push(entry.prepared.sentences[cursorSentence].text);
        slots.push([entry, cursorSentence]);
        cursorSentence += 1;
      }
      unassigned -= texts.length;
      // Ask for the next document before embedding, so a producer in another worker keeps parsing meanwhile.
      if (!sourceDone) pull().catch(() => undefined);

      const embedding = embedder.embed(texts, signal);
      embedding.catch(() => undefined); // if the abort wins the race, a later rejection is expected, not unhandled
      const vectors = await Promise.race([embedding, aborted]);
      checkAbort();
      if (dim === 0 && texts.length > 0) dim = vectors.length / texts.length;
      if (!Number.isInteger(dim) || dim <= 0 || vectors.length !== texts.length * dim) {
        throw new Error(
          `${WHERE}: embedder ${embedder.id} returned ${vectors.length} floats for ${texts.length} texts`,
        );
      }
      slots.forEach(([entry, s], row) => {
        entry.vectors ??= new Float32Array(entry.prepared.sentences.length * dim);
        entry.vectors.set(vectors.subarray(row * dim, (row + 1) * dim), s * dim);
        entry.remaining -= 1;
      });
      done += texts.length;
      report();
      await handOverFinished();
    }
    if (writing) await writing;
    checkWrite();
  } catch (e) {
    // Close the source (e.g. stop a generator that reads files). Not awaited: a generator busy producing the
    // next document finishes that first, and its own errors must not hide ours.
    Promise.resolve()
      .then(() => iterator.return?.())
      .catch(() => undefined);
    (next as Promise<unknown> | null)?.catch(() => undefined);
    throw e;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Even when cancelled or failed, let the write in flight finish: nothing may write after the caller
    // believes the run is over (`writing` never rejects; its failure is in writeFailure).
    if (writing) await writing;
  }

  const seconds = (performance.now() - started) / 1000;
  return { documents, sentences: done, seconds, rate: seconds > 0 ? done / seconds : 0, dimension: dim };
}

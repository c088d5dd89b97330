// Embeds the sentences of prepared documents exactly once, in batches that span documents (a .jsonl of short
// passages would otherwise make tiny batches), while documents are still arriving (an async iterable: parsing
// overlaps embedding). Each document is handed over with all its sentence vectors, in arrival order, as soon as
// its last sentence is embedded; a cancelled run throws an AbortError and hands over nothing half-done.

import type { Embedder, PreparedDocument, ProgressCallback } from '../types.ts';
import { EmbedAbortError } from '../embed/abort.ts';

export interface EmbedDocumentsOptions {
  /** Receives each finished document and its sentences × dimension vectors (sentence order). Awaited in order. */
  onDocument(prepared: PreparedDocument, vectors: Float32Array): void | Promise<void>;
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
}

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

  const handOverFinished = async (): Promise<void> => {
    while (queue.length > 0 && queue[0].remaining === 0) {
      checkAbort();
      const entry = queue.shift() as Entry;
      cursorDoc -= 1;
      await options.onDocument(entry.prepared, entry.vectors ?? new Float32Array(0));
      documents += 1;
    }
    if (cursorDoc < 0) {
      cursorDoc = 0;
      cursorSentence = 0;
    }
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
  }

  const seconds = (performance.now() - started) / 1000;
  return { documents, sentences: done, seconds, rate: seconds > 0 ? done / seconds : 0, dimension: dim };
}

// The one sentence-embedding loop, used by the ingest worker, `cli index`, `bench` and the ingest-rate benchmark.
// It embeds the sentences of prepared documents exactly once, in batches that span documents (a .jsonl of short
// passages would otherwise make tiny batches), while documents are still arriving (an async iterable: parsing
// overlaps embedding). Each document is handed over with all its sentence vectors, in arrival order, as soon as
// its last sentence is embedded; a cancelled run throws an AbortError and hands over nothing half-done.
// Two hand-overs: `onDocument` (one document at a time, awaited) for CLI and benchmarks, or `onDocuments` (the
// documents each embedder call completed, as one write that overlaps the next call) for the ingest worker, where
// one store transaction per batch lets IndexedDB commit while the model runs.
// No vector memory is sized from `embedder.dimension` before the first answer: an endpoint embedder reports 0
// until then. `embedTexts` runs the same loop over a plain list of texts (questions, a benchmark's sentences).

import type { Embedder, PreparedDocument, ProgressCallback } from '../types.ts';
import { EmbedAbortError } from '../embed/index.ts';
import { expandRows, uniqueTexts } from '../embed/index.ts';

/** A document with its sentences × dimension vectors, in sentence order. */
interface EmbeddedDocument {
  prepared: PreparedDocument;
  vectors: Float32Array;
}

/** Where finished documents go: exactly one of the two. */
type EmbedHandOver =
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

/** How the loop batches, reports and stops; shared by embedDocuments and embedTexts. */
export interface EmbedLoopOptions {
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

export type EmbedDocumentsOptions = EmbedHandOver & EmbedLoopOptions;

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

// ---- Step 1: the documents that arrived, and the next batch of their sentences -------------------------------

interface Entry {
  prepared: PreparedDocument;
  /** Allocated when the first of its rows arrives, so the dimension is known by then. */
  vectors: Float32Array | null;
  remaining: number;
}

/** One embedder call's texts, and for each text the document and sentence its row belongs to. */
interface Batch {
  texts: string[];
  slots: Array<[Entry, number]>;
}

/** Documents not yet handed over, in arrival order, with a cursor on the next sentence to embed. */
class ArrivalQueue {
  private readonly entries: Entry[] = [];
  private cursorDoc = 0;
  private cursorSentence = 0;
  /** Sentences that arrived but were not yet put in a batch. */
  unassigned = 0;
  /** Sentences that arrived so far. */
  seen = 0;

  add(prepared: PreparedDocument): void {
    const n = prepared.sentences.length;
    this.entries.push({ prepared, vectors: n === 0 ? new Float32Array(0) : null, remaining: n });
    this.unassigned += n;
    this.seen += n;
  }

  /** Collects up to `size` sentence texts, spanning documents, from the cursor on. */
  nextBatch(size: number): Batch {
    const batch: Batch = { texts: [], slots: [] };
    while (batch.texts.length < size && this.cursorDoc < this.entries.length) {
      const entry = this.entries[this.cursorDoc];
      if (this.cursorSentence >= entry.prepared.sentences.length) {
        this.cursorDoc += 1;
        this.cursorSentence = 0;
        continue;
      }
      batch.texts.push(entry.prepared.sentences[this.cursorSentence].text);
      batch.slots.push([entry, this.cursorSentence]);
      this.cursorSentence += 1;
    }
    this.unassigned -= batch.texts.length;
    return batch;
  }

  hasFinished(): boolean {
    return this.entries.length > 0 && this.entries[0].remaining === 0;
  }

  /** Removes and returns the leading documents whose every sentence has its vector. */
  takeFinished(): EmbeddedDocument[] {
    const finished: EmbeddedDocument[] = [];
    while (this.hasFinished()) {
      const entry = this.entries.shift() as Entry;
      finished.push({ prepared: entry.prepared, vectors: entry.vectors ?? new Float32Array(0) });
      this.cursorDoc -= 1;
    }
    if (this.cursorDoc < 0) {
      this.cursorDoc = 0;
      this.cursorSentence = 0;
    }
    return finished;
  }
}

// ---- Step 2: one embedder call, checked ------------------------------------------------------------------------

/**
 * Embeds one batch, raced against cancellation. Returns the rows and the dimension: the one known before, or
 * (for an embedder that reports 0 until its first answer) the one this answer shows.
 */
async function embedBatch(
  embedder: Embedder,
  texts: string[],
  knownDim: number,
  cancel: Cancellation,
): Promise<{ vectors: Float32Array; dim: number }> {
  const embedding = embedder.embed(texts, cancel.signal);
  embedding.catch(() => undefined); // if the abort wins the race, a later rejection is expected, not unhandled
  const vectors = await Promise.race([embedding, cancel.aborted]);
  cancel.check();
  const dim = knownDim > 0 ? knownDim : vectors.length / texts.length;
  if (!Number.isInteger(dim) || dim <= 0 || vectors.length !== texts.length * dim) {
    throw new Error(
      `${WHERE}: embedder ${embedder.id} returned ${vectors.length} floats for ${texts.length} texts`,
    );
  }
  return { vectors, dim };
}

// ---- Step 3: rows into their documents --------------------------------------------------------------------------

function placeRows(batch: Batch, vectors: Float32Array, dim: number): void {
  batch.slots.forEach(([entry, s], row) => {
    entry.vectors ??= new Float32Array(entry.prepared.sentences.length * dim);
    entry.vectors.set(vectors.subarray(row * dim, (row + 1) * dim), s * dim);
    entry.remaining -= 1;
  });
}

// ---- Step 4: hand-over of finished documents --------------------------------------------------------------------

/** Delivers finished documents through the caller's hand-over; see EmbedHandOver for the two disciplines. */
class HandOver {
  documents = 0;
  /** The batch hand-over in flight (onDocuments); it never rejects, its failure goes to `failure`. */
  private writing: Promise<void> | null = null;
  private failure: { error: unknown } | null = null;

  constructor(
    private readonly options: EmbedHandOver,
    private readonly cancel: Cancellation,
  ) {
    if (!options.onDocument === !options.onDocuments) {
      throw new Error(`${WHERE}: give exactly one of onDocument and onDocuments`);
    }
  }

  checkFailure(): void {
    if (this.failure) throw this.failure.error;
  }

  async deliver(queue: ArrivalQueue): Promise<void> {
    this.checkFailure();
    if (!queue.hasFinished()) return;
    this.cancel.check();
    const { onDocument, onDocuments } = this.options;
    if (onDocument) {
      for (const { prepared, vectors } of queue.takeFinished()) {
        this.cancel.check();
        await onDocument(prepared, vectors);
        this.documents += 1;
      }
      return;
    }
    // One write at a time, in document order: wait for the previous one before starting the next.
    if (this.writing) await this.writing;
    this.checkFailure();
    this.cancel.check();
    const completed = queue.takeFinished();
    this.documents += completed.length;
    this.writing = (onDocuments as (c: EmbeddedDocument[]) => Promise<void>)(completed).catch(
      (error: unknown) => {
        this.failure ??= { error };
      },
    );
  }

  /** Waits for the write in flight: nothing may write after the caller believes the run is over. */
  async settle(): Promise<void> {
    if (this.writing) await this.writing;
  }
}

// ---- Cancellation and the document source -----------------------------------------------------------------------

/** The caller's signal as a check and as a promise that rejects when it fires (to race slow calls against). */
class Cancellation {
  readonly aborted: Promise<never>;
  private readonly onAbort: () => void;

  constructor(readonly signal: AbortSignal | undefined) {
    let reject: (e: unknown) => void = () => {};
    this.aborted = new Promise<never>((_, r) => (reject = r));
    this.aborted.catch(() => undefined);
    this.onAbort = () => reject(new EmbedAbortError(WHERE));
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  check(): void {
    if (this.signal?.aborted) throw new EmbedAbortError(WHERE);
  }

  release(): void {
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}

type Source = AsyncIterable<PreparedDocument> | Iterable<PreparedDocument>;

const TIMED_OUT = Symbol('timed out');

/** Pulls documents from a sync or async iterable, at most one request in flight. */
class DocumentSource {
  done = false;
  private readonly iterator: AsyncIterator<PreparedDocument> | Iterator<PreparedDocument>;
  private next: Promise<IteratorResult<PreparedDocument>> | null = null;

  constructor(source: Source) {
    this.iterator =
      Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  }

  /** Asks for the next document (again the same request while one is in flight). */
  pull(): Promise<IteratorResult<PreparedDocument>> {
    this.next ??= Promise.resolve(this.iterator.next());
    return this.next;
  }

  /** Waits for the next document into `queue`; with `limitMs`, gives up after that long (returns false). */
  async waitInto(queue: ArrivalQueue, limitMs: number | null, cancel: Cancellation): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const racers: Array<Promise<IteratorResult<PreparedDocument> | typeof TIMED_OUT>> = [
      this.pull(),
      cancel.aborted,
    ];
    if (limitMs !== null) racers.push(new Promise((r) => (timer = setTimeout(() => r(TIMED_OUT), limitMs))));
    try {
      const result = await Promise.race(racers);
      if (result === TIMED_OUT) return false;
      this.next = null;
      if (result.done) this.done = true;
      else queue.add(result.value);
      return true;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  /**
   * Closes the source (e.g. stops a generator that reads files). Not awaited: a generator busy producing the
   * next document finishes that first, and its own errors must not hide the caller's.
   */
  close(): void {
    Promise.resolve()
      .then(() => this.iterator.return?.())
      .catch(() => undefined);
    this.next?.catch(() => undefined);
  }
}

// ---- The loop ----------------------------------------------------------------------------------------------------

/** Embeds every sentence of every document from `source` once; see the module comment. */
export async function embedDocuments(
  source: Source,
  embedder: Embedder,
  options: EmbedDocumentsOptions,
): Promise<EmbedDocumentsResult> {
  const batchSize = options.batchSize ?? DEFAULTS.batchSize;
  const maxWaitMs = options.maxWaitMs ?? DEFAULTS.maxWaitMs;
  if (!(batchSize >= 1)) throw new Error(`${WHERE}: batchSize must be ≥ 1, got ${batchSize}`);
  const started = performance.now();
  const cancel = new Cancellation(options.signal);
  let handOver: HandOver;
  try {
    handOver = new HandOver(options, cancel);
  } catch (e) {
    cancel.release();
    throw e;
  }
  const documents = new DocumentSource(source);
  const queue = new ArrivalQueue();
  let dim = embedder.dimension;
  let done = 0;

  const report = (): void => {
    if (!options.onProgress) return;
    const seconds = (performance.now() - started) / 1000;
    options.onProgress({
      stage: 'embed',
      done,
      total: Math.max(options.expectedSentences ?? 0, queue.seen),
      rate: seconds > 0 ? done / seconds : 0,
    });
  };

  try {
    for (;;) {
      cancel.check();
      while (queue.unassigned < batchSize && !documents.done) {
        const arrived = await documents.waitInto(queue, queue.unassigned > 0 ? maxWaitMs : null, cancel);
        if (!arrived) break;
      }
      await handOver.deliver(queue);
      if (queue.unassigned === 0) {
        if (documents.done) break;
        continue;
      }
      const batch = queue.nextBatch(batchSize);
      // Ask for the next document before embedding, so a producer in another worker keeps parsing meanwhile.
      if (!documents.done) documents.pull().catch(() => undefined);
      const answer = await embedBatch(embedder, batch.texts, dim, cancel);
      dim = answer.dim;
      placeRows(batch, answer.vectors, dim);
      done += batch.texts.length;
      report();
      await handOver.deliver(queue);
    }
    await handOver.settle();
    handOver.checkFailure();
  } catch (e) {
    documents.close();
    throw e;
  } finally {
    cancel.release();
    await handOver.settle();
  }

  const seconds = (performance.now() - started) / 1000;
  return {
    documents: handOver.documents,
    sentences: done,
    seconds,
    rate: seconds > 0 ? done / seconds : 0,
    dimension: dim,
  };
}

/** A document shell that carries plain texts through the loop as its sentences. */
function textsAsDocument(id: string, texts: string[]): PreparedDocument {
  return {
    doc: { id, title: id, sourceName: id, mime: 'text/plain', size: 0, hash: id, addedAt: 0, text: '' },
    sections: [],
    chunks: [],
    sentences: texts.map((text, index) => ({
      id: `${id}:${index}`,
      docId: id,
      chunkId: '',
      index,
      start: 0,
      end: 0,
      text,
    })),
  };
}

/**
 * Embeds a list of texts (questions, a benchmark's sentences) with the same loop: each distinct text once, in
 * batches of `batchSize`, with progress and cancellation. Returns texts.length × dimension floats, row-major; the
 * result is allocated after the last answer, when the dimension is known even for an endpoint embedder.
 */
export async function embedTexts(
  texts: string[],
  embedder: Embedder,
  options: EmbedLoopOptions = {},
): Promise<{ vectors: Float32Array; dimension: number }> {
  const batchSize = options.batchSize ?? DEFAULTS.batchSize;
  const { unique, index } = uniqueTexts(texts);
  // One shell document per batch: its vectors come back as one part, and parts are joined once at the end.
  const shells: PreparedDocument[] = [];
  for (let i = 0; i < unique.length; i += batchSize) {
    shells.push(textsAsDocument(`texts-${i}`, unique.slice(i, i + batchSize)));
  }
  const parts: Float32Array[] = [];
  const result = await embedDocuments(shells, embedder, {
    ...options,
    expectedSentences: options.expectedSentences ?? unique.length,
    onDocument: (_, vectors) => void parts.push(vectors),
  });
  const dimension = result.dimension;
  const rows = new Float32Array(unique.length * dimension);
  let offset = 0;
  for (const part of parts) {
    rows.set(part, offset);
    offset += part.length;
  }
  return { vectors: expandRows(rows, index, dimension), dimension };
}

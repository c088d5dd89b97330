// The queue's side of a drain (IngestPipeline): takes the files waiting in the pending table in order, parses them
// (small ones together, LimitedParse), stores their documents a slice per transaction under the storage guard, and
// settles each file's queue record (removed once stored, failed with its reason, or put back uncounted when the run
// stops for lack of space). What a store write means for the rest of the drain (the kept counts, the graph refresh,
// the drop's projection) is the pipeline's: it is told through QueueHost.
import type { FileError, PreparedDocument, Progress, Stage } from '../../core/types.ts';
import { tooLargeReason } from '../../core/parse/index.ts';
import type { PutResult, Repo } from '../../store/repo.ts';
import type { PendingRecord } from '../../store/db.ts';
import { LimitedParse, mayNeedOcr, type ParseDeps, type PreparedFile } from './limitedParse.ts';
import { MAX_FILE_BYTES, type FileOutcome, type IngestEvent } from './ingestProtocol.ts';
import { describeError, guardWrite, STORE_TIMEOUT_MS, StorageStopError } from './storageGuard.ts';

/** Documents per store transaction when a file holds many (a .jsonl of passages). */
const STORE_SLICE_DOCUMENTS = 256;
/**
 * Small files are parsed in one call to the parse worker and stored in one transaction, up to this many files
 * and BATCH_BYTES bytes: a folder of documentation pages otherwise spends most of its time on one round trip,
 * several transactions and events per file. A larger file, or one whose indexing was interrupted before, is
 * parsed and stored alone.
 */
export const BATCH_FILES = 32;
const BATCH_BYTES = 256 * 1024;

/** A file whose indexing started this often without finishing (the page closed or crashed) is not retried. */
export const MAX_ATTEMPTS = 2;

/** Tracks done/total and the rate of one stage since it started. */
export class StageMeter {
  private readonly started = performance.now();
  constructor(
    private readonly emit: (event: IngestEvent) => void,
    readonly stage: Stage,
    public total: number,
  ) {}
  report(done: number, item?: string): void {
    const seconds = (performance.now() - this.started) / 1000;
    const progress: Progress = {
      stage: this.stage,
      done,
      total: this.total,
      rate: seconds > 0 ? done / seconds : 0,
      item,
    };
    this.emit({ type: 'progress', progress });
  }
}

/** Why a file gave no document: its parse errors, or that it has no text. */
function noText(errors: FileError[]): string {
  return errors.map((e) => e.reason).join('; ') || 'no text found';
}

/** A file's outcome from its stored and duplicate documents; lines that could not be read are reported with it. */
function fileOutcome(file: string, stored: number, duplicates: number, errors: FileError[]): FileOutcome {
  if (stored === 0 && duplicates > 0) {
    return { file, status: 'duplicate', documents: 0, reason: 'already in the library' };
  }
  const partial = errors.length > 0 ? errors.map((e) => e.reason).join('; ') : undefined;
  return { file, status: 'indexed', documents: stored, reason: partial };
}

/** A queued file and its place in the queue (for the progress). */
interface QueuedFile {
  file: PendingRecord;
  position: number;
}

/** What the queue tells the drain it runs in. */
export interface QueueHost {
  /** Progress, outcomes and changes for the page. */
  emit(event: IngestEvent): void;
  /** A store write of these documents and its results: the drain keeps its counts; returns how many were new. */
  stored(documents: readonly PreparedDocument[], results: readonly PutResult[]): number;
  /** A queued file of this many bytes is settled (its documents stored, or failed). */
  settled(bytes: number): void;
  /** After every store write of documents (the page hears the counts, spaced). */
  afterWrite(): Promise<void>;
  /** After each file or batch of files (the graph is refreshed when due). */
  afterFiles(signal: AbortSignal): Promise<void>;
}

export interface QueueDeps extends ParseDeps {
  repo: Repo;
  /** Files per batch (default BATCH_FILES; 1: every file alone). */
  batchFiles?: number;
  /** Time limit of one store write (default STORE_TIMEOUT_MS). */
  storeTimeoutMs?: number;
}

export class QueueStore {
  private readonly parse: LimitedParse;

  constructor(
    private readonly deps: QueueDeps,
    private readonly host: QueueHost,
  ) {
    this.parse = new LimitedParse(deps, (event) => host.emit(event));
  }

  private meter(stage: Stage, total: number): StageMeter {
    return new StageMeter((e) => this.host.emit(e), stage, total);
  }

  /**
   * Parses and stores the files of the queue, in order, small ones in batches; refreshes the lexical graph while
   * files keep coming.
   */
  async store(queue: string[], signal: AbortSignal): Promise<void> {
    const { repo } = this.deps;
    const fileMeter = this.meter('parse', queue.length);
    const batchFiles = this.deps.batchFiles ?? BATCH_FILES;
    let batch: QueuedFile[] = [];
    let batchBytes = 0;
    const flush = async (): Promise<void> => {
      const files = batch;
      batch = [];
      batchBytes = 0;
      if (files.length === 0) return;
      if (files.length === 1) await this.storeAlone(files[0], signal, fileMeter);
      else await this.storeBatch(files, signal, fileMeter);
      await this.host.afterFiles(signal);
    };
    for (const [position, id] of queue.entries()) {
      signal.throwIfAborted();
      const file = await repo.pendingFile(id);
      if (!file || file.status === 'failed') continue;
      const size = file.bytes.byteLength;
      // Interrupted before (the page closed or crashed on its batch): alone, so a file that crashes the page
      // is the only one to reach the attempt limit, not its batch-mates.
      const alone =
        size > BATCH_BYTES || (file.attempts ?? 0) > 0 || batchFiles <= 1 || mayNeedOcr(file.name);
      if (alone || batch.length >= batchFiles || batchBytes + size > BATCH_BYTES) await flush();
      batch.push({ file, position });
      batchBytes += size;
      if (alone) await flush();
    }
    await flush();
    fileMeter.report(queue.length);
  }

  /** One file: parsed in a call of its own, its documents stored a slice per transaction, then its queue record. */
  private async storeAlone(
    { file, position }: QueuedFile,
    signal: AbortSignal,
    fileMeter: StageMeter,
  ): Promise<void> {
    const { repo } = this.deps;
    fileMeter.report(position, file.name);
    let outcome: FileOutcome;
    if ((file.attempts ?? 0) >= MAX_ATTEMPTS) {
      // Started twice and never finished: the page closed or crashed on it both times. Retrying it on every
      // load would be a crash loop; it is failed with the reason and the rest of the queue goes on.
      const reason = `indexing was interrupted ${file.attempts} times on this file (the page was closed or crashed while reading it); it is not retried`;
      outcome = { file: file.name, status: 'failed', documents: 0, reason };
      await this.write(file.name, () => repo.markFailed(file.id, reason));
      this.host.emit({ type: 'file', outcome });
      this.host.emit({ type: 'changed' });
      return;
    }
    const attempts = await this.write(file.name, () => repo.startPending(file.id));
    try {
      outcome = await this.storeFile(file.name, file.bytes, signal, () =>
        fileMeter.report(position + 1, file.name),
      );
    } catch (error) {
      if (signal.aborted) throw error;
      if (error instanceof StorageStopError) {
        // Not the file's fault: it goes back to the queue uncounted (best effort: the store may refuse this too).
        await repo.requeuePending(file.id, attempts - 1).catch(() => undefined);
        throw error;
      }
      outcome = { file: file.name, status: 'failed', documents: 0, reason: describeError(error) };
    }
    if (outcome.status === 'failed') {
      await this.write(file.name, () => repo.markFailed(file.id, outcome.reason));
    } else await this.write(file.name, () => repo.removePending(file.id));
    this.host.settled(file.size);
    this.host.emit({ type: 'file', outcome });
    this.host.emit({ type: 'changed' });
  }

  /**
   * Small files together: their starts counted in one transaction, parsed in one call, their documents stored
   * and their queue records settled in one transaction per STORE_SLICE_DOCUMENTS documents (each file wholly in
   * one), then one 'changed'. Each file still gets its own outcome; a file that cannot be read fails alone. When
   * the batch cannot be parsed as a whole (a parser hung past the time limit or crashed) or a store write is
   * refused for another reason than space, its files go one by one, so only the file at fault fails.
   */
  private async storeBatch(batch: QueuedFile[], signal: AbortSignal, fileMeter: StageMeter): Promise<void> {
    const { repo } = this.deps;
    const first = batch[0].file.name;
    fileMeter.report(batch[0].position, first);
    const attempts = await this.write(first, () => repo.startPendingMany(batch.map((q) => q.file.id)));
    // Settled files leave this list; the rest go back to the queue uncounted if the run stops.
    const unsettled = new Map(batch.map((q, i) => [q.file.id, attempts[i]]));
    const requeue = async (): Promise<void> => {
      for (const [id, n] of unsettled) await repo.requeuePending(id, n - 1).catch(() => undefined);
    };
    const oneByOne = async (files: QueuedFile[]): Promise<void> => {
      const ids = new Set(files.map((q) => q.file.id));
      for (const [id, n] of unsettled) if (ids.has(id)) await repo.requeuePending(id, n - 1);
      for (const q of files) {
        unsettled.delete(q.file.id);
        // Read again: the batch's bytes were handed over to the parse worker (a transfer leaves them empty here).
        const file = await repo.pendingFile(q.file.id);
        if (file) await this.storeAlone({ file, position: q.position }, signal, fileMeter);
      }
    };
    let parsed: Array<PreparedFile | { error: string }>;
    try {
      parsed = await this.parse.batch(
        batch.map((q) => q.file),
        signal,
      );
    } catch (error) {
      if (signal.aborted) throw error;
      await oneByOne(batch);
      return;
    }
    signal.throwIfAborted();
    // Per file in queue order: its documents, or why it failed. Transactions of at most STORE_SLICE_DOCUMENTS
    // documents, each file whole (one with more: a transaction of its own); a failed file is marked in the
    // transaction of its place in the queue, so outcomes are reported in queue order.
    type Parsed = { q: QueuedFile } & (
      { documents: PreparedDocument[]; errors: FileError[] } | { documents?: undefined; reason: string }
    );
    const groups: Parsed[][] = [];
    let docs = STORE_SLICE_DOCUMENTS;
    let total = 0;
    parsed.forEach((r, k) => {
      const q = batch[k];
      fileMeter.report(q.position + 1, q.file.name);
      const item: Parsed =
        'error' in r
          ? { q, reason: r.error }
          : r.documents.length === 0
            ? { q, reason: noText(r.errors) }
            : { q, documents: r.documents, errors: r.errors };
      const n = item.documents?.length ?? 0;
      if (groups.length === 0 || (n > 0 && docs + n > STORE_SLICE_DOCUMENTS)) {
        groups.push([]);
        docs = 0;
      }
      groups.at(-1)!.push(item);
      docs += n;
      total += n;
    });
    const storeMeter = this.meter('store', total);
    let storedDocs = 0;
    for (const group of groups) {
      signal.throwIfAborted();
      const files = group.flatMap((p) =>
        p.documents ? [{ pendingId: p.q.file.id, documents: p.documents }] : [],
      );
      const failed = group.flatMap((p) =>
        p.documents ? [] : [{ pendingId: p.q.file.id, reason: p.reason }],
      );
      const named = files.length > 0 ? group.find((p) => p.documents)!.q.file.name : group[0].q.file.name;
      let results: PutResult[][];
      try {
        results = await this.write(named, () => repo.putParsedFiles(files, failed));
      } catch (error) {
        if (signal.aborted) throw error;
        if (error instanceof StorageStopError) {
          await requeue();
          throw error;
        }
        // Refused for another reason than space: each file alone, so the one at fault fails by itself.
        await oneByOne(group.map((p) => p.q));
        continue;
      }
      let k = 0;
      const outcomes: FileOutcome[] = group.map((p) => {
        unsettled.delete(p.q.file.id);
        this.host.settled(p.q.file.size);
        if (!p.documents) return { file: p.q.file.name, status: 'failed', documents: 0, reason: p.reason };
        const stored = this.host.stored(p.documents, results[k++]);
        storedDocs += p.documents.length;
        return fileOutcome(p.q.file.name, stored, p.documents.length - stored, p.errors);
      });
      storeMeter.report(storedDocs, files.at(-1)?.documents.at(-1)?.doc.title);
      for (const outcome of outcomes) this.host.emit({ type: 'file', outcome });
      this.host.emit({ type: 'changed' });
      await this.host.afterWrite();
    }
  }

  /**
   * Parses one file and stores its documents without vectors (the lexical layer), a slice of documents per
   * transaction; embedding comes later from the store.
   */
  private async storeFile(
    name: string,
    bytes: ArrayBuffer,
    signal: AbortSignal,
    onParsed: () => void,
  ): Promise<FileOutcome> {
    if (bytes.byteLength > MAX_FILE_BYTES) {
      return { file: name, status: 'failed', documents: 0, reason: tooLargeReason(bytes.byteLength) };
    }
    const { documents, errors, recognised } = await this.parse.file(name, new Uint8Array(bytes), signal);
    onParsed();
    signal.throwIfAborted();
    if (documents.length === 0) return { file: name, status: 'failed', documents: 0, reason: noText(errors) };
    const outcome = await this.storeDocuments(name, documents, errors, signal);
    return recognised ? { ...outcome, recognised } : outcome;
  }

  /** Stores a parsed file's documents, a slice of documents per transaction. */
  private async storeDocuments(
    name: string,
    documents: PreparedDocument[],
    errors: FileError[],
    signal: AbortSignal,
  ): Promise<FileOutcome> {
    const storeMeter = this.meter('store', documents.length);
    let stored = 0;
    let duplicates = 0;
    for (let i = 0; i < documents.length; i += STORE_SLICE_DOCUMENTS) {
      signal.throwIfAborted();
      const slice = documents.slice(i, i + STORE_SLICE_DOCUMENTS);
      const results = await this.write(name, () =>
        this.deps.repo.putPreparedDocuments(slice.map((prepared) => ({ prepared }))),
      );
      const added = this.host.stored(slice, results);
      stored += added;
      duplicates += results.length - added;
      storeMeter.report(stored + duplicates, slice.at(-1)?.doc.title);
      this.host.emit({ type: 'changed' });
      await this.host.afterWrite();
    }
    return fileOutcome(name, stored, duplicates, errors);
  }

  /**
   * Runs one store write under the storage guard (quota, time limit); see src/services/ingest/storageGuard.ts. The
   * storage is asked for a setting when the write is slow: no write of the pipeline holds the settings table, so an
   * answer says the browser's storage is busy, not stuck.
   */
  write<T>(file: string, write: () => Promise<T>, subject = `"${file}"`): Promise<T> {
    return guardWrite(write, { subject, file }, this.deps.storeTimeoutMs ?? STORE_TIMEOUT_MS, () =>
      this.deps.repo.getSetting('storage-probe (a key never written)'),
    );
  }
}

// The pending queue over IndexedDB: dropped files (table pending) with their bytes (table pendingBytes, schema v5:
// the records stay small, so a file's status changes never rewrite its bytes), so a reload resumes indexing.
// A file is 'queued' until the ingest worker starts it ('working', its starts counted so a file that crashes the
// page twice is failed instead of retried forever), and leaves the queue in the transaction that stores its
// documents (Repo.putParsedFiles). 'announced' files (name and size, bytes not yet stored) are the page's, written
// by intakeStore.ts, and are never drained.
import type { ConceptDb } from './db.ts';
import type { PendingRecord } from './records.ts';

/** A pending file as listed: everything but its bytes. */
export type PendingEntry = Omit<PendingRecord, 'bytes'>;

/**
 * The statuses of files still to index, 'queued' and 'working', as one key range of the status index: the statuses
 * sort announced < failed < queued < working. Dexie counts a range with one request; `anyOf('queued', 'working')`
 * it counted by stepping a cursor through every waiting file, on the page's thread and the store's, every few
 * seconds of a 20,000-file drop.
 */
const WAITING_STATUSES = ['queued', 'working'] as const;

/** The pending records of files still to index (WAITING_STATUSES), as one range. */
export const waitingFiles = (db: ConceptDb) =>
  db.pending.where('status').between(...WAITING_STATUSES, true, true);

/** A pending record as listed: without its bytes (nor its count of starts). */
function listed({ bytes: _bytes, attempts: _attempts, ...entry }: PendingRecord): PendingEntry {
  return entry;
}

/** A pending record as stored since schema v5: its bytes are in pendingBytes. */
const NO_BYTES = new ArrayBuffer(0);

export class QueueRepo {
  constructor(private readonly db: ConceptDb) {}

  async enqueue(files: { name: string; bytes: ArrayBuffer }[]): Promise<string[]> {
    const now = Date.now();
    const records: PendingRecord[] = files.map((f, i) => ({
      id: `${now.toString(36)}-${i.toString().padStart(5, '0')}-${Math.random().toString(36).slice(2, 8)}`,
      name: f.name,
      size: f.bytes.byteLength,
      bytes: NO_BYTES,
      addedAt: now + i,
      status: 'queued',
    }));
    await this.db.transaction('rw', this.db.pending, this.db.pendingBytes, async () => {
      await this.db.pending.bulkAdd(records);
      await this.db.pendingBytes.bulkAdd(records.map((r, i) => ({ id: r.id, bytes: files[i].bytes })));
    });
    return records.map((r) => r.id);
  }

  /**
   * Ids of the files still to index (queued, or 'working' ones interrupted by a reload), oldest first. Reads
   * keys only: the records (with their bytes) are read one at a time with pendingFile().
   */
  async waitingIds(): Promise<string[]> {
    const ids = await this.db.pending.orderBy('addedAt').primaryKeys();
    // Failed files, and announced ones whose bytes are not stored yet (src/store/intakeStore.ts), are not drained.
    const skipped = new Set(await this.db.pending.where('status').anyOf('failed', 'announced').primaryKeys());
    return ids.filter((id) => !skipped.has(id));
  }

  /**
   * One pending file with its bytes (undefined when it is gone, e.g. after a cancel): from pendingBytes, or
   * inline for a record queued before schema v5.
   */
  async pendingFile(id: string): Promise<PendingRecord | undefined> {
    return this.db.transaction('r', this.db.pending, this.db.pendingBytes, async () => {
      const [record, stored] = await Promise.all([this.db.pending.get(id), this.db.pendingBytes.get(id)]);
      return record && { ...record, bytes: stored?.bytes ?? record.bytes };
    });
  }

  /**
   * Settles the records of parsed files: a stored file leaves the queue, a failed one is marked failed with its
   * reason. Runs inside the transaction that stores the files' documents (Repo.putParsedFiles).
   */
  async settleParsed(storedIds: string[], failed: { pendingId: string; reason: string }[]): Promise<void> {
    await this.db.pending.bulkDelete(storedIds);
    await this.db.pendingBytes.bulkDelete(storedIds);
    for (const f of failed) await this.markFailed(f.pendingId, f.reason);
  }

  /**
   * Marks several files 'working' and counts their starts, in one transaction (see startPending). The records are
   * small (the bytes are in pendingBytes): this rewrites no file.
   */
  async startPendingMany(ids: readonly string[]): Promise<number[]> {
    return this.db.transaction('rw', this.db.pending, async () => {
      const records = await this.db.pending.bulkGet([...ids]);
      const attempts = records.map((r) => (r?.attempts ?? 0) + 1);
      for (const [i, id] of ids.entries()) {
        await this.db.pending.update(id, { status: 'working', attempts: attempts[i] });
      }
      return attempts;
    });
  }

  /** Marks a file 'working' and counts the start; returns the starts so far (this one included). */
  async startPending(id: string): Promise<number> {
    return (await this.startPendingMany([id]))[0];
  }

  /**
   * Puts a file back in the queue as it was before its start (a write the browser refused stopped indexing: the
   * file is not at fault, so the start is not counted towards the crash-loop limit).
   */
  async requeuePending(id: string, attempts: number): Promise<void> {
    await this.db.pending.update(id, { status: 'queued', attempts });
  }

  /**
   * Drops every file still waiting (a cancel); failed ones stay listed with their reasons, and announced ones
   * (bytes not stored) are the page's to forget (src/store/intakeStore.ts).
   */
  async clearWaitingPending(): Promise<void> {
    await this.db.transaction('rw', this.db.pending, this.db.pendingBytes, async () => {
      const ids = await waitingFiles(this.db).primaryKeys();
      await this.db.pending.bulkDelete(ids);
      await this.db.pendingBytes.bulkDelete(ids);
    });
  }

  /** Name/size/status of every pending file, without their bytes. */
  async pendingSummary(): Promise<PendingEntry[]> {
    const out: PendingEntry[] = [];
    await this.db.pending.orderBy('addedAt').each((p) => out.push(listed(p)));
    return out;
  }

  /** Files that failed, with their reasons (their bytes were dropped when they failed, so this read is cheap). */
  async failedPending(): Promise<PendingEntry[]> {
    return (await this.db.pending.where('status').equals('failed').sortBy('addedAt')).map(listed);
  }

  /** Files still waiting or interrupted (a count: reads no bytes). */
  async waitingCount(): Promise<number> {
    return waitingFiles(this.db).count();
  }

  /**
   * The bytes of the files still to index (queued or interrupted) and of the announced ones whose bytes are on their
   * way (intakeStore.ts), from their records' sizes: what a drop will still store (src/services/ingest/dropProjection.ts).
   * The records are small since schema v5 (the bytes are in pendingBytes); a read of 20,000 of them is one range each.
   */
  async queuedBytes(): Promise<{ waiting: number; announced: number }> {
    const sum = (records: PendingRecord[]): number => records.reduce((n, r) => n + (r.size ?? 0), 0);
    return this.db.transaction('r', this.db.pending, async () => {
      const [waiting, announced] = await Promise.all([
        waitingFiles(this.db).toArray(),
        this.db.pending.where('status').equals('announced').toArray(),
      ]);
      return { waiting: sum(waiting), announced: sum(announced) };
    });
  }

  /** Marks a pending file failed: it keeps its name and reason but drops its bytes (they are not needed). */
  async markFailed(id: string, reason?: string): Promise<void> {
    await this.db.transaction('rw', this.db.pending, this.db.pendingBytes, async () => {
      await this.db.pending.update(id, { status: 'failed', reason, bytes: NO_BYTES });
      await this.db.pendingBytes.delete(id);
    });
  }

  async removePending(id: string): Promise<void> {
    await this.db.transaction('rw', this.db.pending, this.db.pendingBytes, async () => {
      await this.db.pending.delete(id);
      await this.db.pendingBytes.delete(id);
    });
  }

  async clearFailedPending(): Promise<void> {
    await this.db.pending.where('status').equals('failed').delete();
  }
}

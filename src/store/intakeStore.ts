// A drop is recorded before anything is parsed: first every accepted file's name and size, in one transaction
// (an 'announced' pending record with no bytes), then the files' bytes (table pendingBytes), a large group per
// transaction, each record turning 'queued' as its bytes land. The ingest worker drains only queued records, so
// it never sees a file without its bytes. A page closed or reloaded before the bytes were stored leaves the announced records:
// the Library view names those files and asks for them again (a later drop of the same name and size fills them).
import type { ConceptDb, PendingBytesRecord, PendingRecord } from './db.ts';

/** A dropped file whose name and size are recorded but whose bytes are not (yet) in the store. */
export type AnnouncedFile = Pick<PendingRecord, 'id' | 'name' | 'size' | 'addedAt'>;

/** A pending id in the form Repo.enqueue gives (time, position, random), so both sort the same way. */
function pendingId(now: number, i: number): string {
  return `${now.toString(36)}-${i.toString().padStart(5, '0')}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Records the names and sizes of a drop, all in one transaction; returns the new records' ids in order. */
export async function announceFiles(
  db: ConceptDb,
  files: readonly { name: string; size: number }[],
  now = Date.now(),
): Promise<string[]> {
  const records: PendingRecord[] = files.map((f, i) => ({
    id: pendingId(now, i),
    name: f.name,
    size: f.size,
    bytes: new ArrayBuffer(0),
    // The drop's order is the queue's order (the worker drains by addedAt).
    addedAt: now + i,
    status: 'announced',
  }));
  await db.pending.bulkAdd(records);
  return records.map((r) => r.id);
}

/**
 * Stores the bytes of announced files in one transaction; each turns 'queued'. A record that is no longer
 * announced (the drop was cancelled meanwhile, or another tab filled it) is left alone. Returns the ids queued.
 */
export async function recordBytes(
  db: ConceptDb,
  items: readonly { id: string; bytes: ArrayBuffer }[],
): Promise<string[]> {
  return db.transaction('rw', db.pending, db.pendingBytes, async () => {
    const records = await db.pending.bulkGet(items.map((i) => i.id));
    const filled: PendingRecord[] = [];
    const bytes: PendingBytesRecord[] = [];
    items.forEach((item, k) => {
      const record = records[k];
      if (record?.status !== 'announced') return;
      filled.push({ ...record, size: item.bytes.byteLength, status: 'queued' });
      bytes.push({ id: item.id, bytes: item.bytes });
    });
    await db.pendingBytes.bulkPut(bytes);
    await db.pending.bulkPut(filled);
    return filled.map((r) => r.id);
  });
}

/** Files recorded by name and size whose bytes never reached the store, oldest first (no bytes are read). */
export async function announcedFiles(db: ConceptDb): Promise<AnnouncedFile[]> {
  const records = await db.pending.where('status').equals('announced').sortBy('addedAt');
  return records.map(({ id, name, size, addedAt }) => ({ id, name, size, addedAt }));
}

/** Forgets announced files (all of them, or the ids given): the person will not pick them again. */
export async function forgetAnnounced(db: ConceptDb, ids?: readonly string[]): Promise<void> {
  const announced = db.pending.where('status').equals('announced');
  if (!ids) {
    await announced.delete();
    return;
  }
  const wanted = new Set(ids);
  await announced.filter((r) => wanted.has(r.id)).delete();
}

/**
 * Pairs picked files with announced ones of the same name and size (a file picked again after a reload), each
 * announced record at most once; the rest of the picked files are new.
 */
export function matchAnnounced<T extends { name: string; size: number }>(
  picked: readonly T[],
  announced: readonly AnnouncedFile[],
): { matched: { file: T; id: string }[]; fresh: T[] } {
  const open = new Map<string, string[]>();
  for (const a of announced) {
    const key = `${a.size}:${a.name}`;
    open.set(key, [...(open.get(key) ?? []), a.id]);
  }
  const matched: { file: T; id: string }[] = [];
  const fresh: T[] = [];
  for (const file of picked) {
    const ids = open.get(`${file.size}:${file.name}`);
    const id = ids?.shift();
    if (id) matched.push({ file, id });
    else fresh.push(file);
  }
  return { matched, fresh };
}

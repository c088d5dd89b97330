// The network ledger's own small IndexedDB database ("conceptrag-ledger"), apart from the library's: entries must
// survive a reload, but they are not part of the library (a bundle never carries them, removing documents never
// touches them) and their schema changes without a library migration. Each worker writes its own entries (put by
// id, so a later update of the same request — its token usage — replaces the entry); the page reads them.
import Dexie, { type Table } from 'dexie';
import type { StorageDeps } from './db.ts';

/** Why the app made a request. */
export type LedgerPurpose =
  'KG build' | 'answer' | 'question modes' | 'evaluation' | 'embeddings' | 'connection test';

export interface LedgerEntry {
  /** Unique per request (the worker's name, a random part and a counter). */
  id: string;
  /** When the request was sent (ISO 8601). */
  at: string;
  method: string;
  /** `https://host:port` of the endpoint. */
  origin: string;
  host: string;
  /** Path only: the query string is never recorded. */
  path: string;
  purpose: LedgerPurpose;
  /** Worker that made it (query, kg, ingest, embed). */
  source: string;
  /** Size of the request body in bytes (the body itself is never recorded). */
  bytesOut: number;
  /** Size of the response body in bytes, as far as it was read. */
  bytesIn: number;
  /** HTTP status, or 0 when no response came (network error, CORS refusal, cancel). */
  status: number;
  /** Why no response came: "network error", "cancelled". */
  error?: string;
  ms: number;
  /** Tokens and cost of the call, as the LLM client counted them (chat calls that succeeded). */
  inputTokens?: number;
  outputTokens?: number;
  /** True when the server did not report usage and the tokens were estimated. */
  estimated?: boolean;
  cost?: number;
}

const LEDGER_DB_NAME = 'conceptrag-ledger';

class LedgerDb extends Dexie {
  entries!: Table<LedgerEntry, string>;

  constructor(name: string, deps?: StorageDeps) {
    super(name, deps);
    this.version(1).stores({ entries: 'id, at' });
  }
}

/** The ledger's entries in one database: the app's (default), or one over an injected IndexedDB (tests). */
export class LedgerStore {
  private readonly db: LedgerDb;

  constructor(name: string = LEDGER_DB_NAME, deps?: StorageDeps) {
    this.db = new LedgerDb(name, deps);
  }

  /** Adds an entry, or replaces the one with its id (the same request, now with its token usage). */
  async put(entry: LedgerEntry): Promise<void> {
    await this.db.entries.put(entry);
  }

  /** Every entry, oldest first. */
  async list(): Promise<LedgerEntry[]> {
    return this.db.entries.orderBy('at').toArray();
  }

  async clear(): Promise<void> {
    await this.db.entries.clear();
  }

  close(): void {
    this.db.close();
  }
}

let shared: LedgerStore | null = null;

/** This context's handle on the app's ledger database (one per worker or page). */
export function ledgerStore(): LedgerStore {
  shared ??= new LedgerStore();
  return shared;
}

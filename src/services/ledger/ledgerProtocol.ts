// Plain data types of the network ledger (src/services/ledger/ledger.ts): one entry per request the app made to an
// endpoint, as the workers record it and the Network view lists it. Types only (kept beside the ledger's store,
// which may not import services), for the page.

import type { LedgerEntry } from '../../store/ledgerStore.ts';

export type { LedgerEntry, LedgerPurpose } from '../../store/ledgerStore.ts';

/**
 * What the channel carries: a new or updated entry, or a worker's running count of requests to the app's own
 * origin (`source` names one worker instance).
 */
export type LedgerMessage =
  { kind: 'entry'; entry: LedgerEntry } | { kind: 'assets'; source: string; requests: number; bytes: number };

/** The BroadcastChannel the workers announce new and updated entries on. */
export const LEDGER_CHANNEL = 'conceptrag-network-ledger';

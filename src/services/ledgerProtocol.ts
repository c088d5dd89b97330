// Plain data types of the network ledger (src/services/ledger.ts): one entry per request the app made to an
// endpoint, as the workers record it and the Network view lists it. Types only (kept beside the ledger's store,
// which may not import services), for the page.

export type { LedgerEntry, LedgerPurpose } from '../store/ledgerStore.ts';

/** The BroadcastChannel the workers announce new and updated entries on. */
export const LEDGER_CHANNEL = 'conceptrag-network-ledger';

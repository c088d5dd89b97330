// The Network view's state: every request the app made to an endpoint (the network ledger the workers record,
// src/services/ledger/ledger.ts), read from the ledger's database and kept current from its BroadcastChannel, and the
// requests to the app's own origin counted apart. It starts listening when the app loads (App.svelte imports the
// view), not when the view opens, so nothing announced meanwhile is missed; entries are in IndexedDB anyway.
//
// Own-origin loads: the page's come from its resource timing (a PerformanceObserver, buffered, so the loads
// before this module ran count too: the HTML, scripts, styles, worker scripts, the samples); each worker reports
// its own the same way (reportOwnOriginLoads). The service worker is not asked: with it, a load it answers from
// its cache still shows in the resource timing of the page or worker that asked.
import Papa from 'papaparse';
import type { LedgerEntry, LedgerMessage } from '../../services/ledger/ledgerProtocol.ts';
import { LEDGER_CHANNEL } from '../../services/ledger/ledgerProtocol.ts';
import { ledgerStore } from '../../store/ledgerStore.ts';
import { messageOf } from '../../core/errors.ts';

class LedgerState {
  entries = $state<LedgerEntry[]>([]);
  /** Requests to the app's own origin this session: the page's, and each worker's running totals. */
  assets = $state<Record<string, { requests: number; bytes: number }>>({});
  loaded = $state(false);
  error = $state<string | null>(null);

  constructor() {
    if (typeof BroadcastChannel !== 'undefined') {
      new BroadcastChannel(LEDGER_CHANNEL).onmessage = (event: MessageEvent<LedgerMessage>) => {
        const m = event.data;
        if (m.kind === 'entry') this.upsert(m.entry);
        else this.assets = { ...this.assets, [m.source]: { requests: m.requests, bytes: m.bytes } };
      };
    }
    this.observePage();
    void this.load();
  }

  async load(): Promise<void> {
    try {
      const stored = await ledgerStore().list();
      // Entries announced while the database was read are kept (the newer version of each).
      // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a lookup for this merge, never state
      const byId = new Map(stored.map((e) => [e.id, e]));
      for (const e of this.entries) byId.set(e.id, e);
      this.entries = [...byId.values()].sort((a, b) => a.at.localeCompare(b.at));
      this.loaded = true;
    } catch (err) {
      this.error = messageOf(err);
    }
  }

  async clear(): Promise<void> {
    await ledgerStore().clear();
    this.entries = [];
  }

  private upsert(entry: LedgerEntry): void {
    const at = this.entries.findIndex((e) => e.id === entry.id);
    if (at >= 0) this.entries[at] = entry;
    else this.entries = [...this.entries, entry].sort((a, b) => a.at.localeCompare(b.at));
  }

  private observePage(): void {
    if (typeof PerformanceObserver === 'undefined') return;
    const origin = location.origin;
    const totals = { requests: 0, bytes: 0 };
    const count = (entries: PerformanceEntryList) => {
      for (const e of entries as PerformanceResourceTiming[]) {
        if (!e.name.startsWith(`${origin}/`)) continue;
        totals.requests++;
        totals.bytes += e.transferSize; // 0 for a file read from the HTTP cache
      }
      this.assets = { ...this.assets, page: { ...totals } };
    };
    // The page itself (its HTML) is a navigation entry, not a resource one.
    count(performance.getEntriesByType('navigation'));
    try {
      new PerformanceObserver((list) => count(list.getEntries())).observe({
        type: 'resource',
        buffered: true,
      });
    } catch {
      count(performance.getEntriesByType('resource'));
    }
  }
}

export const ledger = new LedgerState();

const LEDGER_COLUMNS = [
  'at',
  'method',
  'host',
  'path',
  'purpose',
  'source',
  'status',
  'error',
  'bytesOut',
  'bytesIn',
  'inputTokens',
  'outputTokens',
  'estimated',
  'cost',
  'ms',
] as const;

export function ledgerCsv(entries: LedgerEntry[]): string {
  // escapeFormulae: a cell that starts with = + - @ (a host name or a purpose can) is prefixed with ' so a
  // spreadsheet shows it as text instead of running it as a formula.
  return Papa.unparse(
    {
      fields: [...LEDGER_COLUMNS],
      data: entries.map((e) => LEDGER_COLUMNS.map((c) => e[c] ?? '')),
    },
    { escapeFormulae: true },
  );
}

// The LLM/KG components' only dependencies: plain async APIs (no Comlink types in the components), so tests may
// pass any object of these shapes. KgUiApi (endpoint settings, KG build) is backed by the KG worker; questions in
// every mode and the written answer go through the Ask state (src/ui/state/ask.svelte.ts) to the query worker.
import { proxy } from 'comlink';
import type { DistillParts, KgApi, KgBuildResult, KgEstimate, KgStatus } from '../../services/llm/kgBuild.ts';
import type { TraceEvent } from '../../core/llm/index.ts';
import { kgChanged, kgWorker } from '../workers.ts';

export type { DistillParts, KgBuildResult, KgEstimate, KgStatus, TraceEvent };

/** A service method as the page calls it: the same parameters, its result always a promise. */
type Async<F> = F extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;

/** The KG service's methods the panels use. */
type KgUiMethods =
  | 'getSettings'
  | 'saveSettings'
  | 'testConnection'
  | 'status'
  | 'estimate'
  | 'build'
  | 'cancelBuild'
  | 'useBundle';

/**
 * The KG worker's API as the panels use it, derived from the service (src/services/llm/kgBuild.ts), so the two
 * cannot drift: `getSettings` leaves the key out, `saveSettings` keeps a stored key for the same base URL only,
 * `estimate`/`build` take the parts (default: the KG), `useBundle` refuses building over a read-only bundle.
 */
export type KgUiApi = { [K in KgUiMethods]: Async<KgApi[K]> };

let api: KgUiApi | null = null;

/**
 * The KG build and LLM settings API over the KG worker: one per page (its worker created on first use), shared by
 * the panels the Settings view mounts and by the bundles opened read-only.
 */
export function kgApi(): KgUiApi {
  api ??= {
    getSettings: () => kgWorker().getSettings(),
    saveSettings: (s) => kgWorker().saveSettings(s),
    testConnection: (s) => kgWorker().testConnection(s, location.origin),
    status: () => kgWorker().status(),
    estimate: (kappa, parts) => kgWorker().estimate(kappa, parts),
    // A build, finished or stopped, has committed chunks: questions must see them.
    build: (request, onProgress) =>
      kgWorker()
        .build(request, onProgress && proxy(onProgress))
        .finally(kgChanged),
    cancelBuild: () => kgWorker().cancelBuild(),
    useBundle: () => kgWorker().useBundle(),
  };
  return api;
}

/** Formats a token count as 12,345. */
export function formatTokens(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/**
 * A cost in the currency the user set (its ISO 4217 code, shown as the code: "USD 0.0012", "EUR 3.40"), with
 * enough digits to be non-zero: two at 1 and above, else two significant ones.
 */
export function formatCost(cost: number, currency: string): string {
  const digits = cost >= 1 || cost <= 0 ? 2 : Math.min(8, 1 - Math.floor(Math.log10(cost)));
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    currencyDisplay: 'code',
    minimumFractionDigits: 2,
    maximumFractionDigits: Math.max(2, digits),
  }).format(cost);
}

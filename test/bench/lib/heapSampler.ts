// Peak JS heap of a page and its workers, sampled every second while a browser bench runs: the page's own heap from
// CDP (Performance.getMetrics JSHeapUsedSize) and, where the page is cross-origin isolated,
// performance.measureUserAgentSpecificMemory per realm (page, each worker script; lib/dropProbes.ts measureMemory).
// The same sampling as test/bench/drop.ts, as a module a bench can share; a sample lost to a crash or a navigation
// is skipped, so the peaks so far survive a tab that dies.
import type { CDPSession, Page } from 'playwright-core';
import { measureMemory } from './dropProbes.ts';

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface HeapPeaks {
  /** Peak JS bytes of page + workers in one sample (MiB), or null when measureUserAgentSpecificMemory gave none. */
  peakJsMB: number | null;
  /** Peak of the page's own heap (CDP JSHeapUsedSize, MiB). */
  peakPageMB: number;
  /** The realms of the sample with the peak JS total (MiB, largest first). */
  atPeak: { realm: string; MB: number; workers: number }[];
  /** Each realm's own peak over the run (MiB): realms peak at different times. */
  realmPeakMB: Record<string, number>;
  /** The last sample's per-realm MiB and when (seconds since the sampler started): what a crash cut short. */
  last: { s: number; MB: Record<string, number> } | null;
  samples: number;
  /** Wall seconds the sampler spent measuring (its share of the bench's own cost: with ForceEagerMeasureMemory each
   * measurement collects garbage in every realm). */
  busySeconds: number;
}

export interface HeapSampler {
  peaks(): HeapPeaks;
  stop(): Promise<void>;
}

const round1 = (bytes: number) => Number((bytes / MB).toFixed(1));

/** Starts sampling `page` (through `cdp`, a session on it) every `everyMs`. */
export function startHeapSampler(page: Page, cdp: CDPSession, everyMs = 1000): HeapSampler {
  let running = true;
  let peakJs = 0;
  let peakPage = 0;
  let atPeak: HeapPeaks['atPeak'] = [];
  let last: HeapPeaks['last'] = null;
  let samples = 0;
  let busyMs = 0;
  let uasm = true;
  const realmPeaks = new Map<string, number>();
  const started = Date.now();
  const loop = (async () => {
    while (running) {
      const t = Date.now();
      try {
        const { metrics } = await cdp.send('Performance.getMetrics');
        peakPage = Math.max(peakPage, metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0);
        if (uasm) {
          const m = await page.evaluate(measureMemory);
          if (!m) uasm = false;
          else {
            if (m.js > peakJs) {
              peakJs = m.js;
              atPeak = m.realms.map((r) => ({ realm: r.realm, MB: round1(r.bytes), workers: r.workers }));
            }
            for (const r of m.realms)
              realmPeaks.set(r.realm, Math.max(realmPeaks.get(r.realm) ?? 0, r.bytes));
            last = {
              s: Math.round((Date.now() - started) / 1000),
              MB: Object.fromEntries(m.realms.map((r) => [r.realm, round1(r.bytes)])),
            };
          }
        }
        samples += 1;
      } catch {
        // The page navigated, closed or crashed: the next sample (if any) counts.
      }
      busyMs += Date.now() - t;
      await sleep(Math.max(0, everyMs - (Date.now() - t)));
    }
  })();
  return {
    peaks: () => ({
      peakJsMB: uasm || peakJs > 0 ? round1(peakJs) : null,
      peakPageMB: round1(peakPage),
      atPeak,
      realmPeakMB: Object.fromEntries(
        [...realmPeaks].sort((a, b) => b[1] - a[1]).map(([realm, bytes]) => [realm, round1(bytes)]),
      ),
      last,
      samples,
      busySeconds: Number((busyMs / 1000).toFixed(1)),
    }),
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

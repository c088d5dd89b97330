// What the benches print beside their figures: the machine's load (the figures of a shared machine mean little
// without it), quantiles of a sample and megabytes.
import { loadavg } from 'node:os';

/** The 1, 5 and 15 minute load averages, as printed beside every figure. */
export function loadText(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
}

/** The q-quantile of a sample (nearest rank, from below); NaN for an empty sample. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

/** Bytes in megabytes (10^6), with the given decimals. */
export function megabytes(bytes: number, digits = 2): string {
  return (bytes / 1e6).toFixed(digits);
}

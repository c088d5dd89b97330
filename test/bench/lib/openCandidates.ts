// What the `open` benches (open-breakdown.ts, open-rows.ts, list-codings.ts) code candidate arrays with, to weigh
// them gzip'd alone: plain varints, and residuals over a least-squares slope as the writers' openCoding slopes are
// (src/core/paged/compactOpen.ts). One copy for the three benches.
import { zigzag } from '../../../src/core/paged/compactOpen.ts';

export { zigzag };

/** Each value as a LEB128 varint, one after another. */
export function varints(values: ArrayLike<number>): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) {
    let v = values[i];
    while (v >= 128) {
      out.push((v % 128) | 128);
      v = Math.floor(v / 128);
    }
    out.push(v);
  }
  return Uint8Array.from(out);
}

/** Least-squares slope through 0 of y over x, in 65,536ths (as the writers' openCoding slopes). */
export function slopeOf(x: ArrayLike<number>, y: ArrayLike<number>): number {
  let xy = 0;
  let xx = 0;
  for (let i = 0; i < x.length; i++) {
    xy += x[i] * y[i];
    xx += x[i] * x[i];
  }
  return xx > 0 ? Math.round((65536 * xy) / xx) : 0;
}

/** y less slope × x, zigzag'd: what a slope over x leaves of y. */
export function residualsOver(x: ArrayLike<number>, y: ArrayLike<number>, slope: number): number[] {
  return Array.from(y, (v, i) => zigzag(v - Math.floor((x[i] * slope) / 65536)));
}

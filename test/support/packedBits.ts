// Bytes worked out by hand for the bit codes' tests (postingsCoding.test.ts, rowsCoding.test.ts): a test writes the
// bits it expects one by one and compares the coder's bytes with them packed as the codes pack them.

/** Bits (least significant first) packed into bytes, the last one padded with 0. */
export function packed(bits: number[]): number[] {
  const out: number[] = [];
  bits.forEach((b, i) => {
    if (i % 8 === 0) out.push(0);
    out[out.length - 1] |= b << (i % 8);
  });
  return out;
}

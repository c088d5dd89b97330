// A small seeded generator (mulberry32): Louvain's visiting order in the themes, and the corpora the benches and
// tests draw, are the same on every run. A few lines, so no dependency for them (Math.random cannot be seeded).
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

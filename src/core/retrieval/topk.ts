// Top-k selection over a score array without sorting all of it: a bounded min-heap, ties broken by lower index
// so rankings are deterministic.

/**
 * Indexes (among `candidates`, or all of `scores` if omitted) of the k highest scores above `floor` (default 0:
 * positive scores only), best first.
 */
export function topK(
  scores: ArrayLike<number>,
  k: number,
  candidates?: ArrayLike<number>,
  floor = 0,
): number[] {
  const n = candidates ? candidates.length : scores.length;
  if (k <= 0 || n === 0) return [];
  const heap: number[] = [];
  // "worse" = lower score, or equal score and higher index.
  const worse = (a: number, b: number): boolean =>
    scores[a] < scores[b] || (scores[a] === scores[b] && a > b);
  const siftUp = (i: number): void => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!worse(heap[i], heap[p])) break;
      [heap[i], heap[p]] = [heap[p], heap[i]];
      i = p;
    }
  };
  const siftDown = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l], heap[m])) m = l;
      if (r < heap.length && worse(heap[r], heap[m])) m = r;
      if (m === i) break;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (let j = 0; j < n; j++) {
    const idx = candidates ? candidates[j] : j;
    if (!(scores[idx] > floor)) continue;
    if (heap.length < k) {
      heap.push(idx);
      siftUp(heap.length - 1);
    } else if (worse(heap[0], idx)) {
      heap[0] = idx;
      siftDown(0);
    }
  }
  return heap.sort((a, b) => scores[b] - scores[a] || a - b);
}

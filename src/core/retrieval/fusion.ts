// Reciprocal-rank fusion (Cormack et al. 2009): score = Σ 1 / (k + rank), rank counted from 1 in each list.
import type { Candidate } from './types.ts';

export function reciprocalRankFusion(
  lists: readonly (readonly Candidate[])[],
  k = 60,
  names?: string[],
): Candidate[] {
  const fused = new Map<number, Candidate & { parts: string[] }>();
  lists.forEach((list, li) => {
    list.forEach((c, i) => {
      const add = 1 / (k + i + 1);
      const part = `${names?.[li] ?? `list${li}`}#${i + 1}`;
      const prev = fused.get(c.chunk);
      if (prev) {
        prev.score += add;
        prev.parts.push(part);
        if (!prev.concepts && c.concepts) prev.concepts = c.concepts;
        if (prev.hop === undefined && c.hop !== undefined) prev.hop = c.hop;
      } else {
        fused.set(c.chunk, { chunk: c.chunk, score: add, concepts: c.concepts, hop: c.hop, parts: [part] });
      }
    });
  });
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.chunk - b.chunk)
    .map(({ parts, ...c }) => ({ ...c, via: parts.join(', ') }));
}

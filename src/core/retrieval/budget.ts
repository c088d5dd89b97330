// Fits a ranked context into a token budget: whole chunks, in rank order, stopping at the first chunk that does
// not fit (so a smaller budget always gives a prefix of a larger one).

export function cutToBudget<T extends { tokens: number }>(results: readonly T[], budgetTokens: number): T[] {
  if (!(budgetTokens >= 0)) throw new Error(`budget cut: budget must be ≥ 0 tokens, got ${budgetTokens}`);
  const out: T[] = [];
  let used = 0;
  for (const r of results) {
    if (used + r.tokens > budgetTokens) break;
    used += r.tokens;
    out.push(r);
  }
  return out;
}

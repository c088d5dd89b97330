// The question sets the byte benches ask: a JSONL file's questions, and n of them spread evenly over it (the same n
// questions in every bench, so that their figures compare question for question).
import { readFile } from 'node:fs/promises';
import type { PagedLibrary } from '../../../src/core/paged/library.ts';
import { firstPageWanted } from '../../../src/services/source/firstPage.ts';

/** Every line's `question` of a JSONL file, in order (blank lines skipped). */
export async function questionsOf(path: string): Promise<string[]> {
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => String((JSON.parse(l) as { question: unknown }).question));
}

/** n of the questions (all when fewer), the i-th at ⌊i · length / n⌋: spread over the set, not its first n. */
export function spread(questions: readonly string[], n: number): string[] {
  const m = Math.min(n, questions.length);
  return Array.from({ length: m }, (_, i) => questions[Math.floor((i * questions.length) / m)]);
}

/** The budget the byte benches ask with: `cli ask`'s and the Ask view's default. */
export const BENCH_BUDGET_TOKENS = 12_000;

/**
 * A question as the byte benches ask it: `ppr` (or `mode`) at BENCH_BUDGET_TOKENS, the Ask view's first page (only the
 * records its cards show: firstPageWanted) with `firstPage`, else `cli ask`'s whole budget.
 */
export function askAsBench(
  library: PagedLibrary,
  q: string,
  firstPage: boolean,
  mode: Parameters<PagedLibrary['search']>[1] = 'ppr',
): ReturnType<PagedLibrary['search']> {
  return firstPage
    ? library.search(
        q,
        mode,
        BENCH_BUDGET_TOKENS,
        undefined,
        undefined,
        firstPageWanted(q, (t) => library.terms(t)),
      )
    : library.search(q, mode, BENCH_BUDGET_TOKENS);
}

// Where the tests find the data that lives beside the repository, not in it (../shared: the benchmark sets and the
// seed papers), and the one message a test prints when it is absent. A clone without ../shared still passes: the
// tests that need it skip and say why, instead of failing on a missing file.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** ../shared next to the repository root (SHARED_DIR elsewhere). */
export const SHARED_DIR =
  process.env.SHARED_DIR ?? fileURLToPath(new URL('../../../shared', import.meta.url));

/** ../shared/bench (BENCH_DIR elsewhere, as the benches read it). */
export const BENCH_DIR = process.env.BENCH_DIR ?? `${SHARED_DIR}/bench`;

/** null when `path` exists; otherwise the reason to skip, naming the path and how to provide it. */
export function missingSharedData(path: string, what: string): string | null {
  if (existsSync(path)) return null;
  return `SKIPPING ${what}: ${path} is absent (the data beside the repository; SHARED_DIR or BENCH_DIR names another folder)`;
}

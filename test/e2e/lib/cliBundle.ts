// A lexical bundle made with this repository's CLI for a spec (no embedder: seconds, not minutes), with any extra
// `cli index` flags (`--pages`, `--stream`). A failed build fails the spec with the CLI's own message.
import { spawnSync } from 'node:child_process';

export function cliIndexBundle(input: string, out: string, flags: readonly string[] = []): void {
  const made = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'index', input, '--out', out, '--embedder', 'none', ...flags],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`cli index ${flags.join(' ')} failed: ${made.stderr}`);
}

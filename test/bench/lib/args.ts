// Command-line options of the benches: `--name value` pairs and the one positional input (a file or folder).
import { parseParamOverride } from '../../../src/core/retrieval/index.ts';

/** The value after `--name`, or `fallback` when the option is absent or has no value. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

/** The first argument that is neither an option nor an option's value. */
export function positional(): string | undefined {
  const args = process.argv.slice(2);
  return args.find((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
}

/**
 * Every `--param key=value` (repeatable): the query-time parameters a paged library is opened with (params.ts, e.g.
 * walkMaxDf=300), as `cli bench --param` asks the engine in memory.
 */
export function paramOverrides(): Record<string, unknown> {
  return Object.fromEntries(
    process.argv.flatMap((a, i, all) => (all[i - 1] === '--param' ? [parseParamOverride(a)] : [])),
  );
}

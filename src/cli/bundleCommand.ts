// The arguments every command over one bundle file reads alike (`info`, `themes`): `--json`, `--help`, exactly one
// bundle, and whole-number options checked before the bundle is read. A usage error is printed here, prefixed with
// the command's name, and the caller returns its exit code.
import process from 'node:process';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

const COMMON = {
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The command's options and its bundle's path; or the exit code once help or a usage error is printed. */
export function bundleCommandArgs<O extends ParseArgsOptionsConfig>(
  command: string,
  usage: string,
  args: string[],
  options: O,
) {
  const { values, positionals } = parseArgs<{
    args: string[];
    allowPositionals: true;
    options: typeof COMMON & O;
  }>({ args, allowPositionals: true, options: { ...COMMON, ...options } });
  // The parsed type of a generic options object is not resolved here: `help` is one of COMMON's.
  if ((values as { help?: boolean }).help) {
    process.stdout.write(usage);
    return 0;
  }
  if (positionals.length !== 1) {
    process.stderr.write(`${command}: expected one bundle file\n${usage}`);
    return 2;
  }
  return { values, path: positionals[0] };
}

/** A whole-number option of at least 1, or `fallback` when absent; null once its usage error is printed. */
export function wholeNumberOption(
  command: string,
  name: string,
  raw: string | undefined,
  fallback: number,
): number | null {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (Number.isInteger(n) && n >= 1) return n;
  process.stderr.write(`${command}: --${name} must be a whole number of at least 1, got "${raw}"\n`);
  return null;
}

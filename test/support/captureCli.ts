// Runs a CLI command in-process with its stdout and stderr captured instead of printed, restoring both whatever
// happens: the tests read the JSON it printed and show its stderr (progress, the reason it failed) on a failure.
import { vi } from 'vitest';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

export async function captureCli(command: () => Promise<number>): Promise<CliRun> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
  try {
    return { code: await command(), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

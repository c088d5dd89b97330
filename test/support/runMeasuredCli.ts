// Spawns test/support/measuredCli.ts: the CLI's exit code, output and peak resident memory, for the tests and
// benches that must bound what a hostile input makes the CLI allocate.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface MeasuredRun {
  code: number | null;
  out: string;
  err: string;
  peakRssMB: number;
  seconds: number;
  /** Seconds the command took after start-up (its modules loaded), as the process measured it. */
  workSeconds: number;
}

const SCRIPT = fileURLToPath(new URL('./measuredCli.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function runMeasuredCli(args: string[], timeoutMs = 120_000): Promise<MeasuredRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const match = /@@peak-rss-kb (\d+)\s*$/.exec(err);
      const work = /@@work-ms (\d+)\s*\n@@peak-rss-kb/.exec(err);
      resolve({
        code,
        out,
        err: err.replace(/\n?@@work-ms \d+\s*\n@@peak-rss-kb \d+\s*$/, ''),
        peakRssMB: match ? Number(match[1]) / 1024 : Number.NaN,
        seconds: (performance.now() - started) / 1000,
        workSeconds: work ? Number(work[1]) / 1000 : Number.NaN,
      });
    });
  });
}

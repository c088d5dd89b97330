// A child process run under GNU time (`/usr/bin/time -v`) with a time limit: its wall time, exit, and the peak
// resident memory the kernel recorded for it (ru_maxrss of the largest process waited for, reported even when the
// child dies of a signal, e.g. killed by the kernel's OOM killer or aborted by V8 at its heap limit). Used by the
// scale benches, whose children may run out of memory: that is a result to print, not a crash of the bench.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import process from 'node:process';

const TIME = '/usr/bin/time';

export interface ChildResult {
  /** Exit code, or null when a signal ended the child. */
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  wallSeconds: number;
  /** GNU time's "Maximum resident set size" in MiB, or null when it printed none. */
  peakRssMB: number | null;
  /** User + system CPU seconds GNU time reports: on a loaded machine, the work apart from the wait for a core. */
  cpuSeconds: number | null;
  stdout: string;
  /** The child's own stderr (GNU time's report removed), last 64 KiB. */
  stderrTail: string;
}

interface RunOptions {
  cwd: string;
  timeoutMs: number;
  /** Keep stdout (else dropped); at most this many bytes. */
  keepStdout?: number;
  /** Also copy the child's stderr to this file as it comes (long runs: progress to look at meanwhile). */
  stderrFile?: string;
  /** Called every `heartbeatMs` while the child runs (e.g. to print that it is still going). */
  onHeartbeat?: (seconds: number) => void;
  heartbeatMs?: number;
}

/** Runs `command args…` under `/usr/bin/time -v` in a process group of its own (the time limit ends all of it). */
export function runMeasured(command: string, args: string[], options: RunOptions): Promise<ChildResult> {
  const started = performance.now();
  const child = spawn(TIME, ['-v', command, ...args], {
    cwd: options.cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = options.keepStdout ?? 0;
  let stdout = '';
  let stderr = '';
  const log = options.stderrFile ? createWriteStream(options.stderrFile) : null;
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    if (stdout.length < keep) stdout += d.slice(0, keep - stdout.length);
  });
  child.stderr.on('data', (d: string) => {
    log?.write(d);
    stderr = (stderr + d).slice(-65536);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    // The group this bench started (negative pid): GNU time and the command under it.
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  }, options.timeoutMs);
  const beat = options.onHeartbeat
    ? setInterval(
        () => options.onHeartbeat?.((performance.now() - started) / 1000),
        options.heartbeatMs ?? 60_000,
      )
    : null;
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (beat) clearInterval(beat);
      log?.end();
      const report = stderr.lastIndexOf('\tCommand being timed:');
      const own = report >= 0 ? stderr.slice(0, report) : stderr;
      const timeReport = report >= 0 ? stderr.slice(report) : '';
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(timeReport);
      // GNU time exits with the command's code, or prints "Command terminated by signal N" and exits 128+N.
      const user = /User time \(seconds\): ([\d.]+)/.exec(timeReport);
      const system = /System time \(seconds\): ([\d.]+)/.exec(timeReport);
      const killedBy = /Command terminated by signal (\d+)/.exec(own + timeReport);
      resolve({
        code: killedBy ? null : code,
        signal: killedBy ? `signal ${killedBy[1]}` : signal,
        timedOut,
        wallSeconds: (performance.now() - started) / 1000,
        peakRssMB: rss ? Number(rss[1]) / 1024 : null,
        cpuSeconds: user && system ? Number(user[1]) + Number(system[1]) : null,
        stdout,
        stderrTail: own.replace(/\s*Command terminated by signal \d+\s*$/, ''),
      });
    });
  });
}

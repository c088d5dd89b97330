// Runs the CLI (src/cli/main.ts) with the given arguments and, as the process exits, prints on the last lines of
// stderr the milliseconds its command took after start-up ("@@work-ms <n>": the command's module graph is loaded
// first, so tsx's compiling is not counted) and its peak resident memory ("@@peak-rss-kb <n>"). A refusal that
// allocates inside one synchronous call (JSON.parse with a reviver) cannot be sampled from the same thread; the
// kernel's high-water mark can.
//   node --import tsx test/support/measuredCli.ts info x.bundle
import process from 'node:process';

/** The command modules main.ts loads, loaded here first: start-up (tsx compiling them) ends before the clock starts. */
const commandModules: Record<string, () => Promise<unknown>> = {
  ask: () => import('../../src/cli/ask.ts'),
  info: () => import('../../src/cli/info.ts'),
  upgrade: () => import('../../src/cli/upgrade.ts'),
};
await commandModules[process.argv[2]]?.();
const ready = performance.now();

process.on('exit', () => {
  process.stderr.write(
    `\n@@work-ms ${Math.round(performance.now() - ready)}\n@@peak-rss-kb ${process.resourceUsage().maxRSS}\n`,
  );
});
await import('../../src/cli/main.ts');

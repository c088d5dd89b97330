// Runs the CLI (src/cli/main.ts) with the given arguments and, as the process exits, prints its peak resident
// memory on the last line of stderr ("@@peak-rss-kb <n>"). A refusal that allocates inside one synchronous call
// (JSON.parse with a reviver) cannot be sampled from the same thread; the kernel's high-water mark can.
//   node --import tsx test/support/measuredCli.ts info x.bundle
import process from 'node:process';

process.on('exit', () => {
  process.stderr.write(`\n@@peak-rss-kb ${process.resourceUsage().maxRSS}\n`);
});
await import('../../src/cli/main.ts');

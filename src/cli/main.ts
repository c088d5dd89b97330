// ConceptRAG command line: the same src/core that runs in the browser, driven from Node.
// Each sub-command lives in its own module exporting `run(args): Promise<number>` (the exit code).
import process from 'node:process';
import { messageOf } from '../core/errors.ts';

type Command = { summary: string; load: () => Promise<{ run(args: string[]): Promise<number> }> };

const commands: Record<string, Command> = {
  index: {
    summary: 'index files or folders into a bundle (--out x.bundle [--into y.bundle])',
    load: () => import('./index.ts'),
  },
  'kg-cost': {
    summary: 'count the calls and tokens of a KG build per κ, no endpoint (--corpus, --kappa, --json)',
    load: () => import('./kgCost.ts'),
  },
  ask: {
    summary: 'ask a bundle a question, or many from one load (--mode, --budget, --questions, --json)',
    load: () => import('./ask.ts'),
  },
  info: { summary: 'validate a bundle and print its manifest', load: () => import('./info.ts') },
  themes: {
    summary: "print a bundle's themes: label, concepts, documents, passages (--json, --top N)",
    load: () => import('./themes.ts'),
  },
  upgrade: {
    summary:
      "rewrite a bundle's version 1–10 pages as version 11: a smaller open (no degree codes of one-chunk concepts, counts and group sizes as residuals), lists without shares or in the rows (coded by concept), 1 KiB blocks for a small library, 512 B for a large one with blocks of their own for its open, records and postings and blocks of whole rows (<in> --out <out>)",
    load: () => import('./upgrade.ts'),
  },
  bench: {
    summary: 'run a QA benchmark over every retrieval mode (--corpus, --questions)',
    load: () => import('./bench.ts'),
  },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `usage: npm run cli -- <command> [options]\n\ncommands:\n${lines.join('\n')}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    process.stdout.write(usage());
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`cli: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const mod = await command.load();
  return mod.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`cli: ${messageOf(err)}\n`);
    process.exit(1);
  },
);

// The reasoning modes over a bundle's pages read by ranges from a file (what a large library's stored pages and
// ?bundle= do in the tab, here in Node): for each question, `decompose` and `logical` run against the scripted
// OpenAI-compatible server on loopback (test/support: deterministic replies, no language model), and the bench
// prints what their searches read — bytes, rounds, the wait on reads — with the LLM calls and the wall time, beside
// the default mode's single search of the same question. The replies are scripted, so this measures the reading
// side of a reasoning run, not its answers (`cli bench-llm` measures answers against a real endpoint).
// With --http the bundle is served by the tests' static server on loopback (Range requests, several ranges a request,
// as a static host answers ?bundle=) and read as the query worker reads it (HttpRangeSource): each round of a
// sub-question's search is then a round trip, and the bench prints the requests beside the bytes.
// Usage: node --import tsx test/bench/paged-reasoning.ts <pages.bundle> --questions <qa.jsonl> [--count 10]
//        [--modes ppr,decompose,logical] [--budget 6000] [--rounds 3] [--http]
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { FileRangeSource } from '../../src/cli/fileRangeSource.ts';
import { openPagedBundle, type RangeSource } from '../../src/core/paged/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { HttpRangeSource } from '../../src/services/bundleBytes/rangeSources.ts';
import { askPaged } from '../support/askOver.ts';
import { parseQuestionMode, type QuestionMode } from '../../src/services/questions/modeRegistry.ts';
import { parseQaSet } from '../../src/services/questions/qaSet.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { scriptedClient } from '../support/scriptedClient.ts';
import { kagResponder } from '../support/scriptedKag.ts';
import { startScriptedLlmServer } from '../support/scriptedLlmServer.ts';
import { scriptedPike } from '../support/scriptedPike.ts';
import { loadText, megabytes, quantile } from './lib/report.ts';

const USAGE =
  'usage: node --import tsx test/bench/paged-reasoning.ts <pages.bundle> --questions <qa.jsonl> [--count 10] ' +
  '[--modes ppr,decompose,logical] [--budget 6000] [--rounds 3] [--http]';
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    questions: { type: 'string' },
    count: { type: 'string', default: '10' },
    modes: { type: 'string', default: 'ppr,decompose,logical' },
    budget: { type: 'string', default: '6000' },
    rounds: { type: 'string', default: '3' },
    http: { type: 'boolean', default: false },
  },
});
const count = Number(values.count);
const budget = Number(values.budget);
const rounds = Number(values.rounds);
if (positionals.length !== 1 || !values.questions || !(count >= 1) || !(budget >= 1) || !(rounds >= 1)) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
const modes = values.modes
  .split(',')
  .map((m) => parseQuestionMode(m, { allowDefault: true }).name as QuestionMode);
const bundle = positionals[0];
const load = loadText;
const mb = (bytes: number) => megabytes(bytes, 2);
const items = parseQaSet(values.questions, readFileSync(values.questions, 'utf8')).items.slice(0, count);

const server = await startScriptedLlmServer({ responders: [kagResponder(), scriptedPike()] });
const llm = scriptedClient(server);
// Over --http: the bundle's folder served with Range support (a symlink, so the file is not copied).
const served = values.http ? await mkdtemp(join(tmpdir(), 'conceptrag-paged-reasoning-')) : undefined;
if (served) await symlink(resolve(bundle), join(served, basename(bundle)));
const host = served ? await serveStatic(served, { ranges: true }) : undefined;
/** The bundle's source: a file, or its URL on the loopback host (requests counted). */
async function openSource(): Promise<
  RangeSource & { bytesRead: number; requests?: number; close?(): Promise<void> }
> {
  if (!host) return FileRangeSource.open(bundle);
  const source = await HttpRangeSource.open(`${host.origin}/${basename(bundle)}`);
  if (!source) throw new Error('paged-reasoning: the static server did not answer a Range request');
  return source;
}
process.stdout.write(
  `${bundle}${host ? ' over HTTP' : ''}, ${items.length} questions, budget ${budget}; load ${load()}\n`,
);
try {
  for (const mode of modes) {
    // A freshly opened bundle per mode: its first question pays for the blocks no question read yet.
    const source = await openSource();
    try {
      const paged = await openPagedBundle(source, createTermAnalyzer());
      if (!paged) throw new Error(`${bundle} has no pages to read by ranges`);
      const opening = source.bytesRead;
      const rows: Array<{
        ms: number;
        bytes: number;
        rounds: number;
        waitMs: number;
        calls: number;
        requests: number;
      }> = [];
      for (const item of items) {
        server.reset();
        const before = source.bytesRead;
        const requestsBefore = source.requests ?? 0;
        const t = performance.now();
        const result = await askPaged(
          paged.library,
          { question: item.question, mode, budget, reasoning: { maxRounds: rounds } },
          { llm: async () => llm },
        );
        rows.push({
          ms: performance.now() - t,
          bytes: source.bytesRead - before,
          rounds: result.reads.rounds,
          waitMs: result.reads.waitMs,
          calls: result.usage?.calls ?? 0,
          requests: (source.requests ?? 0) - requestsBefore,
        });
        const row = rows.at(-1)!;
        process.stdout.write(
          `  ${mode} q${rows.length}: ${row.ms.toFixed(0)} ms, ${mb(row.bytes)} MB in ${row.rounds} rounds ` +
            `(${row.waitMs.toFixed(0)} ms waiting${host ? `, ${row.requests} requests` : ''}), ${row.calls} LLM ` +
            `calls, ${result.evidence.length} passages\n`,
        );
      }
      const pick = (f: (r: (typeof rows)[number]) => number, q: number) => quantile(rows.map(f), q);
      const later = rows.slice(1);
      process.stdout.write(
        `${mode}: opening ${mb(opening)} MB (${((100 * opening) / source.size).toFixed(2)}%); first question ` +
          `${mb(rows[0].bytes)} MB (${((100 * rows[0].bytes) / source.size).toFixed(2)}%), ${rows[0].ms.toFixed(0)} ms; ` +
          (later.length
            ? `later p50 / max ${mb(
                quantile(
                  later.map((r) => r.bytes),
                  0.5,
                ),
              )} / ${mb(Math.max(...later.map((r) => r.bytes)))} MB, ` +
              `${quantile(
                later.map((r) => r.ms),
                0.5,
              ).toFixed(0)} ms p50; `
            : '') +
          `rounds p50 ${pick((r) => r.rounds, 0.5)}, wait p50 ${pick((r) => r.waitMs, 0.5).toFixed(0)} ms, ` +
          (host ? `requests p50 ${pick((r) => r.requests, 0.5)}, ` : '') +
          `LLM calls p50 ${pick((r) => r.calls, 0.5)}; load ${load()}\n`,
      );
    } finally {
      await source.close?.();
    }
  }
} finally {
  await server.close();
  await host?.close();
  if (served) await rm(served, { recursive: true, force: true });
}

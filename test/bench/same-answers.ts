// Records what a checkout answers, so that a refactoring of the ask path can show it changed no figure:
// `cli bench` JSON on the 2Wiki fixture in every mode the bench offers (sentence vectors from USE-lite, the LLM modes
// against the scripted server), and on the first --limit questions of each shared set in the lexical modes (embedding
// a shared corpus with USE-lite takes longer than a busy 2-core machine gives), and `cli ask` --json
// on one paged bundle, read by ranges and whole, in every mode. Times (indexSeconds, queryMs) are dropped, since
// they change from run to run; everything else is kept as printed.
//
//   node --import tsx test/bench/same-answers.ts record <checkout> <outDir> [--limit N] [--shared DIR]
//   node --import tsx test/bench/same-answers.ts compare <dirA> <dirB>
//
// `record` runs the CLI of <checkout> (its src/cli/main.ts, with this checkout's node_modules), against the
// scripted OpenAI-compatible server on loopback (the modes over the KG, the atomic layer and the reasoning modes
// need an endpoint). `compare` prints one line per output, identical or not, and exits 1 when any differs.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { startScriptedLlmServer } from '../support/scriptedLlmServer.ts';
import { scriptedPike } from '../support/scriptedPike.ts';
import { kagResponder } from '../support/scriptedKag.ts';

const HERE = resolve(import.meta.dirname, '../..');
/** Every mode `cli bench` and `cli ask` offer (the registry's, the default, and a fusion the registry does not name). */
const ALL_MODES = [
  'default',
  'ppr',
  'concept',
  'dense',
  'bm25',
  'rrf:ppr+bm25',
  'rrf:dense+bm25',
  'hybrid',
  'kg',
  'atomic',
  'decompose',
  'logical',
];
const LEXICAL_MODES = ['default', 'ppr', 'concept', 'bm25', 'rrf:ppr+bm25'];

function cli(checkout: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(checkout, 'src/cli/main.ts'), ...args], {
      cwd: HERE,
      env: { ...process.env, NODE_PATH: join(HERE, 'node_modules') },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, out, err }));
  });
}

/** The bench JSON without its times. */
function withoutTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimes);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'indexSeconds' && k !== 'queryMs')
        .map(([k, v]) => [k, withoutTimes(v)]),
    );
  }
  return value;
}

async function record(checkout: string, outDir: string, limit: number, shared: string): Promise<void> {
  await mkdir(outDir, { recursive: true });
  const server = await startScriptedLlmServer({ responders: [kagResponder(), scriptedPike()] });
  const llm = ['--llm-base-url', server.baseUrl, '--llm-model', 'scripted-model'];
  const cache = ['--cache', process.env.SAME_ANSWERS_CACHE ?? '/tmp/same-answers-embeddings'];
  const log = (s: string) => process.stderr.write(`same-answers: ${s}\n`);
  try {
    const bench = async (name: string, corpus: string, questions: string, extra: string[]) => {
      const json = join(outDir, `bench-${name}.raw.json`);
      // A record cut short goes on where it stopped: a set already benched is kept.
      if (
        await readFile(json).then(
          () => true,
          () => false,
        )
      )
        return log(`bench ${name} kept`);
      const r = await cli(checkout, [
        'bench',
        '--corpus',
        corpus,
        '--questions',
        questions,
        '--json',
        json,
        ...extra,
      ]);
      if (r.code !== 0) throw new Error(`bench ${name} exited ${r.code}: ${r.err.slice(-2000)}`);
      const parsed = JSON.parse(await readFile(json, 'utf8')) as unknown;
      await writeFile(
        join(outDir, `bench-${name}.json`),
        JSON.stringify(withoutTimes(parsed), null, 2) + '\n',
      );
      log(`bench ${name} done`);
    };
    const fixture = join(HERE, 'test/fixtures/2wiki-comparison-20');
    await bench('2wiki-fixture', join(fixture, 'corpus.jsonl'), join(fixture, 'questions.jsonl'), [
      '--modes',
      ALL_MODES.join(','),
      '--embedder',
      'use',
      ...cache,
      ...llm,
      '--kappa',
      '1',
    ]);
    await bench('vuedocs', join(shared, 'vuedocs/corpus.jsonl'), join(shared, 'vuedocs/questions.jsonl'), [
      '--modes',
      LEXICAL_MODES.join(','),
      '--embedder',
      'none',
      '--limit',
      String(limit),
    ]);
    for (const set of ['hotpotqa', '2wikimultihopqa', 'musique']) {
      await bench(set, join(shared, set, 'corpus.jsonl'), join(shared, set, 'questions.jsonl'), [
        '--modes',
        LEXICAL_MODES.join(','),
        '--embedder',
        'none',
        '--limit',
        String(limit),
      ]);
    }

    // One paged bundle (with the KG and the atomic layer), asked by ranges and whole, in every mode.
    const bundle = join(outDir, 'vuedocs.bundle');
    const built = await cli(checkout, [
      'index',
      join(HERE, 'test/fixtures/vuedocs/pages'),
      '--out',
      bundle,
      '--pages',
      '--embedder',
      'none',
      '--kg',
      '--atomic',
      ...llm,
    ]);
    if (built.code !== 0) throw new Error(`index exited ${built.code}: ${built.err.slice(-2000)}`);
    const bytes = await readFile(bundle);
    await writeFile(join(outDir, 'bundle.sha256'), createHash('sha256').update(bytes).digest('hex') + '\n');
    const questions = join(outDir, 'questions.txt');
    const vue = (await readFile(join(shared, 'vuedocs/questions.jsonl'), 'utf8')).split('\n').filter(Boolean);
    await writeFile(questions, vue.slice(0, 5).join('\n') + '\n');
    for (const whole of [false, true]) {
      for (const mode of ALL_MODES) {
        const r = await cli(checkout, [
          'ask',
          bundle,
          '--questions',
          questions,
          '--mode',
          mode,
          '--json',
          '--budget',
          '3000',
          ...(whole ? ['--whole'] : []),
          ...llm,
        ]);
        const name = `ask-${whole ? 'whole' : 'paged'}-${mode.replace(/[:+]/g, '_')}.txt`;
        await writeFile(
          join(outDir, name),
          `exit ${r.code}\n${r.out}\n--- stderr (last line)\n${lastLine(r.err)}\n`,
        );
      }
      log(`ask ${whole ? 'whole' : 'paged'} done`);
    }
  } finally {
    await server.close();
  }
}

/** The last line of stderr (a refusal or an error), without progress lines that carry times. */
function lastLine(err: string): string {
  const lines = err.split('\n').filter((l) => l.trim() && !/\d+(\.\d+)? ?(ms|s)\b/.test(l));
  return lines.at(-1) ?? '';
}

/**
 * An output as compared: a reasoning mode's trace events carry `at`, ms since the question began (a time), which is
 * dropped; everything else byte for byte. The bundle's SHA-256 is not compared: its manifest's `createdAt` differs
 * between two builds, and so do its compressed bytes; the answers over it are what is compared.
 */
function comparable(name: string, bytes: Buffer): string {
  const text = bytes.toString('utf8');
  if (!name.startsWith('ask-')) return text;
  return text
    .split('\n')
    .map((line) => {
      if (!line.startsWith('{')) return line;
      const parsed = JSON.parse(line) as { trace?: Array<Record<string, unknown>> };
      for (const event of parsed.trace ?? []) delete event.at;
      return JSON.stringify(parsed);
    })
    .join('\n');
}

async function compare(a: string, b: string): Promise<number> {
  const names = (await readdir(a))
    .filter((n) => !n.endsWith('.raw.json') && !n.endsWith('.bundle') && n !== 'bundle.sha256')
    .sort();
  let differ = 0;
  for (const name of names) {
    let same = false;
    try {
      same =
        comparable(name, await readFile(join(a, name))) === comparable(name, await readFile(join(b, name)));
    } catch {
      same = false;
    }
    if (!same) differ++;
    process.stdout.write(`${same ? 'identical' : 'DIFFERS  '} ${name}\n`);
  }
  process.stdout.write(`${names.length - differ} identical, ${differ} differ\n`);
  return differ ? 1 : 0;
}

const [verb, ...rest] = process.argv.slice(2);
const flag = (name: string, fallback: string): string => {
  const i = rest.indexOf(name);
  return i >= 0 ? rest[i + 1] : fallback;
};
if (verb === 'record' && rest.length >= 2) {
  await record(
    resolve(rest[0]),
    resolve(rest[1]),
    Number(flag('--limit', '50')),
    flag('--shared', join(HERE, '../shared/bench')),
  );
} else if (verb === 'compare' && rest.length === 2) {
  process.exitCode = await compare(resolve(rest[0]), resolve(rest[1]));
} else {
  process.stderr.write(
    'usage: same-answers.ts record <checkout> <outDir> [--limit N] [--shared DIR] | compare <a> <b>\n',
  );
  process.exitCode = 2;
}

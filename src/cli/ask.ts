// `npm run cli -- ask <x.bundle> "<question>" [--mode …] [--budget N] [--json]`: answers from a bundle with the
// same question-time functions as the browser's query service (src/services/query/queryService.ts: one engine, every mode,
// the same evidence), the same decoded vectors and the same records as the browser after opening that bundle,
// so both rank identically. Prints ranked evidence; with --json: {"context": [{chunkId, docTitle, path, text, score}]}.
// `--questions <file>` answers many questions from one load of the bundle (one library, one embedder).
import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { parseArgs } from 'node:util';
import type { IndexSnapshot } from '../core/bundle/index.ts';
import { answerQuestion } from '../core/answer/index.ts';
import type { AtomicIndex } from '../core/atomic/index.ts';
import type { KgIndex } from '../core/kg/index.ts';
import { LlmClient } from '../core/llm/index.ts';
import { DEFAULT_LLM_SETTINGS } from '../core/llm/index.ts';
import { DEFAULT_MODE } from '../core/retrieval/index.ts';
import type { Embedder } from '../core/types.ts';
import { snapshotToCorpus } from '../store/bundleImport.ts';
import { openLibrary, type QuestionLibrary } from '../services/library/questionLibrary.ts';
import { bundleAtomicIndex, bundleKgIndex } from '../services/library/readOnlyBundle.ts';
import {
  answers,
  ASK_MODES,
  DEFAULT_MODE_NAME,
  missing,
  parseQuestionMode,
  type ParsedMode,
} from '../services/questions/modeRegistry.ts';
import { ask, type AskOptions } from '../services/source/ask.ts';
import { openSource } from '../services/source/openSource.ts';
import type { LibrarySource } from '../services/source/librarySource.ts';
import type { AskResult, Evidence } from '../services/questions/queryProtocol.ts';
import type { TraceEvent } from '../core/llm/index.ts';
import { readBundleFile } from './bundleIo.ts';
import { FileRangeSource } from './fileRangeSource.ts';
import { openPagedBundle } from '../core/paged/index.ts';
import { createTermAnalyzer } from '../core/text/index.ts';
import { embedderIdOf, parseEmbedderSpec } from '../core/embed/index.ts';
import { builtInSpecFor, createEmbedderFromSpec, specTakesKey } from './embedders.ts';
import { EMBEDDINGS_KEY_ENV, keyInArgvMessage, LLM_KEY_ENV, readApiKey } from './keys.ts';
import { messageOf } from '../core/errors.ts';

const USAGE = `usage: npm run cli -- ask <x.bundle> "<question>" [options]
       npm run cli -- ask <x.bundle> --questions <file> [options]
  --mode <m>        default (the app's default, ${DEFAULT_MODE}), ${ASK_MODES.join(', ')}, rrf:<a>+<b>
                    (kg and hybrid need a KG, atomic the atomic layer; decompose and logical need
                    --llm-base-url, and with --json the output includes their trace)
  --questions <f>   many questions from one load of the bundle: one question per line, or JSONL with a
                    "question" field; with --json one line per question, with its "question"
  --budget <n>      context budget in cl100k tokens (default 12000)
  --top <n>         print at most n chunks (default: all that fit the budget)
  --embedder <spec> embedder for the question: use, hf:<folder or URL>, openai:<baseUrl>#<model>. Without it
                    only the built-in USE-lite is used; a bundle built with another embedder needs this flag
                    (a bundle names its embedder, but it never chooses a model URL or endpoint for you)
  --embed-key-file <f> the key of an openai: embedder (else env ${EMBEDDINGS_KEY_ENV})
  --whole           read the whole bundle even when it has a paged index (a bundle from cli index --pages answers
                    every mode but dense by reading only the blocks a question needs; a KG or
                    atomic questions it holds are read whole on the first question that needs them)
  --stats           print the bytes and rounds of reads each question took (a bundle with a paged index)
  --json            print {"answer"?: string, "context": [{"chunkId","docTitle","path","text","score"}]}
  --llm-base-url <u> an OpenAI-compatible endpoint: the context and question go there for a cited answer
  --llm-model <m>   the model for the answer
  --llm-key-file <f> a file holding the endpoint's API key (else env ${LLM_KEY_ENV}); keys are never
                    taken from the command line
`;

/** What `ask --json` prints of a piece of evidence. */
export type AskContextItem = Pick<Evidence, 'chunkId' | 'docTitle' | 'path' | 'text' | 'score'>;

export interface AskOutput {
  answer?: string;
  context: AskContextItem[];
  /** Reasoning modes (decompose, logical): every event of the run, the facts it established, its LLM calls. */
  trace?: TraceEvent[];
  facts?: string[];
  usage?: AskResult['usage'];
}

/** The bundle's embedder, checked, for the questions of one run (and a reasoning mode's sub-questions). */
interface QuestionEmbedder {
  embed(text: string): Promise<Float32Array>;
  dispose(): Promise<void>;
}

/**
 * Opens the embedder that built the bundle, refusing any other. The bundle's embedder id is compared with, never
 * followed: an id like `openai:https://elsewhere/v1#m` or `hf:https://elsewhere/model` would otherwise send the
 * question (and a key) to whatever host the file names, or run its model. Only the built-in USE-lite is loaded on
 * the bundle's word; anything else must be named by the user with --embedder. Undefined: the bundle has no vectors.
 */
async function questionEmbedder(
  snapshot: IndexSnapshot,
  spec: string | undefined,
  embedKeyFile: string | undefined,
): Promise<QuestionEmbedder | undefined> {
  if (!snapshot.embedder) return undefined;
  const bundleId = snapshot.embedder.id;
  const dimension = snapshot.embedder.dimension;
  const chosen = spec ?? builtInSpecFor(bundleId);
  if (chosen === null) {
    throw new Error(
      `ask: the bundle was built with the embedder ${bundleId}, which names a model or an endpoint; ask loads ` +
        `no model and calls no endpoint because a bundle says so. If you trust that source, name it yourself ` +
        `with --embedder <spec> (it must give the same id), or use --mode bm25 to answer without vectors`,
    );
  }
  const cannot = (error: unknown) =>
    new Error(
      `ask: cannot embed the question with ${chosen} ` +
        `(${messageOf(error)}); give --embedder <spec> or use --mode bm25`,
    );
  const other = (id: string) =>
    new Error(
      `ask: the bundle was built with ${bundleId} (dimension ${dimension}) but the question embedder is ${id}`,
    );
  // The spec names the id its embedder will report: a mismatch is refused before any model loads.
  let chosenId: string;
  try {
    chosenId = embedderIdOf(parseEmbedderSpec(chosen));
  } catch (error) {
    throw cannot(error);
  }
  if (chosenId !== bundleId) throw other(chosenId);
  const apiKey = specTakesKey(chosen)
    ? await readApiKey({ file: embedKeyFile, env: EMBEDDINGS_KEY_ENV })
    : undefined;
  const embedder: Embedder = await createEmbedderFromSpec(chosen, { apiKey }).catch((error: unknown) => {
    throw cannot(error);
  });
  // The id first, before a question goes anywhere; the dimension once known (an endpoint's is learned from its
  // first answer).
  if (embedder.id !== bundleId) {
    await embedder.dispose?.();
    throw other(embedder.id);
  }
  return {
    embed: async (text) => {
      const vector = await embedder.embed([text]);
      if (vector.length !== dimension) {
        throw new Error(
          `ask: the bundle was built with ${bundleId} of dimension ${dimension} ` +
            `but the question embedder gave ${vector.length} dimensions`,
        );
      }
      return vector;
    },
    dispose: async () => embedder.dispose?.(),
  };
}

/** A bundle opened for questions: its source, its question embedder (read whole, with vectors), what it read. */
interface OpenedBundle {
  source: LibrarySource;
  embedder?: QuestionEmbedder;
  /** Bytes read since the bundle was opened, of its size (read by ranges). */
  read?: () => string;
  close(): Promise<void>;
}

/**
 * Opens a bundle for the plan's questions: by ranges when it has pages whose source has what the mode needs (no
 * whole read, whatever its size), else read whole. A layer the bundle lacks is refused here, by ranges or whole.
 */
async function openBundle(plan: AskPlan): Promise<OpenedBundle> {
  if (!plan.whole) {
    const file = await FileRangeSource.open(plan.bundle);
    // A bundle older than version 3, or one without pages, is read whole, as before.
    const opened = await openPagedBundle(file, createTermAnalyzer()).catch(async (error: unknown) => {
      await file.close();
      throw error;
    });
    const source = opened && openSource({ bundle: opened });
    const close = () => file.close();
    if (opened && source && answers(source, plan.mode)) {
      // A KG or atomic questions with vectors are searched with the question's: pages are written for lexical
      // bundles only, but one that names an embedder is run whole, where the question is embedded.
      const layered = source.has.has('kg') || source.has.has('atomic');
      if (!(layered && opened.manifest.embedder && plan.mode.family !== 'retrieval')) {
        return { source, close, read: () => `${file.bytesRead} bytes of ${file.size}` };
      }
    } else if (source && plan.mode.needs.some((n) => (n === 'kg' || n === 'atomic') && !source.has.has(n))) {
      await close();
      throw new Error(`ask: ${missing(source, plan.mode)}`);
    }
    await close();
  }
  const snapshot = await readBundleFile(plan.bundle);
  // Lexical modes need no question vector: skip loading the model for them. One embedder and one library serve
  // every question of the run (and a reasoning mode's sub-questions).
  const embedder =
    plan.mode.name === 'bm25'
      ? undefined
      : await questionEmbedder(snapshot, plan.embedder, plan.embedKeyFile);
  return {
    source: snapshotSource(snapshot, openLibrary(snapshotToCorpus(snapshot))),
    ...(embedder ? { embedder } : {}),
    close: async () => embedder?.dispose(),
  };
}

/** A bundle read whole as a source: its library in memory, its KG and atomic questions built on first use. */
function snapshotSource(snapshot: IndexSnapshot, library: QuestionLibrary): LibrarySource {
  const hasKg = (snapshot.tables.kgEntities ?? []).length > 0;
  return openSource({
    library,
    name: 'this bundle',
    ...(hasKg ? { kg: () => Promise.resolve(snapshotKg(snapshot)) } : {}),
    // The atomic layer of a format-2 bundle that has one (atomic needs it; decompose searches chunks without).
    atomic: () => Promise.resolve(snapshotAtomic(snapshot)),
  });
}

/** Ranked context for a question, from an already read bundle (tests call this directly). */
export async function askSnapshot(
  snapshot: IndexSnapshot,
  question: string,
  options: {
    mode: string;
    budget: number;
    llm?: LlmClient;
    vector?: Float32Array;
    library?: QuestionLibrary;
  },
): Promise<Asked> {
  const source = snapshotSource(snapshot, options.library ?? openLibrary(snapshotToCorpus(snapshot)));
  const { llm } = options;
  return askOne(source, question, options.budget, {
    parsed: parseQuestionMode(options.mode, { allowDefault: true }),
    vector: options.vector,
    ...(llm ? { llm: () => Promise.resolve(llm) } : {}),
  });
}

/** One question's result, its evidence and what `ask` prints of it. */
interface Asked {
  result: AskResult;
  evidence: Evidence[];
  output: AskOutput;
}

async function askOne(
  source: LibrarySource,
  question: string,
  budget: number,
  options: AskOptions & { parsed: ParsedMode },
): Promise<Asked> {
  const result = await ask(source, { question, mode: options.parsed.name, budget }, options);
  const { evidence, trace, facts, usage } = result;
  return {
    result,
    evidence,
    output: {
      context: evidence.map((e) => ({
        chunkId: e.chunkId,
        docTitle: e.docTitle,
        path: e.path,
        ...(e.heading ? { heading: e.heading } : {}),
        text: e.text,
        score: e.score,
      })),
      ...(trace ? { trace } : {}),
      ...(facts ? { facts } : {}),
      ...(usage ? { usage } : {}),
    },
  };
}

// A bundle's KG and atomic indexes, built once per read bundle: `cli ask --whole --questions` asks many questions of
// one snapshot, and building MuSiQue's KG index took 2.6 s a question (kg-pages.md).
const kgOfSnapshot = new WeakMap<IndexSnapshot, KgIndex>();
const atomicOfSnapshot = new WeakMap<IndexSnapshot, AtomicIndex | null>();

function snapshotKg(snapshot: IndexSnapshot): KgIndex {
  let index = kgOfSnapshot.get(snapshot);
  if (!index) kgOfSnapshot.set(snapshot, (index = bundleKgIndex(snapshot.tables)));
  return index;
}

function snapshotAtomic(snapshot: IndexSnapshot): AtomicIndex | null {
  if (!atomicOfSnapshot.has(snapshot)) atomicOfSnapshot.set(snapshot, bundleAtomicIndex(snapshot.tables));
  return atomicOfSnapshot.get(snapshot) ?? null;
}

function snippet(e: Evidence): string {
  const best = e.bestSentences[0];
  // Best sentences are offsets into the document; the passage starts at chunkStart.
  const text = best ? e.text.slice(best.start - e.chunkStart, best.end - e.chunkStart) : e.text;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 220 ? `${flat.slice(0, 217)}…` : flat;
}

/**
 * Questions of a --questions file: JSONL with a "question" field on every line when its first line is an object,
 * else one question per line (blank lines skipped). An error names the file and the line.
 */
export function parseQuestions(text: string, file: string): string[] {
  const lines = text.split(/\r?\n/).map((line, i) => ({ line: line.trim(), n: i + 1 }));
  const filled = lines.filter((l) => l.line !== '');
  if (filled.length === 0) throw new Error(`ask: ${file} holds no question`);
  if (!filled[0].line.startsWith('{')) return filled.map((l) => l.line);
  return filled.map(({ line, n }) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      throw new Error(`ask: ${file} line ${n} is not JSON (${messageOf(error)})`);
    }
    const question = (parsed as { question?: unknown } | null)?.question;
    if (typeof question !== 'string' || question.trim() === '') {
      throw new Error(`ask: ${file} line ${n} has no "question" string`);
    }
    return question.trim();
  });
}

/** What `ask` was asked to do, every argument checked (no file read but the questions file). */
interface AskPlan {
  bundle: string;
  questions: string[];
  /** The mode, read once for every question of the run. */
  mode: ParsedMode;
  budget: number;
  top: number;
  json: boolean;
  /** Read the whole bundle even when it has pages (--whole), and print what each question read (--stats). */
  whole: boolean;
  stats: boolean;
  embedder?: string;
  embedKeyFile?: string;
  llmBaseUrl?: string;
  llmModel?: string;
  llmKeyFile?: string;
}

/**
 * Checks the command line before the bundle is read (a bundle of a large library takes tens of seconds and GBs to
 * open): an exit code and the message that says what is wrong, or the plan.
 */
export async function checkArgs(args: string[]): Promise<AskPlan | { code: number; message: string }> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        mode: { type: 'string', default: DEFAULT_MODE_NAME },
        budget: { type: 'string', default: '12000' },
        top: { type: 'string' },
        questions: { type: 'string' },
        embedder: { type: 'string' },
        'embed-key-file': { type: 'string' },
        json: { type: 'boolean', default: false },
        whole: { type: 'boolean', default: false },
        stats: { type: 'boolean', default: false },
        'llm-base-url': { type: 'string' },
        'llm-model': { type: 'string' },
        // Declared only to refuse it with a clear message (parseArgs would call it an unknown option).
        'llm-key': { type: 'string' },
        'llm-key-file': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return { code: 2, message: `ask: ${messageOf(error)}\n${USAGE}` };
  }
  const { values, positionals } = parsed;
  if (values.help) return { code: 0, message: USAGE };
  if (values['llm-key'] !== undefined) {
    return { code: 2, message: keyInArgvMessage('ask', '--llm-key', LLM_KEY_ENV, '--llm-key-file') };
  }
  let mode: ParsedMode;
  try {
    mode = parseQuestionMode(values.mode, { allowDefault: true });
  } catch (error) {
    return { code: 2, message: (error as Error).message };
  }
  const budget = Number(values.budget);
  if (!Number.isInteger(budget) || budget <= 0) {
    return { code: 2, message: `ask: --budget must be a positive integer, got ${values.budget}` };
  }
  const top = values.top === undefined ? Infinity : Number(values.top);
  if (!(top > 0)) return { code: 2, message: `ask: --top must be a positive integer, got ${values.top}` };
  if (mode.needsLlm && !values['llm-base-url']) {
    return { code: 2, message: `ask: mode ${mode.name} needs an LLM endpoint (--llm-base-url, --llm-model)` };
  }
  const file = values.questions;
  const wanted = file === undefined ? 2 : 1;
  if (positionals.length !== wanted || (file === undefined && positionals[1].trim() === '')) {
    const expected =
      file === undefined
        ? 'a bundle file and a question'
        : 'a bundle file (the questions are in --questions)';
    return { code: 2, message: `ask: expected ${expected}\n${USAGE}` };
  }
  let questions: string[];
  if (file === undefined) {
    questions = [positionals[1]];
  } else {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : String(error);
      return { code: 2, message: `ask: the questions file ${file} ${reason}` };
    }
    try {
      questions = parseQuestions(text, file);
    } catch (error) {
      return { code: 2, message: (error as Error).message };
    }
  }
  return {
    bundle: positionals[0],
    questions,
    mode,
    budget,
    top,
    json: values.json,
    whole: values.whole,
    stats: values.stats,
    embedder: values.embedder,
    embedKeyFile: values['embed-key-file'],
    llmBaseUrl: values['llm-base-url'],
    llmModel: values['llm-model'],
    llmKeyFile: values['llm-key-file'],
  };
}

export async function run(args: string[]): Promise<number> {
  const plan = await checkArgs(args);
  if ('code' in plan) {
    (plan.code === 0 ? process.stdout : process.stderr).write(
      plan.message.endsWith('\n') ? plan.message : `${plan.message}\n`,
    );
    return plan.code;
  }
  const { mode, budget, top, json } = plan;
  const bundle = await openBundle(plan);
  try {
    const client = await llmClientOf(plan);
    const { embedder } = bundle;
    const many = plan.questions.length > 1;
    for (const [i, question] of plan.questions.entries()) {
      if (many && !json) process.stdout.write(`${i > 0 ? '\n' : ''}question ${i + 1}: ${question}\n`);
      const asked = await askOne(bundle.source, question, budget, {
        parsed: mode,
        vector: embedder ? await embedder.embed(question) : undefined,
        ...(client ? { llm: () => Promise.resolve(client) } : {}),
        // A reasoning mode's sub-questions are embedded with the bundle's embedder (else searched by words).
        ...(embedder && mode.needsLlm ? { embed: embedder.embed } : {}),
        // Without --json the run's steps are shown as they happen.
        onTrace: json ? undefined : printTrace,
      });
      if (plan.stats && bundle.read) {
        const { result } = asked;
        const reads = result.reads ?? { bytes: 0, rounds: 0, waitMs: 0 };
        process.stderr.write(
          `ask: read ${reads.bytes} bytes in ${reads.rounds} rounds, ${result.milliseconds.toFixed(0)} ms ` +
            `(${reads.waitMs.toFixed(0)} ms waiting on reads) (${bundle.read()} since the bundle was opened)\n`,
        );
      }
      await printAnswer(question, asked, { top, json, many, client });
    }
  } finally {
    await bundle.close();
  }
  return 0;
}

/**
 * The client of --llm-base-url, with the key from --llm-key-file or the environment; undefined without it. Also
 * `cli themes --global`'s, so every command reaches an endpoint the same way.
 */
export async function llmClientOf(
  plan: Pick<AskPlan, 'llmBaseUrl' | 'llmModel' | 'llmKeyFile'>,
): Promise<LlmClient | undefined> {
  if (!plan.llmBaseUrl) return undefined;
  return new LlmClient({
    ...DEFAULT_LLM_SETTINGS,
    baseUrl: plan.llmBaseUrl,
    model: plan.llmModel ?? DEFAULT_LLM_SETTINGS.model,
    apiKey: await readApiKey({ file: plan.llmKeyFile, env: LLM_KEY_ENV }),
  });
}

/** A reasoning mode's step, shown on stderr as it happens (without --json). */
function printTrace(e: TraceEvent): void {
  process.stderr.write(`[${e.mode} ${e.round}] ${e.kind}: ${e.title}\n`);
}
/** Prints one question's evidence (and written answer): a JSON line with --json (with "question" when many). */
async function printAnswer(
  question: string,
  { evidence, output }: Asked,
  options: { top: number; json: boolean; many: boolean; client?: LlmClient },
): Promise<void> {
  const { json, client } = options;
  const shown = Math.min(evidence.length, options.top);
  if (client) {
    const context = evidence.slice(0, shown).map((h, i) => ({
      chunkId: h.chunkId,
      title: output.context[i].docTitle,
      heading: h.heading,
      text: h.text,
    }));
    const answer = await answerQuestion(client, question, context, {
      facts: output.facts,
      onDelta: json ? undefined : (d) => process.stderr.write(d),
    });
    if (!json) process.stderr.write('\n');
    output.answer = answer.text;
  }
  if (json) {
    const line = {
      ...(options.many ? { question } : {}),
      ...output,
      context: output.context.slice(0, shown),
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    return;
  }
  if (output.answer) process.stdout.write(`answer: ${output.answer}\n\n`);
  if (evidence.length === 0) {
    process.stdout.write('no evidence found\n');
    return;
  }
  const lines = evidence.slice(0, shown).map((h, i) => {
    // Document › heading › subheading where the source has headings, so a manual's passage says where it is.
    const path = output.context[i].path;
    const title = path.length > 1 ? path.join(' › ') : output.context[i].docTitle;
    const via = h.provenance.concepts?.length ? `  via ${h.provenance.concepts.slice(0, 4).join(', ')}` : '';
    return `${String(i + 1).padStart(3)}. ${h.score.toFixed(4)}  ${title} [${h.chunkId}]${via}\n     ${snippet(h)}`;
  });
  process.stdout.write(`${lines.join('\n')}\n`);
}

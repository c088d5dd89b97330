// `npm run cli -- ask <x.bundle> "<question>" [--mode …] [--budget N] [--json]`: answers from a bundle with the
// same question-time functions as the browser's query service (src/services/query.ts: one engine, every mode,
// the same evidence), the same decoded vectors and the same records as the browser after opening that bundle,
// so both rank identically. Prints ranked evidence; with --json: {"context": [{chunkId, docTitle, path, text, score}]}.
import process from 'node:process';
import { parseArgs } from 'node:util';
import type { IndexSnapshot } from '../core/bundle/index.ts';
import { answerQuestion } from '../core/answer/index.ts';
import { LlmClient } from '../core/llm/index.ts';
import { DEFAULT_LLM_SETTINGS } from '../core/llm/index.ts';
import { DEFAULT_MODE } from '../core/retrieval/index.ts';
import type { Embedder } from '../core/types.ts';
import { snapshotToCorpus } from '../store/bundleImport.ts';
import { askLibrary, bundleAtomicIndex, bundleKgIndex, openLibrary } from '../services/query.ts';
import { needsLlm, type AskResult, type Evidence, type QuestionMode } from '../services/queryProtocol.ts';
import type { TraceEvent } from '../core/llm/index.ts';
import { readBundleFile } from './bundleIo.ts';
import { embedderIdOf, parseEmbedderSpec } from '../core/embed/index.ts';
import { builtInSpecFor, createEmbedderFromSpec, specTakesKey } from './embedders.ts';
import { EMBEDDINGS_KEY_ENV, keyInArgvMessage, LLM_KEY_ENV, readApiKey } from './keys.ts';

const USAGE = `usage: npm run cli -- ask <x.bundle> "<question>" [options]
  --mode <m>        ppr (default), concept, dense, bm25, rrf:<a>+<b>, kg, hybrid (kg and hybrid need a KG),
                    atomic (needs the atomic layer), decompose, logical (these two need --llm-base-url;
                    with --json the output includes their trace)
  --budget <n>      context budget in cl100k tokens (default 12000)
  --top <n>         print at most n chunks (default: all that fit the budget)
  --embedder <spec> embedder for the question: use, hf:<folder or URL>, openai:<baseUrl>#<model>. Without it
                    only the built-in USE-lite is used; a bundle built with another embedder needs this flag
                    (a bundle names its embedder, but it never chooses a model URL or endpoint for you)
  --embed-key-file <f> the key of an openai: embedder (else env ${EMBEDDINGS_KEY_ENV})
  --json            print {"answer"?: string, "context": [{"chunkId","docTitle","path","text","score"}]}
  --llm-base-url <u> an OpenAI-compatible endpoint: the context and question go there for a cited answer
  --llm-model <m>   the model for the answer
  --llm-key-file <f> a file holding the endpoint's API key (else env ${LLM_KEY_ENV}); keys are never
                    taken from the command line
`;

export interface AskContextItem {
  chunkId: string;
  docTitle: string;
  /** Document › heading › subheading (just the title where the source has no headings). */
  path: string[];
  text: string;
  score: number;
}

export interface AskOutput {
  answer?: string;
  context: AskContextItem[];
  /** Reasoning modes (decompose, logical): every event of the run, the facts it established, its LLM calls. */
  trace?: TraceEvent[];
  facts?: string[];
  usage?: AskResult['usage'];
}

/**
 * Embeds the question with the embedder that built the bundle, refusing any other. The bundle's embedder id is
 * compared with, never followed: an id like `openai:https://elsewhere/v1#m` or `hf:https://elsewhere/model`
 * would otherwise send the question (and a key) to whatever host the file names, or run its model. Only the
 * built-in USE-lite is loaded on the bundle's word; anything else must be named by the user with --embedder.
 */
async function questionVector(
  snapshot: IndexSnapshot,
  question: string,
  spec: string | undefined,
  embedKeyFile: string | undefined,
  /** Keep the embedder for later texts (a reasoning mode's sub-questions); the caller disposes it. */
  keep?: (embed: (text: string) => Promise<Float32Array>, dispose: () => Promise<void>) => void,
): Promise<Float32Array | undefined> {
  if (!snapshot.embedder) return undefined;
  const bundleId = snapshot.embedder.id;
  const chosen = spec ?? builtInSpecFor(bundleId);
  if (chosen === null) {
    throw new Error(
      `ask: the bundle was built with the embedder ${bundleId}, which names a model or an endpoint; ask loads ` +
        `no model and calls no endpoint because a bundle says so. If you trust that source, name it yourself ` +
        `with --embedder <spec> (it must give the same id), or use --mode bm25 to answer without vectors`,
    );
  }
  // The spec names the id its embedder will report: a mismatch is refused before any model loads.
  let chosenId: string;
  try {
    chosenId = embedderIdOf(parseEmbedderSpec(chosen));
  } catch (error) {
    throw new Error(
      `ask: cannot embed the question with ${chosen} ` +
        `(${error instanceof Error ? error.message : String(error)}); give --embedder <spec> or use --mode bm25`,
    );
  }
  if (chosenId !== bundleId) {
    throw new Error(
      `ask: the bundle was built with ${bundleId} (dimension ${snapshot.embedder.dimension}) ` +
        `but the question embedder is ${chosenId}`,
    );
  }
  const apiKey = specTakesKey(chosen)
    ? await readApiKey({ file: embedKeyFile, env: EMBEDDINGS_KEY_ENV })
    : undefined;
  let embedder: Embedder | null = null;
  try {
    embedder = await createEmbedderFromSpec(chosen, { apiKey }).catch((error: unknown) => {
      throw new Error(
        `ask: cannot embed the question with ${chosen} ` +
          `(${error instanceof Error ? error.message : String(error)}); give --embedder <spec> or use --mode bm25`,
      );
    });
    // The id first, before the question goes anywhere; the dimension once known (an endpoint's is learned
    // from its first answer).
    if (embedder.id !== bundleId) {
      throw new Error(
        `ask: the bundle was built with ${bundleId} (dimension ${snapshot.embedder.dimension}) ` +
          `but the question embedder is ${embedder.id}`,
      );
    }
    const vector = await embedder.embed([question]);
    if (vector.length !== snapshot.embedder.dimension) {
      throw new Error(
        `ask: the bundle was built with ${bundleId} of dimension ${snapshot.embedder.dimension} ` +
          `but the question embedder gave ${vector.length} dimensions`,
      );
    }
    if (keep) {
      // Checked above: same id, same dimension. Sub-questions are embedded by the same model.
      const kept = embedder;
      keep(
        (text) => kept.embed([text]),
        async () => kept.dispose?.(),
      );
      embedder = null;
    }
    return vector;
  } finally {
    await embedder?.dispose?.();
  }
}

/** Ranked context for a question, from an already read bundle (tests call this directly). */
export async function askSnapshot(
  snapshot: IndexSnapshot,
  question: string,
  options: {
    mode: string;
    budget: number;
    vector?: Float32Array;
    /** The endpoint's client, for the reasoning modes. */
    llm?: LlmClient;
    /** Embeds a reasoning mode's sub-questions with the bundle's embedder (absent: they are searched by words). */
    embed?: (text: string) => Promise<Float32Array>;
    onTrace?: (event: TraceEvent) => void;
  },
): Promise<{ evidence: Evidence[]; output: AskOutput }> {
  const library = openLibrary(snapshotToCorpus(snapshot));
  const llm = options.llm;
  const { evidence, trace, facts, usage } = await askLibrary(
    library,
    // Any fusion the engine knows (rrf:dense+bm25) is accepted; askLibrary refuses an unknown mode by name.
    { question, mode: options.mode as QuestionMode, budget: options.budget },
    {
      vector: options.vector,
      // Asked for only by the modes that search the KG.
      kg: async () => {
        if ((snapshot.tables.kgEntities ?? []).length === 0) {
          throw new Error(
            `ask: mode ${options.mode} needs a KG in the bundle (build it in the app with an LLM endpoint, then export)`,
          );
        }
        return bundleKgIndex(snapshot.tables);
      },
      // The atomic layer of a format-2 bundle that has one (atomic needs it; decompose searches chunks without).
      atomic: () => Promise.resolve(bundleAtomicIndex(snapshot.tables)),
      ...(llm ? { llm: () => Promise.resolve(llm) } : {}),
      ...(options.embed ? { embed: options.embed } : {}),
      onTrace: options.onTrace,
    },
  );
  return {
    evidence,
    output: {
      context: evidence.map((e) => ({
        chunkId: e.chunkId,
        docTitle: e.docTitle,
        path: e.path,
        text: e.text,
        score: e.score,
      })),
      ...(trace ? { trace } : {}),
      ...(facts ? { facts } : {}),
      ...(usage ? { usage } : {}),
    },
  };
}

function snippet(e: Evidence): string {
  const best = e.bestSentences[0];
  // Best sentences are offsets into the document; the passage starts at chunkStart.
  const text = best ? e.text.slice(best.start - e.chunkStart, best.end - e.chunkStart) : e.text;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 220 ? `${flat.slice(0, 217)}…` : flat;
}

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      mode: { type: 'string', default: DEFAULT_MODE },
      budget: { type: 'string', default: '12000' },
      top: { type: 'string' },
      embedder: { type: 'string' },
      'embed-key-file': { type: 'string' },
      json: { type: 'boolean', default: false },
      'llm-base-url': { type: 'string' },
      'llm-model': { type: 'string' },
      // Declared only to refuse it with a clear message (parseArgs would call it an unknown option).
      'llm-key': { type: 'string' },
      'llm-key-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values['llm-key'] !== undefined) {
    process.stderr.write(`${keyInArgvMessage('ask', '--llm-key', LLM_KEY_ENV, '--llm-key-file')}\n`);
    return 2;
  }
  if (positionals.length !== 2 || positionals[1].trim() === '') {
    process.stderr.write(`ask: expected a bundle file and a question\n${USAGE}`);
    return 2;
  }
  const budget = Number(values.budget);
  if (!Number.isInteger(budget) || budget <= 0) {
    process.stderr.write(`ask: --budget must be a positive integer, got ${values.budget}\n`);
    return 2;
  }
  const top = values.top === undefined ? Infinity : Number(values.top);
  if (!(top > 0)) {
    process.stderr.write(`ask: --top must be a positive integer, got ${values.top}\n`);
    return 2;
  }
  const [path, question] = positionals;
  const snapshot = await readBundleFile(path);
  const mode = values.mode!;
  // Lexical modes need no question vector: skip loading the model for them.
  const lexicalOnly = mode === 'bm25';
  const baseUrl = values['llm-base-url'];
  if (needsLlm(mode) && !baseUrl) {
    process.stderr.write(`ask: mode ${mode} needs an LLM endpoint (--llm-base-url, --llm-model)\n`);
    return 2;
  }
  const client = baseUrl
    ? new LlmClient({
        ...DEFAULT_LLM_SETTINGS,
        baseUrl,
        model: values['llm-model'] ?? DEFAULT_LLM_SETTINGS.model,
        apiKey: await readApiKey({ file: values['llm-key-file'], env: LLM_KEY_ENV }),
      })
    : undefined;
  // A reasoning mode embeds its sub-questions too: the embedder is kept until the run ends.
  let subEmbedder:
    { embed: (text: string) => Promise<Float32Array>; dispose: () => Promise<void> } | undefined;
  const vector = lexicalOnly
    ? undefined
    : await questionVector(
        snapshot,
        question,
        values.embedder,
        values['embed-key-file'],
        needsLlm(mode) ? (embed, dispose) => (subEmbedder = { embed, dispose }) : undefined,
      );
  let asked: Awaited<ReturnType<typeof askSnapshot>>;
  try {
    asked = await askSnapshot(snapshot, question, {
      mode,
      budget,
      vector,
      llm: client,
      ...(subEmbedder ? { embed: subEmbedder.embed } : {}),
      // Without --json the run's steps are shown as they happen.
      onTrace: values.json
        ? undefined
        : (e) => process.stderr.write(`[${e.mode} ${e.round}] ${e.kind}: ${e.title}\n`),
    });
  } finally {
    await subEmbedder?.dispose();
  }
  const { evidence, output } = asked;
  const shown = Math.min(evidence.length, top);
  if (client) {
    const context = evidence.slice(0, shown).map((h, i) => ({
      chunkId: h.chunkId,
      title: output.context[i].docTitle,
      text: h.text,
    }));
    const answer = await answerQuestion(client, question, context, {
      facts: output.facts,
      onDelta: values.json ? undefined : (d) => process.stderr.write(d),
    });
    if (!values.json) process.stderr.write('\n');
    output.answer = answer.text;
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ...output, context: output.context.slice(0, shown) })}\n`);
    return 0;
  }
  if (output.answer) process.stdout.write(`answer: ${output.answer}\n\n`);
  if (evidence.length === 0) {
    process.stdout.write('no evidence found\n');
    return 0;
  }
  const lines = evidence.slice(0, shown).map((h, i) => {
    // Document › heading › subheading where the source has headings, so a manual's passage says where it is.
    const path = output.context[i].path;
    const title = path.length > 1 ? path.join(' › ') : output.context[i].docTitle;
    const via = h.provenance.concepts?.length ? `  via ${h.provenance.concepts.slice(0, 4).join(', ')}` : '';
    return `${String(i + 1).padStart(3)}. ${h.score.toFixed(4)}  ${title} [${h.chunkId}]${via}\n     ${snippet(h)}`;
  });
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

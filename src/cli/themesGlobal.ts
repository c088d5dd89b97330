// `cli themes <bundle> --global`: the Ask view's written answer over the themes (GraphRAG's global search, map over
// the themes within κ then one reduce) from the command line, so it is measurable against any endpoint with one
// command. The plan comes from the same service the view uses (services/source/globalThemesAnswer.ts) and is
// printed before any request, as the view shows it before the person confirms; the endpoint, its key and its
// errors are `cli ask`'s (llmClientOf, keys.ts: the key from a file or the environment, never from argv).
import process from 'node:process';
import { DEFAULT_KAPPA } from '../core/kg/index.ts';
import type { GlobalEstimate } from '../services/themes/themesProtocol.ts';
import type { LibrarySource } from '../services/source/librarySource.ts';
import { estimateOf, planOverSource, runPlanned } from '../services/source/globalThemesAnswer.ts';
import { llmClientOf } from './ask.ts';
import { keyInArgvMessage, LLM_KEY_ENV } from './keys.ts';

const GLOBAL_QUESTION = 'What is this library about?';

export interface GlobalOptions {
  question: string;
  kappa: number;
  json: boolean;
  llmBaseUrl?: string;
  llmModel?: string;
  llmKeyFile?: string;
}

/** The --global options checked before the bundle is read; a usage error's message otherwise. */
export function globalOptions(values: {
  json?: boolean;
  question?: string;
  kappa?: string;
  'llm-base-url'?: string;
  'llm-model'?: string;
  'llm-key-file'?: string;
  'llm-key'?: string;
}): GlobalOptions | string {
  if (values['llm-key'] !== undefined) {
    return keyInArgvMessage('themes', '--llm-key', LLM_KEY_ENV, '--llm-key-file');
  }
  const kappa = values.kappa === undefined ? DEFAULT_KAPPA : Number(values.kappa);
  if (!(kappa > 0 && kappa <= 1))
    return `themes: --kappa must be a fraction in (0, 1], got "${values.kappa}"`;
  const baseUrl = values['llm-base-url'];
  if (baseUrl !== undefined && !isHttpUrl(baseUrl)) {
    return `themes: --llm-base-url must be an http:// or https:// URL, got "${baseUrl}"`;
  }
  if (baseUrl !== undefined && !values['llm-model']?.trim()) {
    return 'themes: --llm-base-url needs --llm-model (the model that writes the answer)';
  }
  const question = values.question?.trim() || GLOBAL_QUESTION;
  return {
    question,
    kappa,
    json: values.json ?? false,
    ...(baseUrl !== undefined ? { llmBaseUrl: baseUrl } : {}),
    ...(values['llm-model'] !== undefined ? { llmModel: values['llm-model'] } : {}),
    ...(values['llm-key-file'] !== undefined ? { llmKeyFile: values['llm-key-file'] } : {}),
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Plans, prints the plan, then (with an endpoint) runs it and prints the answer, its citations and its spend. */
export async function globalAnswer(source: LibrarySource, options: GlobalOptions): Promise<number> {
  const planned = await planOverSource(source, options.question, { kappa: options.kappa });
  if (!planned || planned.plan.calls === 0) {
    process.stderr.write('themes: no global answer: the library has no themes with passages\n');
    return 1;
  }
  const estimate = estimateOf(planned);
  const texts = new Map(planned.plan.maps.flatMap((m) => m.passages.map((p) => [p.n, p.text] as const)));
  const passages = planned.passages.map((p) => ({ ...p, text: texts.get(p.n) ?? '' }));
  // The plan goes out before the first request, in both forms: a JSON reader sees the plan line first too.
  process.stdout.write(
    options.json ? `${JSON.stringify({ plan: estimate, passages })}\n` : planText(estimate),
  );
  const client = await llmClientOf(options);
  if (!client) {
    const why = 'nothing was sent: no endpoint (give --llm-base-url and --llm-model to run it)';
    process.stdout.write(options.json ? `${JSON.stringify({ sent: false, why })}\n` : `${why}\n`);
    return 0;
  }
  const answer = await runPlanned(planned, client);
  const spent = {
    calls: answer.calls,
    inputTokens: answer.inputTokens,
    outputTokens: answer.outputTokens,
    cost: answer.cost,
  };
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ sent: true, answer: answer.text, cited: answer.cited, spent })}\n`,
    );
    return 0;
  }
  const cited = answer.cited.flatMap((n) => {
    const p = passages.find((q) => q.n === n);
    return p ? [`  [${n}] ${p.docTitle} (theme: ${p.theme}): ${oneLine(p.text)}`] : [];
  });
  process.stdout.write(
    [
      `answer: ${answer.text}`,
      ...(cited.length > 0 ? ['citations:', ...cited] : ['citations: none']),
      `spent: ${spent.calls} calls, ${spent.inputTokens} tokens in, ${spent.outputTokens} out` +
        (spent.cost > 0 ? `, cost ${spent.cost.toFixed(4)}` : ''),
    ].join('\n') + '\n',
  );
  return 0;
}

/** The figures the Ask view shows before its button (GlobalAnswer.svelte), as one paragraph. */
function planText(e: GlobalEstimate): string {
  return (
    `global answer to "${e.question}"\n` +
    `plan: ${e.themes} of the library's ${e.of} themes (${(e.share * 100).toFixed(0)}% of the text, ` +
    `κ = ${e.kappa}), ${e.passages} passages: ${e.calls} calls (${e.themes} over the themes, then one to combine ` +
    `them), ${e.inputTokens} tokens in, at most ${e.outputTokens} out` +
    (e.cost > 0 ? `, at most ${e.cost.toFixed(4)}` : '') +
    '\n'
  );
}

/** A passage on one line of at most 160 characters (the global answer's citations, `themes`' passages). */
export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 160 ? `${flat.slice(0, 159)}…` : flat;
}

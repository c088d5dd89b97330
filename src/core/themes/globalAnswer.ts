// The written answer to a corpus-wide question with an endpoint: GraphRAG's global search over the library's themes
// instead of its LLM-written community reports. Map: each theme's representative passages → a partial answer that
// cites them; reduce: the partial answers → one answer that keeps their citations. Bounded by κ (DESIGN.md, the
// core-chunk share, default 0.8): only the largest themes that together hold κ of the themed text are mapped. The
// plan is made before any call, from the real prompts, so the page shows its calls and tokens and the person
// confirms; the run then sends exactly the planned map prompts.
import type { CallUsage, ChatMessage, LlmClient, StepUsage } from '../llm/index.ts';
import { addStepUsage, costOf, emptyStepUsage, estimateMessageTokens } from '../llm/index.ts';
import type { Theme } from './themes.ts';

/** Output caps: a partial answer is a few sentences, the final answer a short paragraph or list. */
export const MAP_MAX_TOKENS = 250;
export const REDUCE_MAX_TOKENS = 500;
/** What a map call replies when its passages say nothing towards the question: left out of the reduce. */
const NOTHING_RELEVANT = 'NOTHING';

/** One passage given to the model, numbered across the whole plan so that the final answer can cite it. */
interface GlobalPassage {
  n: number;
  chunkId: string;
  title: string;
  text: string;
}

interface GlobalMap {
  theme: Pick<Theme, 'label' | 'share'>;
  passages: GlobalPassage[];
  messages: ChatMessage[];
}

/** The run before it runs: what it will send and what it may cost. */
export interface GlobalPlan {
  question: string;
  kappa: number;
  /** Themes mapped, of the library's themes, and the share of the text they hold (0–1). */
  themes: number;
  of: number;
  share: number;
  maps: GlobalMap[];
  /** Map calls plus one reduce. */
  calls: number;
  /** The map prompts counted exactly; the reduce prompt at most (its partial answers at their cap). */
  inputTokens: number;
  /** At most: every call at its output cap. */
  outputTokens: number;
  /** At most, at the endpoint's prices. */
  cost: number;
}

export interface GlobalResult extends StepUsage {
  text: string;
  /** Numbers of the plan's passages the answer cites, in order of first citation. */
  cited: number[];
}

/** The largest themes that together hold κ of the themed text (at least one). */
export function themesWithin(themes: readonly Theme[], kappa: number): Theme[] {
  if (!(kappa > 0 && kappa <= 1)) throw new Error(`global answer: κ must be in (0, 1], got ${kappa}`);
  const total = themes.reduce((s, t) => s + t.share, 0);
  const chosen: Theme[] = [];
  let held = 0;
  for (const theme of themes) {
    if (chosen.length > 0 && held >= kappa * total - 1e-9) break;
    chosen.push(theme);
    held += theme.share;
  }
  return chosen;
}

const MAP_SYSTEM = `You are given numbered passages from one theme of a document library, and a question about the whole library.
- Say in two or three sentences what these passages contribute to the answer, citing each claim with its passage number in square brackets, e.g. [4] or [4][5].
- Use only the passages; no outside knowledge.
- If they contribute nothing, reply exactly: ${NOTHING_RELEVANT}`;

const REDUCE_SYSTEM = `You are given partial answers about the themes of a document library, largest theme first, and a question about the whole library.
- Combine them into one answer: first one sentence on what the library is about, then its main themes, most important first.
- Keep the passage numbers the partial answers cite, in square brackets, after each claim; cite nothing else.
- Use only the partial answers; no outside knowledge.`;

/** The map prompt of one theme: its label and its passages, numbered as in the plan. */
function mapMessages(question: string, theme: string, passages: readonly GlobalPassage[]): ChatMessage[] {
  const body = passages.map((p) => `[${p.n}] (${oneLine(p.title)})\n${p.text.trim()}`).join('\n\n');
  return [
    { role: 'system', content: MAP_SYSTEM },
    { role: 'user', content: `Theme: ${theme}\n\nPassages:\n${body}\n\nQuestion: ${oneLine(question)}` },
  ];
}

/** The reduce prompt: each theme's partial answer under its label and share of the text. */
function reduceMessages(
  question: string,
  partials: ReadonlyArray<{ theme: Pick<Theme, 'label' | 'share'>; text: string }>,
): ChatMessage[] {
  const body = partials
    .map(
      (p, i) =>
        `Theme ${i + 1}: ${p.theme.label} (${(p.theme.share * 100).toFixed(1)}% of the text)\n${p.text.trim()}`,
    )
    .join('\n\n');
  return [
    { role: 'system', content: REDUCE_SYSTEM },
    { role: 'user', content: `Partial answers:\n${body}\n\nQuestion: ${oneLine(question)}` },
  ];
}

/**
 * The plan of a global answer: the themes within κ, each with the passages `passage` gives for its ids (a passage it
 * cannot read is left out), and the calls and tokens that will cost.
 */
export function planGlobalAnswer(
  question: string,
  themes: readonly Theme[],
  passage: (chunkId: string) => { title: string; text: string } | undefined,
  options: { kappa: number; priceInPerM?: number; priceOutPerM?: number },
): GlobalPlan {
  const chosen = themesWithin(themes, options.kappa);
  let n = 0;
  const maps: GlobalMap[] = [];
  for (const theme of chosen) {
    const passages = theme.passages.flatMap((chunkId) => {
      const p = passage(chunkId);
      return p ? [{ n: ++n, chunkId, title: p.title, text: p.text }] : [];
    });
    if (passages.length === 0) continue;
    maps.push({ theme, passages, messages: mapMessages(question, theme.label, passages) });
  }
  const mapInput = maps.reduce((s, m) => s + estimateMessageTokens(m.messages), 0);
  // The reduce prompt with every partial answer empty, then each at its cap.
  const reduceInput =
    estimateMessageTokens(
      reduceMessages(
        question,
        maps.map((m) => ({ theme: m.theme, text: '' })),
      ),
    ) +
    maps.length * MAP_MAX_TOKENS;
  const calls = maps.length > 0 ? maps.length + 1 : 0;
  const inputTokens = maps.length > 0 ? mapInput + reduceInput : 0;
  const outputTokens = maps.length > 0 ? maps.length * MAP_MAX_TOKENS + REDUCE_MAX_TOKENS : 0;
  return {
    question,
    kappa: options.kappa,
    themes: maps.length,
    of: themes.length,
    share: maps.reduce((s, m) => s + m.theme.share, 0),
    maps,
    calls,
    inputTokens,
    outputTokens,
    cost: costOf(inputTokens, outputTokens, options.priceInPerM ?? 0, options.priceOutPerM ?? 0),
  };
}

/**
 * Runs a plan: its map calls (as many at once as the client allows), then one reduce over the partial answers that
 * said something, streamed through `onDelta`. Citations of numbers the plan does not hold are dropped from `cited`.
 */
export async function runGlobalAnswer(
  plan: GlobalPlan,
  client: LlmClient,
  options: { signal?: AbortSignal; onDelta?: (delta: string) => void } = {},
): Promise<GlobalResult> {
  const spent = emptyStepUsage();
  const add = ({ inputTokens, outputTokens, cost }: CallUsage) =>
    addStepUsage(spent, { calls: 1, inputTokens, outputTokens, cost });
  const replies = await Promise.all(
    plan.maps.map(async (m) => {
      const reply = await client.chat({
        messages: m.messages,
        maxTokens: MAP_MAX_TOKENS,
        temperature: 0,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      add(reply.usage);
      return { theme: m.theme, text: reply.text.trim() };
    }),
  );
  const partials = replies.filter((r) => r.text && r.text !== NOTHING_RELEVANT);
  if (partials.length === 0) {
    return { text: 'None of the themes’ passages says anything towards this question.', cited: [], ...spent };
  }
  const reply = await client.chat({
    messages: reduceMessages(plan.question, partials),
    maxTokens: REDUCE_MAX_TOKENS,
    temperature: 0,
    ...(options.onDelta ? { stream: true, onDelta: options.onDelta } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  add(reply.usage);
  const known = new Set(plan.maps.flatMap((m) => m.passages.map((p) => p.n)));
  const cited: number[] = [];
  for (const match of reply.text.matchAll(/\[(\d+)\]/g)) {
    const n = Number(match[1]);
    if (known.has(n) && !cited.includes(n)) cited.push(n);
  }
  return { text: reply.text.trim(), cited, ...spent };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

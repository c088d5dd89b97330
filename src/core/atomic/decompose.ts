// PIKE-RAG's knowledge-aware task decomposition (Algorithm 1): up to N rounds of (1) the model proposes atomic
// sub-queries from the question and the context so far, (2) each is searched against the knowledge base (atomic
// questions with similarity ≥ δ, or chunks where there is no atomic layer), (3) the model selects the most useful
// candidate, says none fits, or that the context is sufficient, (4) the selected chunk joins the context. The
// search and the chunk texts are injected, so the loop is the same over IndexedDB, a bundle or the bench, and
// every step is reported as a trace event as it happens.
import { runJsonStep, type Checked, type LlmClient, type StepUsage, type TraceEvent } from '../llm/index.ts';
import type { ChatMessage } from '../llm/index.ts';

/** Rounds at most (the paper's N). */
export const DEFAULT_MAX_ROUNDS = 5;
/** Sub-queries the model may propose per round. */
const MAX_PROPOSALS = 5;

export const PROPOSE_TAG = 'You plan the next retrieval step';
export const SELECT_TAG = 'You choose which retrieved question';

/** A candidate of a round: an atomic question (or, without the atomic layer, a chunk's best sentence) and its chunk. */
export interface DecomposeCandidate {
  /** What the model reads: the atomic question, or a sentence of the chunk. */
  text: string;
  chunkId: string;
  score: number;
  /** The proposal whose search found it. */
  proposal: string;
}

/** A chunk the run put into the context, and why. */
interface DecomposeStep {
  round: number;
  chunkId: string;
  /** The atomic question (or the sub-query, on the chunk path) that led to the chunk. */
  via: string;
  /** The candidate's similarity to its sub-query. */
  score: number;
  reason: string;
}

type DecomposeStop =
  'sufficient' | 'no-proposals' | 'no-candidates' | 'none-fits' | 'max-rounds' | 'budget' | 'step-failed';

export interface DecomposeResult {
  context: DecomposeStep[];
  stop: DecomposeStop;
  rounds: number;
  usage: StepUsage;
}

/** One event of the run (src/core/llm/trace.ts without the fields the query service adds). */
type DecomposeEvent = Omit<TraceEvent, 'mode' | 'at'> & { kind: 'propose' | 'search' | 'select' | 'stop' };

export interface DecomposeOptions {
  question: string;
  client: LlmClient;
  /** Candidates for one sub-query, best first, already limited to top K and δ; `exclude` = chunks in the context. */
  search(proposal: string, exclude: ReadonlySet<string>): Promise<DecomposeCandidate[]>;
  /** Text of a chunk for the prompts, and its size in tokens. */
  chunk(chunkId: string): { text: string; tokens: number } | undefined;
  /** Tokens the context may hold (the question's budget). */
  budget: number;
  maxRounds?: number;
  /** How the candidates were found, for the trace ("atomic questions, δ = 0.5" or "chunks by ppr"). */
  searchLabel: string;
  trace(event: DecomposeEvent): void;
  signal?: AbortSignal;
}

function contextBlock(chunks: ReadonlyArray<{ text: string }>): string {
  if (chunks.length === 0) return 'Context so far: (nothing yet)';
  return `Context so far:\n${chunks.map((c, i) => `[C${i + 1}] ${c.text.replace(/\s+/g, ' ').trim()}`).join('\n')}`;
}

function proposeMessages(question: string, context: ReadonlyArray<{ text: string }>): ChatMessage[] {
  return [
    {
      role: 'system',
      content: `${PROPOSE_TAG} for answering a question from a document collection.
Given the question and the context found so far, propose up to ${MAX_PROPOSALS} short atomic questions, each
asking for ONE missing fact that would help answer the question. Do not ask for what the context already says.
Write each one self-contained (name the people, works, places). If nothing is missing, return no proposals.
Return ONLY a JSON object of this exact shape, with no other text:
{"proposals": [string]}`,
    },
    { role: 'user', content: `Question: ${question}\n\n${contextBlock(context)}` },
  ];
}

function selectMessages(
  question: string,
  context: ReadonlyArray<{ text: string }>,
  candidates: ReadonlyArray<{ text: string }>,
): ChatMessage[] {
  return [
    {
      role: 'system',
      content: `${SELECT_TAG} leads to the most useful knowledge for answering a question.
Each candidate is a question that a stored passage answers. Pick the one whose passage most helps answer the
question given the context so far; answer null if none helps. Set "sufficient" to true when the context (with
your pick) is enough to answer the question.
Return ONLY a JSON object of this exact shape, with no other text:
{"choice": number | null, "sufficient": boolean, "reason": string}`,
    },
    {
      role: 'user',
      content:
        `Question: ${question}\n\n${contextBlock(context)}\n\nCandidates:\n` +
        candidates.map((c, i) => `[${i + 1}] ${c.text}`).join('\n'),
    },
  ];
}

function validateProposals(value: unknown): Checked<string[]> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, errors: ['the top level must be an object with a "proposals" array'] };
  }
  const list = (value as Record<string, unknown>).proposals;
  if (!Array.isArray(list)) return { ok: false, errors: ['"proposals" must be an array of strings'] };
  const errors: string[] = [];
  const out: string[] = [];
  list.forEach((p, i) => {
    if (typeof p !== 'string' || p.trim() === '') errors.push(`proposals[${i}] must be a non-empty string`);
    else if (!out.includes(p.trim())) out.push(p.trim());
  });
  return errors.length ? { ok: false, errors } : { ok: true, value: out.slice(0, MAX_PROPOSALS) };
}

interface Selection {
  /** 1-based candidate number, or null when none fits. */
  choice: number | null;
  sufficient: boolean;
  reason: string;
}

function validateSelection(value: unknown, candidates: number): Checked<Selection> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      errors: ['the top level must be an object with "choice", "sufficient" and "reason"'],
    };
  }
  const o = value as Record<string, unknown>;
  const errors: string[] = [];
  const choice = o.choice ?? null;
  if (
    choice !== null &&
    !(Number.isInteger(choice) && (choice as number) >= 1 && (choice as number) <= candidates)
  ) {
    errors.push(
      `"choice" must be a candidate number from 1 to ${candidates} or null (got ${JSON.stringify(choice)})`,
    );
  }
  if (typeof o.sufficient !== 'boolean') {
    errors.push(`"sufficient" must be true or false (got ${JSON.stringify(o.sufficient) ?? 'nothing'})`);
  }
  if (o.reason !== undefined && typeof o.reason !== 'string') errors.push('"reason" must be a string');
  if (errors.length) return { ok: false, errors };
  return {
    ok: true,
    value: {
      choice: choice as number | null,
      sufficient: o.sufficient as boolean,
      reason: (o.reason as string) ?? '',
    },
  };
}

/** Runs Algorithm 1 and returns the accumulated context (the chunks in the order they were selected). */
export async function runDecomposition(opts: DecomposeOptions): Promise<DecomposeResult> {
  const maxRounds = Math.max(1, Math.floor(opts.maxRounds ?? DEFAULT_MAX_ROUNDS));
  const usage: StepUsage = { calls: 0, inputTokens: 0, outputTokens: 0, cost: 0 };
  const context: DecomposeStep[] = [];
  const inContext = new Set<string>();
  let used = 0;
  const texts = () => context.map((s) => ({ text: opts.chunk(s.chunkId)?.text ?? '' }));
  const add = (u: StepUsage) => {
    usage.calls += u.calls;
    usage.inputTokens += u.inputTokens;
    usage.outputTokens += u.outputTokens;
    usage.cost += u.cost;
  };
  const stop = (round: number, why: DecomposeStop, title: string, detail?: string): DecomposeResult => {
    opts.trace({ round, kind: 'stop', title, ...(detail ? { detail } : {}) });
    return { context, stop: why, rounds: round, usage };
  };
  for (let round = 1; round <= maxRounds; round++) {
    opts.signal?.throwIfAborted();
    const proposed = await runJsonStep(
      opts.client,
      { name: 'propose', messages: proposeMessages(opts.question, texts()), validate: validateProposals },
      { signal: opts.signal },
    );
    add(proposed.usage);
    if (!proposed.ok) return stop(round, 'step-failed', 'Stopped: the proposal step failed', proposed.reason);
    opts.trace({
      round,
      kind: 'propose',
      title: `Proposed ${proposed.value.length} sub-question${proposed.value.length === 1 ? '' : 's'}`,
      items: proposed.value.map((p) => ({ label: p })),
      usage: proposed.usage,
    });
    if (proposed.value.length === 0) return stop(round, 'no-proposals', 'Stopped: nothing left to ask');
    // Every proposal's candidates, the best score kept for a question found twice.
    const byText = new Map<string, DecomposeCandidate>();
    for (const p of proposed.value) {
      for (const c of await opts.search(p, inContext)) {
        const key = `${c.chunkId}\u0000${c.text}`;
        const had = byText.get(key);
        if (!had || had.score < c.score) byText.set(key, c);
      }
    }
    const candidates = [...byText.values()].sort((a, b) => b.score - a.score);
    opts.trace({
      round,
      kind: 'search',
      title: `${candidates.length} candidate${candidates.length === 1 ? '' : 's'} (${opts.searchLabel})`,
      items: candidates.map((c, i) => ({
        label: `[${i + 1}] ${c.text}`,
        text: `for: ${c.proposal}`,
        chunkId: c.chunkId,
        score: c.score,
      })),
    });
    if (candidates.length === 0) {
      return stop(round, 'no-candidates', `Stopped: no candidate passes the search (${opts.searchLabel})`);
    }
    opts.signal?.throwIfAborted();
    const selected = await runJsonStep(
      opts.client,
      {
        name: 'select',
        messages: selectMessages(opts.question, texts(), candidates),
        validate: (v) => validateSelection(v, candidates.length),
      },
      { signal: opts.signal },
    );
    add(selected.usage);
    if (!selected.ok)
      return stop(round, 'step-failed', 'Stopped: the selection step failed', selected.reason);
    const { choice, sufficient, reason } = selected.value;
    const picked = choice === null ? undefined : candidates[choice - 1];
    opts.trace({
      round,
      kind: 'select',
      title: picked
        ? `Picked [${choice}]${sufficient ? '; the context is sufficient' : ''}`
        : sufficient
          ? 'No pick: the context is sufficient'
          : 'No pick: none of the candidates fits',
      ...(reason ? { detail: reason } : {}),
      items: picked ? [{ label: `[${choice}] ${picked.text}`, chunkId: picked.chunkId, chosen: true }] : [],
      usage: selected.usage,
    });
    if (picked) {
      const tokens = opts.chunk(picked.chunkId)?.tokens ?? 0;
      if (used + tokens > opts.budget) {
        return stop(round, 'budget', `Stopped: the chunk of [${choice}] does not fit the budget`);
      }
      used += tokens;
      inContext.add(picked.chunkId);
      context.push({ round, chunkId: picked.chunkId, via: picked.text, score: picked.score, reason });
    }
    if (sufficient) return stop(round, 'sufficient', 'Stopped: the context is sufficient');
    if (!picked) return stop(round, 'none-fits', 'Stopped: no candidate fits');
  }
  return stop(maxRounds, 'max-rounds', `Stopped: ${maxRounds} rounds done`);
}

// The trace of a reasoning mode (PIKE-RAG decomposition, KAG logical forms): one event per thing the person should
// see happen — a proposal, a search and its candidates, the model's pick and why, a plan, a step's bindings, a
// reflection — streamed to the Ask view as it happens and kept in the result (the CLI's `--json`). Plain data, so
// it crosses a worker boundary and serializes as it is. The Ask view renders every mode's events the same way.

/** One line of an event's list: a candidate, a binding, a piece of evidence. */
interface TraceItem {
  label: string;
  text?: string;
  /** The chunk this item points at (the Ask view opens it). */
  chunkId?: string;
  score?: number;
  /** This item was chosen (the pick of a round, a bound value). */
  chosen?: boolean;
}

export interface TraceEvent {
  /** The mode that emitted it (`decompose`, `logical`…). */
  mode: string;
  /** Round of the method, from 1. */
  round: number;
  /** What happened: `propose`, `search`, `select`, `plan`, `step`, `reflect`, `answer`, `stop`… */
  kind: string;
  /** One line for the person: "Proposed 3 sub-questions", "Picked [2]: no candidate passes δ = 0.5". */
  title: string;
  /** Longer text: the model's reason, a step's logical form, a failure. */
  detail?: string;
  items?: TraceItem[];
  /** The LLM call behind this event, if any (tokens and cost per call). */
  usage?: { calls: number; inputTokens: number; outputTokens: number; cost: number };
  /** Milliseconds since the question started. */
  at?: number;
}

// KAG's solver loop (the paper's Algorithm 1): plan the current question as logical forms, execute them, and when
// the plan answered the question from structured knowledge alone (every step from the KG or in code, every output
// bound) return that; otherwise put the round's answers and evidence into a global memory and let the model judge
// whether the memory answers the question. If not, its follow-up questions are planned and executed in the next
// round, for at most R rounds. Every plan, step and reflection is a trace event, streamed as it happens.
import {
  addStepUsage,
  emptyStepUsage,
  runJsonStep,
  type LlmClient,
  type StepUsage,
  type TraceEvent,
} from '../llm/index.ts';
import {
  executePlan,
  type Evidence,
  type Execution,
  type ExecutorDeps,
  type StepRecord,
} from './executor.ts';
import { planMessages, reflectMessages } from './prompts.ts';
import { renderStep, validatePlan, type Plan } from './schema.ts';
import { show } from './values.ts';

export const SOLVER_DEFAULTS = { maxRounds: 3 };

export type SolverTrace = Omit<TraceEvent, 'mode' | 'at'>;

/** What the executor needs, but the question: solve's own argument is the question every round's steps serve. */
export interface SolveOptions extends Omit<ExecutorDeps, 'onStep' | 'llm' | 'question'> {
  llm: LlmClient;
  maxRounds?: number;
  trace?(event: SolverTrace): void;
}

interface RoundMemory {
  round: number;
  /** The question(s) this round planned. */
  questions: string[];
  plan: Plan;
  execution: Execution;
}

export interface Solution {
  /** The model's or the plan's answer; undefined when not solved within R rounds. */
  answer?: string;
  solved: boolean;
  /** Why the loop stopped: "exact", "solved", "max-rounds", "plan-failed", "reflect-failed". */
  stop: string;
  reason?: string;
  rounds: RoundMemory[];
  /** Statements established by the run (computed values, answers of sub-questions), for the written answer. */
  facts: string[];
  /** Evidence in order of use: the triples' chunks and the passages read. */
  evidence: Evidence[];
  usage: StepUsage;
}

/** Thrown when the question cannot be planned at all (round 1): the reason names the step and the field. */
class PlanError extends Error {}

function itemsOf(record: StepRecord): NonNullable<SolverTrace['items']> {
  const items: NonNullable<SolverTrace['items']> = Object.entries(record.bindings).map(([name, values]) => ({
    label: name,
    text: values.length ? values.join('; ') : '(nothing)',
    chosen: true,
  }));
  for (const e of record.evidence.slice(0, 8)) {
    if (e.kind === 'triple')
      items.push({ label: 'triple', text: `(${e.s}, ${e.p}, ${e.o})`, chunkId: e.chunkIds[0] });
    else items.push({ label: 'passage', text: e.text.slice(0, 200), chunkId: e.chunkId });
  }
  return items;
}

/** The memory as the reflection and the next plan read it. */
function memoryText(rounds: readonly RoundMemory[]): string {
  const lines: string[] = [];
  for (const r of rounds) {
    lines.push(`Round ${r.round}: ${r.questions.join(' / ')}`);
    for (const s of r.execution.steps) {
      const bound = Object.entries(s.bindings)
        .map(([k, v]) => `${k} = ${v.length ? v.join('; ') : '(nothing)'}`)
        .join(', ');
      lines.push(`  ${s.form} → ${bound || '(no binding)'}${s.error ? ` [${s.error}]` : ''}`);
      for (const e of s.evidence.slice(0, 4)) {
        lines.push(
          e.kind === 'triple' ? `    fact (${e.s}, ${e.p}, ${e.o})` : `    passage "${e.text.slice(0, 300)}"`,
        );
      }
    }
  }
  return lines.join('\n').slice(0, 12000);
}

function factsOf(rounds: readonly RoundMemory[]): string[] {
  const facts: string[] = [];
  for (const r of rounds) {
    for (const s of r.execution.steps) {
      if (s.step.step === 'math' || s.step.step === 'sort' || s.step.step === 'deduce') {
        const values = s.bindings[s.step.as] ?? [];
        if (values.length) facts.push(`${s.form} = ${values.join('; ')} (computed)`);
      }
      if (s.step.step === 'retrieval') {
        for (const e of s.evidence) if (e.kind === 'triple') facts.push(`${e.s} — ${e.p}: ${e.o}`);
      }
    }
    for (const o of r.execution.outputs) {
      if (o.values.length) facts.push(`${r.questions.join(' / ')} → ${o.values.map(show).join('; ')}`);
    }
  }
  return [...new Set(facts)].slice(0, 40);
}

export async function solve(question: string, options: SolveOptions): Promise<Solution> {
  const maxRounds = Math.max(1, options.maxRounds ?? SOLVER_DEFAULTS.maxRounds);
  const trace = options.trace ?? (() => {});
  const usage = emptyStepUsage();
  const rounds: RoundMemory[] = [];
  let followUps: string[] = [];
  const finish = (s: Omit<Solution, 'rounds' | 'facts' | 'evidence' | 'usage'>): Solution => {
    const facts = factsOf(rounds);
    if (s.answer) facts.unshift(`Answer established by the logical-form solver: ${s.answer}`);
    const evidence = rounds.flatMap((r) => r.execution.evidence);
    return { ...s, rounds, facts, evidence, usage };
  };
  for (let round = 1; round <= maxRounds; round++) {
    options.signal?.throwIfAborted();
    const memory = memoryText(rounds);
    const planned = await runJsonStep(
      options.llm,
      {
        name: 'plan',
        messages: planMessages(question, followUps, memory),
        validate: (value) => validatePlan(value),
        maxTokens: 1500,
      },
      { signal: options.signal },
    );
    addStepUsage(usage, planned.usage);
    if (!planned.ok) {
      trace({
        round,
        kind: 'plan',
        title: 'The plan could not be read',
        detail: planned.reason,
        usage: planned.usage,
      });
      if (round === 1) throw new PlanError(`logical: ${planned.reason}`);
      return finish({ solved: false, stop: 'plan-failed', reason: planned.reason });
    }
    const plan = planned.value;
    trace({
      round,
      kind: 'plan',
      title: `Plan${followUps.length ? ' for the follow-up questions' : ''}: ${plan.steps.length} steps`,
      detail: plan.steps.map((s, i) => `${i + 1}. ${renderStep(s)}`).join('\n'),
      items: (followUps.length ? followUps : [question]).map((q) => ({ label: 'question', text: q })),
      usage: planned.usage,
    });
    const execution = await executePlan(plan, {
      ...options,
      question,
      onStep: (record) =>
        trace({
          round,
          kind: 'step',
          title: `Step ${record.index + 1} (${record.step.step}, ${record.via})${record.error ? `: ${record.error}` : ''}`,
          detail: record.form,
          items: itemsOf(record),
          usage: record.usage.calls ? record.usage : undefined,
        }),
    });
    addStepUsage(usage, execution.usage);
    rounds.push({ round, questions: followUps.length ? followUps : [question], plan, execution });
    const outputs = execution.outputs.map((o) => o.values.map(show).join('; ')).filter(Boolean);
    if (execution.exact && round === 1) {
      const answer = outputs.join('; ');
      trace({
        round,
        kind: 'answer',
        title: `Answered from the KG and code alone: ${answer}`,
        detail: 'Every step ran over the knowledge graph or in code, so no reflection was needed.',
      });
      return finish({ answer, solved: true, stop: 'exact' });
    }
    const reflected = await runJsonStep(
      options.llm,
      {
        name: 'reflect',
        messages: reflectMessages(question, memoryText(rounds), round, maxRounds),
        validate: (value) => {
          const o = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
          const errors: string[] = [];
          if (typeof o.solved !== 'boolean') errors.push('"solved" must be true or false');
          const list = Array.isArray(o.followUps) ? o.followUps : [];
          if (o.followUps !== undefined && !Array.isArray(o.followUps))
            errors.push('"followUps" must be an array');
          const questions = list
            .filter((q): q is string => typeof q === 'string' && q.trim() !== '')
            .map((q) => q.trim());
          if (o.solved === true && (typeof o.answer !== 'string' || !o.answer.trim())) {
            errors.push('"answer" must be the short answer when solved');
          }
          if (o.solved === false && questions.length === 0)
            errors.push('"followUps" must list 1 to 3 questions when not solved');
          return errors.length
            ? { ok: false, errors }
            : {
                ok: true,
                value: {
                  solved: o.solved as boolean,
                  answer: String(o.answer ?? '').trim(),
                  followUps: questions.slice(0, 3),
                },
              };
        },
        maxTokens: 400,
      },
      { signal: options.signal },
    );
    addStepUsage(usage, reflected.usage);
    if (!reflected.ok) {
      trace({
        round,
        kind: 'reflect',
        title: 'The reflection could not be read',
        detail: reflected.reason,
        usage: reflected.usage,
      });
      return finish({
        answer: outputs.join('; ') || undefined,
        solved: false,
        stop: 'reflect-failed',
        reason: reflected.reason,
      });
    }
    const r = reflected.value;
    trace({
      round,
      kind: 'reflect',
      title: r.solved ? `Solved: ${r.answer}` : `Not solved yet: ${r.followUps.length} follow-up question(s)`,
      items: r.followUps.map((q) => ({ label: 'follow-up', text: q })),
      usage: reflected.usage,
    });
    if (r.solved) return finish({ answer: r.answer, solved: true, stop: 'solved' });
    followUps = r.followUps;
  }
  trace({ round: maxRounds, kind: 'stop', title: `Stopped after ${maxRounds} rounds without a solution` });
  return finish({ solved: false, stop: 'max-rounds' });
}

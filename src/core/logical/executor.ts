// Runs one plan of logical-form steps: retrieval over the KG first (names, aliases, attribute keys, relation
// descriptions; exact, fuzzy, embedding) and, for a subject the KG says nothing about, over passages (the step as a
// plain sub-question, the model reading the value out of the passages); sort and math in code; deduce by the model
// with the bound evidence (or in code when it only compares two dates or numbers). Every step records its
// bindings and evidence — triples with their source chunks, passages — which is what the trace shows and what the
// written answer cites. A step that cannot run records why and binds nothing; later steps then say what is missing.
import type { KgEntity } from '../kg/index.ts';
import { addStepUsage, emptyStepUsage, runJsonStep, type LlmClient, type StepUsage } from '../llm/index.ts';
import { ExprError, evaluate, variablesOf } from './expr.ts';
import { entitiesOfType, findEntities, matchAttributes, matchRelations, type KgView } from './kgMatch.ts';
import { deduceMessages, extractMessages } from './prompts.ts';
import { renderStep, type Operand, type Plan, type PlanNode, type PlanStep } from './schema.ts';
import { compareValues, show, valueFromText, valueKey, valueOfAttribute, type Value } from './values.ts';

export interface Passage {
  chunkId: string;
  text: string;
}

export type Evidence =
  | { kind: 'triple'; s: string; p: string; o: string; chunkIds: string[] }
  | { kind: 'passage'; chunkId: string; text: string };

export interface StepRecord {
  index: number;
  /** The step as one line of logical form. */
  form: string;
  step: PlanStep;
  /** Where the values came from. */
  via: 'kg' | 'passages' | 'kg+passages' | 'code' | 'model' | 'none';
  /** What each variable the step bound holds, as the person reads it. */
  bindings: Record<string, string[]>;
  evidence: Evidence[];
  /** Why the step bound nothing or failed. */
  error?: string;
  usage: StepUsage;
}

export interface ExecutorDeps {
  kg: KgView;
  /** Chunk retrieval for a sub-question (the `ppr` mode in the app), best first. */
  passages(question: string): Promise<Passage[]>;
  /** For passage reading and deduce; a plan of KG lookups, sort and math runs without one. */
  llm?: LlmClient;
  signal?: AbortSignal;
  /** The question being solved (deduce asks it when the step states none). */
  question: string;
  onStep?(record: StepRecord): void;
}

export interface Execution {
  steps: StepRecord[];
  outputs: Array<{ var: string; values: Value[] }>;
  /** Every step ran from the KG or in code, and every output has a value (KAG: no reflection needed). */
  exact: boolean;
  evidence: Evidence[];
  usage: StepUsage;
}

/** Passages read per fallback sub-question. */
const FALLBACK_PASSAGES = 4;

/** The executor's state: variables, the value-to-value links retrievals made, and each variable's evidence. */
class Memory {
  readonly vars = new Map<string, Value[]>();
  readonly links: Array<{ a: string; b: string; pairs: Array<[Value, Value]> }> = [];
  readonly evidenceOf = new Map<string, Evidence[]>();
  /** What the sort and math steps computed so far, as lines a deduce step is shown with its evidence. */
  readonly computed: string[] = [];

  bind(name: string, values: Value[], evidence: Evidence[]): void {
    const seen = new Set<string>();
    this.vars.set(
      name,
      values.filter((v) => (seen.has(valueKey(v)) ? false : (seen.add(valueKey(v)), true))),
    );
    this.setEvidence(name, evidence);
  }

  /** A variable's evidence: the facts and passages it rests on, each once. */
  setEvidence(name: string, evidence: Evidence[]): void {
    this.evidenceOf.set(name, dedupeEvidence(evidence));
  }

  /** For each value of `a` (by valueKey), the values of `b` linked to it through the retrievals' pairs. */
  linked(a: string, b: string): Map<string, Value[]> {
    const reach = new Map<string, Map<string, Value[]>>(); // variable → (a-value key → its values there)
    reach.set(a, new Map((this.vars.get(a) ?? []).map((v) => [valueKey(v), [v]])));
    // Breadth-first over variables: each hop maps every a-value's set through one link's pairs.
    let frontier = [a];
    while (frontier.length && !reach.has(b)) {
      const next: string[] = [];
      for (const from of frontier) {
        for (const link of this.links) {
          const forward = link.a === from;
          if (!forward && link.b !== from) continue;
          const to = forward ? link.b : link.a;
          if (reach.has(to)) continue;
          const map = new Map<string, Value[]>();
          for (const [root, values] of reach.get(from)!) {
            const keys = new Set(values.map(valueKey));
            map.set(
              root,
              link.pairs
                .filter(([x, y]) => keys.has(valueKey(forward ? x : y)))
                .map(([x, y]) => (forward ? y : x)),
            );
          }
          reach.set(to, map);
          next.push(to);
        }
      }
      frontier = next;
    }
    return reach.get(b) ?? new Map();
  }
}

export async function executePlan(plan: Plan, deps: ExecutorDeps): Promise<Execution> {
  const memory = new Memory();
  const records: StepRecord[] = [];
  const usage = emptyStepUsage();
  let outputs: Execution['outputs'] = [];
  for (const [index, step] of plan.steps.entries()) {
    deps.signal?.throwIfAborted();
    const record: StepRecord = {
      index,
      form: renderStep(step),
      step,
      via: 'code',
      bindings: {},
      evidence: [],
      usage: emptyStepUsage(),
    };
    try {
      switch (step.step) {
        case 'retrieval':
          await retrieval(step, memory, deps, record);
          break;
        case 'sort':
          sortStep(step, memory, record);
          break;
        case 'math':
          mathStep(step, memory, record);
          break;
        case 'deduce':
          await deduceStep(step, memory, deps, record);
          break;
        case 'output':
          outputs = step.vars.map((v) => ({ var: v, values: memory.vars.get(v) ?? [] }));
          for (const o of outputs) record.bindings[o.var] = o.values.map(show);
          record.evidence = dedupeEvidence(step.vars.flatMap((v) => memory.evidenceOf.get(v) ?? []));
          break;
      }
    } catch (err) {
      if (deps.signal?.aborted || !(err instanceof ExprError || err instanceof StepError)) throw err;
      record.error = err.message;
      record.via = 'none';
      for (const name of newVariables(step)) if (!memory.vars.has(name)) memory.bind(name, [], []);
    }
    addStepUsage(usage, record.usage);
    records.push(record);
    deps.onStep?.(record);
  }
  const exact =
    outputs.length > 0 &&
    outputs.every((o) => o.values.length > 0) &&
    records.every((r) => !r.error && (r.via === 'kg' || r.via === 'code'));
  const evidence = dedupeEvidence(records.flatMap((r) => r.evidence));
  return { steps: records, outputs, exact, evidence, usage };
}

class StepError extends Error {}

function newVariables(step: PlanStep): string[] {
  if (step.step === 'retrieval') return [step.s.var, step.o.var].filter((v): v is string => !!v);
  if (step.step === 'output') return [];
  return [step.as];
}

function dedupeEvidence(list: Evidence[]): Evidence[] {
  const seen = new Set<string>();
  return list.filter((e) => {
    const key = e.kind === 'triple' ? `t:${e.s}|${e.p}|${e.o}` : `p:${e.chunkId}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

// ── retrieval ────────────────────────────────────────────────────────────────────────────────────────────────

/** The values a node stands for before the step runs: a bound variable's, or its constant names; else undefined. */
function known(node: PlanNode, memory: Memory): Value[] | undefined {
  if (node.var && memory.vars.has(node.var)) return memory.vars.get(node.var);
  if (node.names?.length) return node.names.map((text) => ({ kind: 'text', text }) as Value);
  return undefined;
}

/** Keeps the values that fit the node's type (date, number) and constraint. */
function fits(node: PlanNode, v: Value): boolean {
  const t = node.type;
  if (t === 'date' && v.kind !== 'date') return false;
  if ((t === 'number' || t === 'count' || t === 'quantity') && v.kind !== 'number') return false;
  const c = node.constraint;
  if (!c) return true;
  if (c.op === 'contains') return show(v).toLowerCase().includes(c.value.toLowerCase());
  const cmp = compareValues(v, valueFromText(c.value));
  if (cmp === undefined) return c.op === '!=';
  return c.op === '='
    ? cmp === 0
    : c.op === '!='
      ? cmp !== 0
      : c.op === '<'
        ? cmp < 0
        : c.op === '<='
          ? cmp <= 0
          : c.op === '>'
            ? cmp > 0
            : cmp >= 0;
}

async function retrieval(
  step: Extract<PlanStep, { step: 'retrieval' }>,
  memory: Memory,
  deps: ExecutorDeps,
  record: StepRecord,
): Promise<void> {
  const sKnown = known(step.s, memory);
  const oKnown = known(step.o, memory);
  const forward = sKnown !== undefined || oKnown === undefined;
  const to = forward ? step.o : step.s;
  let starts = forward ? sKnown : oKnown;
  if (!starts) {
    // Neither end known: every entity of the subject's type (validated: s has a type then).
    starts = entitiesOfType(deps.kg, step.s.type ?? '').map(
      (e) => ({ kind: 'entity', id: e.id, name: e.name }) as Value,
    );
  }
  const target = forward ? oKnown : sKnown;
  const pairs: Array<[Value, Value]> = [];
  const startValues: Value[] = [];
  let fromKg = 0;
  let fromPassages = 0;
  const misses: string[] = [];
  for (const start of starts) {
    const match = await resolveEntity(deps.kg, start);
    const resolved = match?.entity;
    const found: Value[] = [];
    if (resolved) {
      for (const a of forward ? matchAttributes(resolved, step.p) : []) {
        const v = valueOfAttribute(a);
        if (!fits(to, v)) continue;
        found.push(v);
        record.evidence.push({
          kind: 'triple',
          s: match.name,
          p: a.key,
          o: a.value,
          chunkIds: a.chunkIds,
        });
      }
      if (found.length === 0) {
        for (const m of matchRelations(deps.kg, resolved.id, step.p)) {
          const other = deps.kg.entities.find((e) => e.id === m.other);
          const v: Value = { kind: 'entity', id: m.other, name: displayName(other?.name ?? m.other) };
          if (!fits(to, v)) continue;
          found.push(v);
          const [s, o] = m.outgoing ? [match.name, v.name] : [v.name, match.name];
          record.evidence.push({
            kind: 'triple',
            s,
            p: m.relation.description,
            o,
            chunkIds: m.relation.chunkIds,
          });
        }
      }
    }
    if (!forward && found.length === 0) {
      // Backward over attributes: entities whose attribute p has this value ("films released in 1946"); the value
      // need not be an entity of its own.
      for (const e of deps.kg.entities) {
        for (const a of matchAttributes(e, step.p)) {
          const same =
            compareValues(valueOfAttribute(a), start.kind === 'text' ? valueFromText(start.text) : start) ===
              0 || a.value.toLowerCase() === show(start).toLowerCase();
          if (!same) continue;
          found.push({ kind: 'entity', id: e.id, name: displayName(e.name) });
          record.evidence.push({
            kind: 'triple',
            s: displayName(e.name),
            p: a.key,
            o: a.value,
            chunkIds: a.chunkIds,
          });
        }
      }
    }
    const startValue: Value = match ? { kind: 'entity', id: match.entity.id, name: match.name } : start;
    let values = found;
    if (values.length) fromKg++;
    else {
      values = await fromPassageReading(step, forward, start, starts.length, to, deps, record);
      if (values.length) fromPassages++;
      else misses.push(show(start));
    }
    // Both ends known: the step verifies; keep only the values the other end names.
    if (target) values = values.filter((v) => target.some((t) => sameValue(t, v)));
    startValues.push(startValue);
    for (const v of values) pairs.push(forward ? [startValue, v] : [v, startValue]);
  }
  const sValues = forward ? startValues : pairs.map(([s]) => s);
  const oValues = forward ? pairs.map(([, o]) => o) : startValues;
  const sVar = step.s.var;
  const oVar = step.o.var;
  const evidence = [...record.evidence];
  const upstream = (name?: string): Evidence[] => (name && memory.evidenceOf.get(name)) || [];
  const inherited = [...upstream(sVar), ...upstream(oVar)];
  for (const [name, values] of [
    [sVar, sValues],
    [oVar, oValues],
  ] as const) {
    if (!name) continue;
    // A variable read by this step gains its evidence (a later deduce over it sees every fact about it); a new
    // one rests on what the other end rested on, and on this step.
    if (memory.vars.has(name)) memory.setEvidence(name, [...upstream(name), ...evidence]);
    else memory.bind(name, [...values], [...inherited, ...evidence]);
  }
  if (sVar && oVar) memory.links.push({ a: sVar, b: oVar, pairs });
  for (const name of [sVar, oVar]) if (name) record.bindings[name] = (memory.vars.get(name) ?? []).map(show);
  record.via = fromPassages === 0 ? (fromKg ? 'kg' : 'none') : fromKg ? 'kg+passages' : 'passages';
  if (misses.length) record.error = `nothing found for ${misses.join(', ')} (${step.p})`;
}

function sameValue(a: Value, b: Value): boolean {
  if (a.kind === 'entity' && b.kind === 'entity') return a.id === b.id;
  const c = compareValues(a, b);
  return c === 0 || show(a).toLowerCase() === show(b).toLowerCase();
}

/** The KG entity a value stands for, and the name to show: the KG's for an exact match, else the asked one. */
async function resolveEntity(kg: KgView, v: Value): Promise<{ entity: KgEntity; name: string } | undefined> {
  if (v.kind === 'entity') {
    const entity = kg.entities.find((e) => e.id === v.id);
    return entity && { entity, name: v.name };
  }
  if (v.kind !== 'text') return undefined;
  const found = await findEntities(kg, v.text);
  const entity = found.entities[0];
  // A fuzzy or embedding match keeps the question's spelling: the answer should name what was asked about.
  return entity && { entity, name: found.tier === 'exact' ? displayName(entity.name) : v.text };
}

/** Names as one line (extracted names may keep a line break of their source). */
function displayName(name: string): string {
  return name.replace(/\s+/g, ' ').trim();
}

/** The step as a plain question about one start value. */
function subQuestion(
  step: Extract<PlanStep, { step: 'retrieval' }>,
  forward: boolean,
  start: Value,
  many: boolean,
): string {
  if (step.question && !many) return step.question;
  const name = show(start);
  if (forward) return `What is the ${step.p} of ${name}?`;
  return `Which ${step.s.type ?? 'one'} has ${step.p} ${name}?`;
}

async function fromPassageReading(
  step: Extract<PlanStep, { step: 'retrieval' }>,
  forward: boolean,
  start: Value,
  starts: number,
  to: PlanNode,
  deps: ExecutorDeps,
  record: StepRecord,
): Promise<Value[]> {
  if (!deps.llm) return [];
  const question = subQuestion(step, forward, start, starts > 1);
  const passages = (await deps.passages(question)).slice(0, FALLBACK_PASSAGES);
  if (passages.length === 0) return [];
  const expected = to.type ? `${to.type}${to.type === 'date' ? ' (as written)' : ''}` : 'a short value';
  const outcome = await runJsonStep(
    deps.llm,
    {
      name: `retrieval step ${record.index + 1} (passages)`,
      messages: extractMessages(
        question,
        expected,
        passages.map((p) => p.text),
      ),
      validate: (value) => {
        const o = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
        const values = o.values;
        const cited = o.passages ?? [];
        const errors: string[] = [];
        if (!Array.isArray(values) || values.some((v) => typeof v !== 'string' && typeof v !== 'number')) {
          errors.push('"values" must be an array of strings');
        }
        if (
          !Array.isArray(cited) ||
          cited.some((n) => !Number.isInteger(n) || n < 1 || n > passages.length)
        ) {
          errors.push(`"passages" must list passage numbers from 1 to ${passages.length}`);
        }
        return errors.length
          ? { ok: false, errors }
          : {
              ok: true,
              value: { values: (values as unknown[]).map(String).slice(0, 10), cited: cited as number[] },
            };
      },
      maxTokens: 300,
    },
    { signal: deps.signal },
  );
  addStepUsage(record.usage, outcome.usage);
  if (!outcome.ok) throw new StepError(outcome.reason);
  const values: Value[] = [];
  for (const raw of outcome.value.values) {
    let v = valueFromText(raw);
    if (v.kind === 'text' && !['date', 'number', 'text'].includes(to.type ?? '')) {
      const match = await findEntities({ ...deps.kg, embed: undefined }, raw);
      const e = match.tier === 'exact' ? match.entities[0] : undefined;
      if (e) v = { kind: 'entity', id: e.id, name: displayName(e.name) };
    }
    if (fits(to, v)) values.push(v);
  }
  if (values.length) {
    const cited = outcome.value.cited.length ? outcome.value.cited.map((n) => passages[n - 1]) : passages;
    for (const p of cited) record.evidence.push({ kind: 'passage', chunkId: p.chunkId, text: p.text });
  }
  return values;
}

// ── sort, math, deduce ───────────────────────────────────────────────────────────────────────────────────────

function sortStep(step: Extract<PlanStep, { step: 'sort' }>, memory: Memory, record: StepRecord): void {
  const values = memory.vars.get(step.var) ?? [];
  const keys = memory.linked(step.var, step.by);
  const keyed: Array<{ v: Value; key: Value }> = [];
  const missing: string[] = [];
  for (const v of values) {
    const ks = keys.get(valueKey(v)) ?? [];
    if (ks.length === 0) {
      missing.push(show(v));
      continue;
    }
    // Several keys (two release dates): the earliest for min, the latest for max.
    const pick = ks.reduce((best, k) => {
      const c = compareValues(k, best);
      return c !== undefined && (step.direction === 'min' ? c < 0 : c > 0) ? k : best;
    });
    keyed.push({ v, key: pick });
  }
  for (let i = 1; i < keyed.length; i++) {
    if (compareValues(keyed[i].key, keyed[0].key) === undefined) {
      throw new StepError(`sort: cannot order ${show(keyed[i].key)} with ${show(keyed[0].key)}`);
    }
  }
  keyed.sort((x, y) => (step.direction === 'min' ? 1 : -1) * compareValues(x.key, y.key)!);
  const kept = keyed.slice(0, step.limit).map((k) => k.v);
  memory.bind(step.as, kept, [
    ...(memory.evidenceOf.get(step.var) ?? []),
    ...(memory.evidenceOf.get(step.by) ?? []),
  ]);
  record.bindings[step.as] = kept.map(show);
  record.bindings[`${step.by} of ${step.var}`] = keyed.map((k) => `${show(k.v)}: ${show(k.key)}`);
  if (missing.length) record.error = `no ${step.by} for ${missing.join(', ')}`;
  if (kept.length === 0) throw new StepError(`sort: no value of ${step.var} has a ${step.by}`);
}

function mathStep(step: Extract<PlanStep, { step: 'math' }>, memory: Memory, record: StepRecord): void {
  const result = evaluate(step.parsed, (name) => memory.vars.get(name));
  const used = variablesOf(step.parsed);
  memory.bind(
    step.as,
    [result],
    used.flatMap((v) => memory.evidenceOf.get(v) ?? []),
  );
  record.bindings[step.as] = [show(result)];
  memory.computed.push(`${step.as} = ${step.expr} = ${show(result)}`);
}

function operandValues(o: Operand | undefined, memory: Memory): Value[] | undefined {
  if (!o) return undefined;
  return 'var' in o ? (memory.vars.get(o.var) ?? []) : [valueFromText(o.value)];
}

function describeOperand(o: Operand | undefined, memory: Memory): string | undefined {
  if (!o) return undefined;
  const values = operandValues(o, memory)!;
  const shown = values.length ? values.map(show).join('; ') : '(nothing found)';
  return 'var' in o ? `${o.var} = ${shown}` : shown;
}

function evidenceText(list: readonly Evidence[]): string {
  return dedupeEvidence([...list])
    .slice(0, 12)
    .map((e) => (e.kind === 'triple' ? `(${e.s}, ${e.p}, ${e.o})` : `"${e.text.slice(0, 600)}"`))
    .join('\n');
}

async function deduceStep(
  step: Extract<PlanStep, { step: 'deduce' }>,
  memory: Memory,
  deps: ExecutorDeps,
  record: StepRecord,
): Promise<void> {
  const a = operandValues(step.A, memory)!;
  const b = operandValues(step.B, memory);
  const evidence = [step.A, step.B].flatMap((o) =>
    o && 'var' in o ? (memory.evidenceOf.get(o.var) ?? []) : [],
  );
  // Comparing two single dates or numbers is symbolic: done in code, exactly.
  if (
    (step.op === 'greater' || step.op === 'less' || step.op === 'equal') &&
    a.length === 1 &&
    b?.length === 1
  ) {
    const c = compareValues(a[0], b[0]);
    if (c !== undefined && a[0].kind !== 'text' && a[0].kind !== 'entity') {
      const value = step.op === 'greater' ? c > 0 : step.op === 'less' ? c < 0 : c === 0;
      memory.bind(step.as, [{ kind: 'boolean', value }], evidence);
      record.bindings[step.as] = [value ? 'yes' : 'no'];
      record.evidence = dedupeEvidence(evidence);
      return;
    }
  }
  if (!deps.llm) throw new StepError('deduce needs the LLM endpoint');
  const options = step.op === 'choice' ? [...a, ...(b ?? [])].map(show) : [];
  const outcome = await runJsonStep(
    deps.llm,
    {
      name: `deduce step ${record.index + 1}`,
      messages: deduceMessages(
        step.question ?? deps.question,
        step.op,
        describeOperand(step.A, memory)!,
        describeOperand(step.B, memory),
        [evidenceText(evidence), ...memory.computed.map((c) => `computed: ${c}`)].filter(Boolean).join('\n'),
      ),
      validate: (value) => {
        const o = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
        if (typeof o.answer !== 'string' || !o.answer.trim())
          return { ok: false, errors: ['"answer" must be a non-empty string'] };
        if (
          options.length &&
          !options.some((x) => x.toLowerCase() === String(o.answer).trim().toLowerCase())
        ) {
          return { ok: false, errors: [`"answer" must be one of: ${options.join(' | ')}`] };
        }
        return {
          ok: true,
          value: { answer: o.answer.trim(), reason: typeof o.reason === 'string' ? o.reason : '' },
        };
      },
      maxTokens: 300,
    },
    { signal: deps.signal },
  );
  addStepUsage(record.usage, outcome.usage);
  record.via = 'model';
  if (!outcome.ok) throw new StepError(outcome.reason);
  const chosen =
    step.op === 'choice'
      ? [...a, ...(b ?? [])].find((v) => show(v).toLowerCase() === outcome.value.answer.toLowerCase())
      : undefined;
  const value = chosen ?? valueFromText(outcome.value.answer);
  memory.bind(step.as, [value], evidence);
  record.bindings[step.as] = [show(value)];
  record.evidence = dedupeEvidence(evidence);
  if (outcome.value.reason) record.bindings.reason = [outcome.value.reason];
}

// The logical-form language (KAG's retrieval / sort / math / deduce / output) as ONE declarative schema: the same
// table renders the planner prompt's description of every function and checks the model's reply, so the prompt
// cannot promise a field the validator refuses. Validation walks the steps in order and tracks which variables are
// bound, so a reference to a variable no earlier step binds (or an unknown function) is an error naming the step
// and the field — the text that goes back to the model in the one repair turn.
import type { Checked } from '../llm/index.ts';
import { ExprError, MATH_FUNCTIONS, parseExpression, variablesOf, type Expr } from './expr.ts';

/** A retrieval's subject or object: a bound variable, or a new one with a type, constant names and a constraint. */
export interface PlanNode {
  /** Variable this node binds (new) or reads (bound by an earlier step). */
  var?: string;
  /** Type constraint: an entity type ("film", "person") or a value kind ("date", "number", "text"). */
  type?: string;
  /** Constant names the node stands for ("Phoolwari"); the KG entities of those names. */
  names?: string[];
  /** Keeps only values that satisfy it (compared in code: dates by day, numbers by value). */
  constraint?: { op: ConstraintOp; value: string };
}

type ConstraintOp = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'contains';
const CONSTRAINT_OPS: readonly ConstraintOp[] = ['=', '!=', '<', '<=', '>', '>=', 'contains'];

type DeduceOp = 'entailment' | 'greater' | 'less' | 'equal' | 'choice' | 'extraction';
const DEDUCE_OPS: readonly DeduceOp[] = ['entailment', 'greater', 'less', 'equal', 'choice', 'extraction'];

/** A deduce operand: a bound variable or a constant. */
export type Operand = { var: string } | { value: string };

export type PlanStep =
  | { step: 'retrieval'; s: PlanNode; p: string; o: PlanNode; question?: string }
  | { step: 'sort'; var: string; by: string; direction: 'min' | 'max'; limit: number; as: string }
  | { step: 'math'; expr: string; parsed: Expr; as: string }
  | { step: 'deduce'; op: DeduceOp; A: Operand; B?: Operand; question?: string; as: string }
  | { step: 'output'; vars: string[] };

export interface Plan {
  steps: PlanStep[];
}

type FieldKind =
  'node' | 'text' | 'ref' | 'refs' | 'newvar' | 'direction' | 'limit' | 'expr' | 'deduceOp' | 'operand';

interface FieldSpec {
  kind: FieldKind;
  optional?: boolean;
  doc: string;
}

interface FunctionSpec {
  doc: string;
  fields: Record<string, FieldSpec>;
}

/** How each kind of field is written, for the prompt. */
const KIND_SYNTAX: Record<FieldKind, string> = {
  node: '{"var"?: name, "type"?: string, "names"?: [string], "constraint"?: {"op": string, "value": string}}',
  text: 'string',
  ref: 'variable name',
  refs: '[variable name]',
  newvar: 'new variable name',
  direction: '"min" | "max"',
  limit: 'integer ≥ 1',
  expr: 'expression',
  deduceOp: DEDUCE_OPS.map((o) => `"${o}"`).join(' | '),
  operand: '{"var": name} | {"value": string}',
};

export const LOGICAL_FUNCTIONS: Record<PlanStep['step'], FunctionSpec> = {
  retrieval: {
    doc:
      'finds subject–predicate–object facts in the knowledge graph (then in the passages). s and o are nodes: a ' +
      'node with "names" stands for those named things; a node whose "var" an earlier step bound reads it (give ' +
      'only {"var": name} then); a node with a new "var" and no names is what the step finds and binds. p is ' +
      'the relation or attribute ("release date", "director", "population", "country"). One retrieval per hop.',
    fields: {
      s: { kind: 'node', doc: 'subject' },
      p: { kind: 'text', doc: 'predicate' },
      o: { kind: 'node', doc: 'object' },
      question: {
        kind: 'text',
        optional: true,
        doc: 'the step as a plain question, used to search passages',
      },
    },
  },
  sort: {
    doc: 'orders the values of var by the value each is linked to in by, keeps the first limit (min = ascending)',
    fields: {
      var: { kind: 'ref', doc: 'the values to order' },
      by: { kind: 'ref', doc: 'the key linked to each value' },
      direction: { kind: 'direction', doc: 'min or max first' },
      limit: { kind: 'limit', optional: true, doc: 'how many to keep (default 1)' },
      as: { kind: 'newvar', doc: 'binds the kept values' },
    },
  },
  math: {
    doc:
      'computes an expression in code over bound variables and constants: + - * / ( ), comparisons < <= > >= ' +
      '== != (dates compare by day), && || !, quoted constants, and the functions ' +
      Object.values(MATH_FUNCTIONS)
        .map((f) => f.doc)
        .join('; '),
    fields: {
      expr: { kind: 'expr', doc: 'the expression' },
      as: { kind: 'newvar', doc: 'binds the result' },
    },
  },
  deduce: {
    doc:
      'asks the model to reason over the evidence of A (and B): entailment (does A imply B), greater / less / ' +
      'equal (A compared with B), choice (which of A and B answers the question), extraction (the answer to ' +
      'the question stated in A)',
    fields: {
      op: { kind: 'deduceOp', doc: 'the operation' },
      A: { kind: 'operand', doc: 'first operand' },
      B: { kind: 'operand', optional: true, doc: 'second operand' },
      question: { kind: 'text', optional: true, doc: 'what to decide' },
      as: { kind: 'newvar', doc: 'binds the conclusion' },
    },
  },
  output: {
    doc: 'the variables that answer the question; the last step',
    fields: { vars: { kind: 'refs', doc: 'answer variables' } },
  },
};

/** The planner prompt's description of the language, rendered from LOGICAL_FUNCTIONS. */
export function describeLanguage(): string {
  const lines = Object.entries(LOGICAL_FUNCTIONS).map(([name, spec]) => {
    const fields = Object.entries(spec.fields)
      .map(([f, s]) => `"${f}"${s.optional ? '?' : ''}: ${KIND_SYNTAX[s.kind]}`)
      .join(', ');
    return `- {"step": "${name}", ${fields}} — ${spec.doc}.`;
  });
  return [
    'Functions (one JSON object per step, in execution order):',
    ...lines,
    `Constraint ops: ${CONSTRAINT_OPS.join(' ')}. Variable names: letters, digits, _ (start with a letter).`,
    'A step may only read variables bound by earlier steps. The plan ends with one output step.',
  ].join('\n');
}

const NAME = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;
const MAX_PLAN_STEPS = 16;

/** Checks a reply against the schema, in step order; the plan, or every problem found. */
export function validatePlan(value: unknown): Checked<Plan> {
  const errors: string[] = [];
  const root = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (!Array.isArray(root.steps)) return { ok: false, errors: ['the reply must be {"steps": [ … ]}'] };
  const raw = root.steps as unknown[];
  if (raw.length === 0) return { ok: false, errors: ['"steps" is empty'] };
  if (raw.length > MAX_PLAN_STEPS) errors.push(`too many steps (${raw.length} > ${MAX_PLAN_STEPS})`);
  const bound = new Set<string>();
  const steps: PlanStep[] = [];
  raw.slice(0, MAX_PLAN_STEPS).forEach((item, i) => {
    const o = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const name = typeof o.step === 'string' ? o.step : '';
    const known = Object.hasOwn(LOGICAL_FUNCTIONS, name);
    const where = `steps[${i}]${known ? ` (${name})` : ''}`;
    if (!known) {
      errors.push(
        `${where}: unknown function ${JSON.stringify(o.step ?? null)} (known: ${Object.keys(LOGICAL_FUNCTIONS).join(', ')})`,
      );
      return;
    }
    const spec = LOGICAL_FUNCTIONS[name as PlanStep['step']];
    const out: Record<string, unknown> = { step: name };
    const newVars: string[] = [];
    for (const [field, f] of Object.entries(spec.fields)) {
      const v = o[field];
      const at = `${where}.${field}`;
      if (v === undefined || v === null || v === '') {
        if (!f.optional) errors.push(`${at} is missing (${KIND_SYNTAX[f.kind]})`);
        continue;
      }
      const checked = checkField(f.kind, v, at, bound, newVars, errors);
      if (checked !== undefined) out[field] = checked;
    }
    for (const extra of Object.keys(o)) {
      if (extra !== 'step' && !Object.hasOwn(spec.fields, extra))
        errors.push(`${where}: unknown field "${extra}"`);
    }
    if (name === 'retrieval') {
      const s = out.s as PlanNode | undefined;
      const ob = out.o as PlanNode | undefined;
      const isKnown = (n?: PlanNode): boolean => !!n && (!!n.names?.length || (!!n.var && bound.has(n.var)));
      if (s && ob && !isKnown(s) && !isKnown(ob) && !s.type) {
        errors.push(`${where}: s or o must name something, read a bound variable, or s must have a type`);
      }
    }
    if (name === 'sort' && out.limit === undefined) out.limit = 1;
    if (name === 'math' && typeof out.expr === 'string') out.parsed = parseExpression(out.expr);
    for (const v of newVars) bound.add(v);
    steps.push(out as unknown as PlanStep);
  });
  const last = steps[steps.length - 1];
  if (raw.length > 0 && (!last || last.step !== 'output'))
    errors.push('the plan must end with an output step');
  if (steps.slice(0, -1).some((s) => s.step === 'output')) errors.push('only the last step may be output');
  return errors.length ? { ok: false, errors } : { ok: true, value: { steps } };
}

function refName(v: unknown, at: string, bound: ReadonlySet<string>, errors: string[]): string | undefined {
  if (typeof v !== 'string' || !NAME.test(v)) {
    errors.push(`${at} must be a variable name (got ${JSON.stringify(v)})`);
    return undefined;
  }
  if (!bound.has(v)) {
    errors.push(`${at}: variable ${v} is not bound by an earlier step`);
    return undefined;
  }
  return v;
}

function newName(v: unknown, at: string, bound: ReadonlySet<string>, newVars: string[], errors: string[]) {
  if (typeof v !== 'string' || !NAME.test(v)) {
    errors.push(`${at} must be a variable name (got ${JSON.stringify(v)})`);
    return undefined;
  }
  if (bound.has(v) || newVars.includes(v)) {
    errors.push(`${at}: variable ${v} is already bound`);
    return undefined;
  }
  newVars.push(v);
  return v;
}

function checkField(
  kind: FieldKind,
  v: unknown,
  at: string,
  bound: ReadonlySet<string>,
  newVars: string[],
  errors: string[],
): unknown {
  switch (kind) {
    case 'text':
      if (typeof v === 'string' && v.trim()) return v.trim().slice(0, 300);
      errors.push(`${at} must be a non-empty string`);
      return undefined;
    case 'ref':
      return refName(v, at, bound, errors);
    case 'refs': {
      const list = Array.isArray(v) ? v : [v];
      const names = list.map((x, i) => refName(x, `${at}[${i}]`, bound, errors));
      return names.every(Boolean) ? names : undefined;
    }
    case 'newvar':
      return newName(v, at, bound, newVars, errors);
    case 'direction':
      if (v === 'min' || v === 'max') return v;
      errors.push(`${at} must be "min" or "max" (got ${JSON.stringify(v)})`);
      return undefined;
    case 'limit':
      if (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 100) return v;
      errors.push(`${at} must be an integer from 1 to 100`);
      return undefined;
    case 'deduceOp':
      if (typeof v === 'string' && (DEDUCE_OPS as readonly string[]).includes(v)) return v;
      errors.push(`${at} must be one of ${DEDUCE_OPS.join(', ')} (got ${JSON.stringify(v)})`);
      return undefined;
    case 'operand': {
      const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
      if (typeof v === 'string') {
        const name = refName(v, at, bound, errors);
        return name && { var: name };
      }
      if ('var' in o) {
        const name = refName(o.var, `${at}.var`, bound, errors);
        return name && { var: name };
      }
      if (typeof o.value === 'string' || typeof o.value === 'number') return { value: String(o.value) };
      errors.push(`${at} must be {"var": name} or {"value": string}`);
      return undefined;
    }
    case 'expr': {
      if (typeof v !== 'string') {
        errors.push(`${at} must be an expression string`);
        return undefined;
      }
      try {
        const parsed = parseExpression(v);
        for (const name of variablesOf(parsed)) {
          if (!bound.has(name)) errors.push(`${at}: variable ${name} is not bound by an earlier step`);
        }
        return v;
      } catch (err) {
        errors.push(`${at}: ${err instanceof ExprError ? err.message : String(err)}`);
        return undefined;
      }
    }
    case 'node':
      return checkNode(v, at, bound, newVars, errors);
  }
}

function checkNode(
  v: unknown,
  at: string,
  bound: ReadonlySet<string>,
  newVars: string[],
  errors: string[],
): PlanNode | undefined {
  if (typeof v === 'string') {
    const name = refName(v, at, bound, errors);
    return name ? { var: name } : undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    errors.push(`${at} must be a node ${KIND_SYNTAX.node}`);
    return undefined;
  }
  const o = v as Record<string, unknown>;
  const node: PlanNode = {};
  for (const extra of Object.keys(o)) {
    if (!['var', 'type', 'names', 'name', 'constraint'].includes(extra))
      errors.push(`${at}: unknown field "${extra}"`);
  }
  if (o.type !== undefined) {
    if (typeof o.type === 'string' && o.type.trim()) node.type = o.type.trim().toLowerCase();
    else errors.push(`${at}.type must be a non-empty string`);
  }
  const names = o.names ?? (o.name !== undefined ? [o.name] : undefined);
  if (names !== undefined) {
    const list = (Array.isArray(names) ? names : [names]).filter((n) => typeof n === 'string' && n.trim());
    if (list.length === 0 || list.length !== (Array.isArray(names) ? names.length : 1)) {
      errors.push(`${at}.names must be a list of non-empty strings`);
    } else node.names = (list as string[]).map((n) => n.trim());
  }
  if (o.constraint !== undefined) {
    const c = (o.constraint ?? {}) as Record<string, unknown>;
    const okOp = typeof c.op === 'string' && (CONSTRAINT_OPS as readonly string[]).includes(c.op);
    const okValue = typeof c.value === 'string' || typeof c.value === 'number';
    if (!okOp || !okValue) {
      errors.push(`${at}.constraint must be {"op": one of ${CONSTRAINT_OPS.join(' ')}, "value": string}`);
    } else node.constraint = { op: c.op as ConstraintOp, value: String(c.value) };
  }
  if (o.var !== undefined) {
    if (typeof o.var !== 'string' || !NAME.test(o.var)) {
      errors.push(`${at}.var must be a variable name (got ${JSON.stringify(o.var)})`);
    } else if (bound.has(o.var)) {
      node.var = o.var; // reads the earlier binding
    } else if (newVars.includes(o.var)) {
      errors.push(`${at}.var: variable ${o.var} is bound twice in one step`);
    } else {
      newVars.push(o.var);
      node.var = o.var;
    }
  }
  if (!node.var && !node.names) errors.push(`${at} needs a "var" or "names"`);
  return node;
}

/** A step as one line of logical form, for the trace and the prompts. */
export function renderStep(step: PlanStep): string {
  const node = (n: PlanNode): string => {
    const parts = [n.var ?? '', n.type ? `:${n.type}` : '', n.names ? `[${n.names.join(' | ')}]` : ''];
    const c = n.constraint ? ` ${n.constraint.op} ${n.constraint.value}` : '';
    return `${parts.join('')}${c}`;
  };
  const operand = (o?: Operand): string => (!o ? '' : 'var' in o ? o.var : JSON.stringify(o.value));
  switch (step.step) {
    case 'retrieval':
      return `retrieval(s=${node(step.s)}, p=${step.p}, o=${node(step.o)})`;
    case 'sort':
      return `${step.as} = sort(${step.var}, by=${step.by}, ${step.direction}, limit=${step.limit})`;
    case 'math':
      return `${step.as} = math(${step.expr})`;
    case 'deduce':
      return `${step.as} = deduce(${step.op}, ${operand(step.A)}${step.B ? `, ${operand(step.B)}` : ''})`;
    case 'output':
      return `output(${step.vars.join(', ')})`;
  }
}

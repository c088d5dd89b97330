// The public API of src/core/logical: KAG's logical-form language (schema, expressions), its executor over the KG
// and passages, and the solver loop with reflection. Modules not listed here are this folder's own.
export { ExprError, MATH_FUNCTIONS, evaluate, parseExpression, variablesOf } from './expr.ts';
export type { Expr } from './expr.ts';
export { executePlan } from './executor.ts';
export type { Evidence, Execution, ExecutorDeps, Passage, StepRecord } from './executor.ts';
export type { KgView } from './kgMatch.ts';
export { DEDUCE_TAG, EXTRACT_TAG, PLAN_TAG, REFLECT_TAG } from './prompts.ts';
export { LOGICAL_FUNCTIONS, describeLanguage, renderStep, validatePlan } from './schema.ts';
export type { Plan, PlanNode, PlanStep } from './schema.ts';
export { PlanError, SOLVER_DEFAULTS, memoryText, solve } from './solver.ts';
export type { RoundMemory, SolveOptions, Solution, SolverTrace } from './solver.ts';
export { show, valueFromText } from './values.ts';
export type { Value } from './values.ts';

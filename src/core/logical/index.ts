// The public API of src/core/logical (KAG's logical-form solving): the solver loop with reflection that the
// `logical` mode runs, and the plan validator, executor and prompt tags its tests and scripted server use. Modules
// not listed here are this folder's own (the expression language, matching, values); tests may reach them directly.
export { executePlan } from './executor.ts';
export type { Evidence, Execution, Passage } from './executor.ts';
export type { KgView } from './kgMatch.ts';
export { PLAN_TAG, REFLECT_TAG } from './prompts.ts';
export { LOGICAL_FUNCTIONS, describeLanguage, validatePlan } from './schema.ts';
export type { Plan } from './schema.ts';
export { SOLVER_DEFAULTS, solve } from './solver.ts';
export type { SolverTrace } from './solver.ts';

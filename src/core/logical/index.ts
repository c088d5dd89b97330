// The public API of src/core/logical (KAG's logical-form solving): the solver loop with reflection that the
// `logical` mode runs, and its types. Modules not listed here are this folder's own (the plan validator, executor,
// prompts, expression language, matching, values); tests and the scripted server reach them directly.
export type { Evidence, Execution, Passage } from './executor.ts';
export type { KgView } from './kgMatch.ts';
export type { Plan } from './schema.ts';
export { SOLVER_DEFAULTS, solve } from './solver.ts';
export type { SolverTrace } from './solver.ts';

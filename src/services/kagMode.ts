// KAG's question mode `logical`: logical-form planning, hybrid execution over the KG and the chunks, reflection.
// Being built (issue 12): until then it refuses with that reason rather than answer with something else.
import type { ModeHandler } from './queryModes.ts';

export const logicalMode: ModeHandler = () =>
  Promise.reject(new Error('mode logical is not available yet (KAG logical-form solving is being built)'));

// The scripted server's replies to the global answer's calls (core/themes/globalAnswer.ts), for the unit and e2e
// tests: a map call gets the first sentence of its first passage, citing it (a theme whose label names `silent`
// says nothing: NOTHING, left out of the reduce); the reduce call gets every partial answer's line, joined, so the
// answer keeps their citations.
import type { ScriptedResponder } from './scriptedLlmServer.ts';

export const isGlobalMap = (system: string): boolean => system.includes('one theme of a document library');
export const isGlobalReduce = (system: string): boolean =>
  system.includes('partial answers about the themes');

export function scriptedGlobal(silent?: RegExp): ScriptedResponder {
  return (messages) => {
    const system = messages[0]?.content ?? '';
    const user = messages[1]?.content ?? '';
    if (isGlobalMap(system)) {
      const m = /\[(\d+)\] \([^)]*\)\n([^\n]+)/.exec(user);
      if (!m || (silent && silent.test(user.split('\n')[0]))) return 'NOTHING';
      return `${m[2].split(/(?<=[.!?])\s+/)[0]} [${m[1]}]`;
    }
    if (isGlobalReduce(system)) {
      return user
        .split('\n')
        .filter((line) => /\[\d+\]\s*$/.test(line))
        .join(' ');
    }
    return undefined;
  };
}

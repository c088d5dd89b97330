// Scripted replies to the logical-form solver's prompts (src/core/logical/prompts.ts), for the loopback test server:
// a planner that writes valid plans for 2WikiMultihopQA's comparison and bridge-comparison questions by pattern
// (release, founding, birth and death dates, lifespans, same country), a passage reader that finds a date or a
// demonym next to the asked name, a deduce that picks by the evidence it is shown, and a reflection that calls a
// question solved once an output has a value. Deterministic, derived only from the prompt text; tests override
// any part to script bad plans, repairs and endless reflection.
import { DEDUCE_TAG, EXTRACT_TAG, PLAN_TAG, REFLECT_TAG } from '../../src/core/logical/prompts.ts';
import type { ScriptedResponder } from './scriptedLlmServer.ts';

type Messages = Array<{ role: string; content: string }>;

export interface KagScript {
  /** A plan reply (any JSON value) for the question and follow-ups; undefined uses the pattern planner. */
  plan?(question: string, followUps: string[], messages: Messages): unknown;
  reflect?(question: string, memory: string, round: number, messages: Messages): unknown;
  extract?(question: string, passages: string[]): unknown;
  deduce?(question: string, op: string, a: string, b: string | undefined, evidence: string): unknown;
}

const DATE =
  /\b(\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|December) \d{4}|(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4}|1[0-9]{3}|20[0-9]{2})\b/;

const line = (text: string, label: string): string =>
  new RegExp(`^${label}:\\s*(.*)$`, 'm').exec(text)?.[1]?.trim() ?? '';

/** "X or Y" at the end of a question (after the last comma), or "Was X or Y born first". */
function twoNames(question: string): [string, string] | undefined {
  const q = question.replace(/\?\s*$/, '');
  let m = /^(?:Was|Is|Did) (.+?) or (.+?) (?:born|released|founded|established|die|died)\b/i.exec(q);
  if (m) return [m[1].trim(), m[2].trim()];
  m = /\bout of (.+?) and (.+)$/i.exec(q);
  if (m) return [m[1].trim(), m[2].trim()];
  m = /,\s*(.+?)\s+or\s+(.+)$/.exec(q);
  if (m) return [m[1].trim(), m[2].trim()];
  m =
    /^(?:Are|Were|Do|Did|Does|Is)\s+(?:the (?:movies|films|directors of (?:films?|movies?))\s+|both (?:movies|films),?\s+|both\s+)?(.+?)\s+and\s+(.+?),?\s+(?:both|from|of|located|share|born|originate|have)\b/i.exec(
      q,
    );
  if (m) return [m[1].trim(), m[2].trim()];
  m = /^Does (.+?) have the same nationality as (.+)$/i.exec(q);
  if (m) return [m[1].trim(), m[2].trim()];
  return undefined;
}

const retrieval = (s: unknown, p: string, o: unknown, question?: string) => ({
  step: 'retrieval',
  s,
  p,
  o,
  ...(question ? { question } : {}),
});

/** A plan for a 2Wiki-style comparison question, by pattern; a single passage lookup for anything else. */
export function patternPlan(question: string): unknown {
  const names = twoNames(question);
  const q = question.toLowerCase();
  if (names) {
    const bridge = /\b(director|performer|composer|author|creator|producer)\b/.exec(q)?.[1];
    const sameCountry = /same (country|nationality|place)/.test(q) || /nationality as/.test(q);
    let p = 'release date';
    if (/\bborn|older|younger\b/.test(q)) p = 'birth date';
    else if (/\bdied|death\b/.test(q)) p = 'death date';
    else if (/established|founded|opened|formed/.test(q)) p = 'founded';
    const later = /\b(later|last|more recently|younger|recent)\b/.test(q);
    const direction = later ? 'max' : 'min';
    if (sameCountry) {
      const key = /nationality/.test(q)
        ? 'nationality'
        : /born in the same place/.test(q)
          ? 'birth place'
          : 'country';
      const steps: unknown[] = [];
      if (bridge) {
        steps.push(retrieval({ var: 'w1', names: [names[0]] }, bridge, { var: 'x1', type: 'person' }));
        steps.push(retrieval({ var: 'w2', names: [names[1]] }, bridge, { var: 'x2', type: 'person' }));
      }
      steps.push(
        retrieval(bridge ? { var: 'x1' } : { var: 'x1', names: [names[0]] }, key, {
          var: 'c1',
          type: 'text',
        }),
      );
      steps.push(
        retrieval(bridge ? { var: 'x2' } : { var: 'x2', names: [names[1]] }, key, {
          var: 'c2',
          type: 'text',
        }),
      );
      steps.push({ step: 'math', expr: 'c1 == c2', as: 'same' }, { step: 'output', vars: ['same'] });
      return { steps };
    }
    if (/lived longer/.test(q)) {
      return {
        steps: [
          retrieval({ var: 'a', names: [names[0]] }, 'birth date', { var: 'ab', type: 'date' }),
          retrieval({ var: 'a' }, 'death date', { var: 'ad', type: 'date' }),
          retrieval({ var: 'b', names: [names[1]] }, 'birth date', { var: 'bb', type: 'date' }),
          retrieval({ var: 'b' }, 'death date', { var: 'bd', type: 'date' }),
          { step: 'math', expr: 'days(ab, ad) > days(bb, bd)', as: 'firstLonger' },
          { step: 'deduce', op: 'choice', A: { var: 'a' }, B: { var: 'b' }, question, as: 'longer' },
          { step: 'output', vars: ['longer'] },
        ],
      };
    }
    const steps: unknown[] = [];
    if (bridge) {
      steps.push(retrieval({ var: 'w', names }, bridge, { var: 'x', type: 'person' }));
      steps.push(retrieval({ var: 'x' }, p, { var: 'd', type: 'date' }));
      steps.push({ step: 'sort', var: 'w', by: 'd', direction, limit: 1, as: 'answer' });
    } else {
      steps.push(retrieval({ var: 'x', names }, p, { var: 'd', type: 'date' }, `What is the ${p} of each?`));
      steps.push({ step: 'sort', var: 'x', by: 'd', direction, limit: 1, as: 'answer' });
    }
    steps.push({ step: 'output', vars: ['answer'] });
    return { steps };
  }
  const subject =
    /\b([A-Z][\p{L}'’]+(?:\s+(?:[A-Z][\p{L}'’]+|of|the|de|la))*)/u.exec(question.slice(1))?.[1] ?? question;
  return {
    steps: [
      retrieval({ var: 's', names: [subject] }, 'answer', { var: 'a' }, question),
      { step: 'output', vars: ['a'] },
    ],
  };
}

/** The first date (or a demonym / place) stated next to the name the question asks about. */
export function readPassages(question: string, passages: string[]): { values: string[]; passages: number[] } {
  const name = /\bof (.+?)\?$/.exec(question)?.[1]?.trim() ?? '';
  const wantsDate = /date|when|year/i.test(question);
  // A passage names the asked one when it has all of its words ("Holm Pedersen Jølsen" names "Holm Jølsen").
  const nameWords = name.toLowerCase().split(/\s+/).filter(Boolean);
  const names = (text: string): boolean => nameWords.every((w) => text.toLowerCase().includes(w));
  const order = passages
    .map((text, i) => ({ text, i }))
    .sort((a, b) => Number(names(b.text)) - Number(names(a.text)));
  for (const { text, i } of order) {
    if (name && !names(text)) continue;
    if (wantsDate) {
      // Of "(born 1 May 1900 – 2 June 1980)", the birth date is the first, the death date the one after the dash.
      const part = /death|died/.test(question) ? (text.split(/\s[–—-]\s?|–/)[1] ?? text) : text;
      const m = DATE.exec(part);
      if (m) return { values: [m[1]], passages: [i + 1] };
    } else {
      const m =
        /\b(?:an?|the) (?:\d{4} )?([A-Z][a-z]+(?:an|ian|ish|ese|ch|i))\b/.exec(text) ??
        /\bin ([A-Z][a-z]+)\b/.exec(text);
      if (m) return { values: [m[1]], passages: [i + 1] };
    }
  }
  return { values: [], passages: [] };
}

/** A reply to any solver prompt, or undefined for other requests (extraction, answers). */
export function kagResponder(script: KagScript = {}): ScriptedResponder {
  return (messages) => {
    const system = messages.find((m) => m.role === 'system')?.content ?? '';
    const user = messages.find((m) => m.role === 'user')?.content ?? '';
    const question = line(user, 'Question');
    if (system.startsWith(PLAN_TAG)) {
      const followUps =
        /Plan these follow-up questions:\n((?:- .*\n?)+)/
          .exec(user)?.[1]
          .split('\n')
          .map((l) => l.replace(/^- /, '').trim())
          .filter(Boolean) ?? [];
      const reply = script.plan?.(question, followUps, messages) ?? patternPlan(followUps[0] ?? question);
      return typeof reply === 'string' ? reply : JSON.stringify(reply);
    }
    if (system.startsWith(EXTRACT_TAG)) {
      const passages = user.split(/\n\n\[\d+\] /).slice(1);
      return JSON.stringify(script.extract?.(question, passages) ?? readPassages(question, passages));
    }
    if (system.startsWith(DEDUCE_TAG)) {
      const op = line(user, 'Operation');
      const a = line(user, 'A');
      const b = /^B:/m.test(user) ? line(user, 'B') : undefined;
      const evidence = user.split('\nEvidence:\n')[1] ?? '';
      const custom = script.deduce?.(question, op, a, b, evidence);
      if (custom !== undefined) return JSON.stringify(custom);
      const value = (s: string): string => s.replace(/^[A-Za-z0-9_]+ = /, '').split('; ')[0];
      let answer = op === 'choice' || op === 'extraction' ? value(a) : 'no';
      if (op === 'choice' && b !== undefined && /lived longer/i.test(question)) {
        // The scripted "model" reads the (name, birth date, …) and (name, death date, …) facts it is shown.
        const lifespan = (who: string): number => {
          const date = (key: string) =>
            new RegExp(`\\(${who.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, ${key}, ([^)]+)\\)`).exec(
              evidence,
            )?.[1];
          const born = date('birth date');
          const died = date('death date');
          return born && died ? Date.parse(died) - Date.parse(born) : -Infinity;
        };
        // A computed comparison the plan made settles it; else the dates shown.
        const computed = /computed: \w+ = days\(\w+, \w+\) > days\(\w+, \w+\) = (yes|no)/.exec(evidence)?.[1];
        if (computed) answer = computed === 'yes' ? value(a) : value(b);
        else answer = lifespan(value(b)) > lifespan(value(a)) ? value(b) : value(a);
      }
      return JSON.stringify({ answer, reason: 'scripted' });
    }
    if (system.startsWith(REFLECT_TAG)) {
      const memory = user.split('Global memory:\n')[1] ?? '';
      const round = Number(/Round (\d+) of/.exec(user)?.[1] ?? 1);
      const custom = script.reflect?.(question, memory, round, messages);
      if (custom !== undefined) return typeof custom === 'string' ? custom : JSON.stringify(custom);
      const output = /output\([^)]*\) → ([^=]+) = (?!\(nothing\))([^,\n[]+)/.exec(memory);
      if (output) return JSON.stringify({ solved: true, answer: output[2].trim(), followUps: [] });
      return JSON.stringify({ solved: false, answer: '', followUps: [`Which passages answer: ${question}`] });
    }
    return undefined;
  };
}

// The prompts of the logical-form solver: plan, extract a value from passages, deduce, reflect. Each opens its
// system message with a fixed tag so a scripted test server (and a person reading logs) can tell them apart, and
// each asks for one JSON object whose shape the matching validator checks.
import type { ChatMessage } from '../llm/index.ts';
import { describeLanguage } from './schema.ts';

export const PLAN_TAG = '[logical-form planner]';
export const EXTRACT_TAG = '[logical-form passage reader]';
export const DEDUCE_TAG = '[logical-form deduce]';
export const REFLECT_TAG = '[logical-form reflection]';

const PLAN_EXAMPLE = `Example — "Which film came out first, Alpha or Beta?":
{"steps": [
 {"step": "retrieval", "s": {"var": "f", "type": "film", "names": ["Alpha", "Beta"]}, "p": "release date",
  "o": {"var": "d", "type": "date"}, "question": "When was each film released?"},
 {"step": "sort", "var": "f", "by": "d", "direction": "min", "limit": 1, "as": "first"},
 {"step": "output", "vars": ["first"]}]}`;

export function planMessages(question: string, followUps: readonly string[], memory: string): ChatMessage[] {
  const system = `${PLAN_TAG} You turn a question into an executable plan of logical-form steps over a knowledge
graph of (subject, predicate, object) facts and a set of passages. Symbolic work (ordering, counting, dates,
arithmetic, comparisons of numbers or dates) goes into sort and math steps, which run in code; deduce is for
judgements only the text can settle.
${describeLanguage()}
${PLAN_EXAMPLE}
Reply with ONLY the JSON object {"steps": [...]}.`;
  const parts = [`Question: ${question}`];
  if (followUps.length)
    parts.push(`Plan these follow-up questions:\n${followUps.map((q) => `- ${q}`).join('\n')}`);
  if (memory) parts.push(`Already known:\n${memory}`);
  return [
    { role: 'system', content: system },
    { role: 'user', content: parts.join('\n\n') },
  ];
}

export function extractMessages(
  question: string,
  expected: string,
  passages: readonly string[],
): ChatMessage[] {
  return [
    {
      role: 'system',
      content: `${EXTRACT_TAG} You read passages and state the value that answers a question, as the passages
give it. Reply with ONLY {"values": [string], "passages": [number]}: the answer values (dates as written, numbers
with their unit, names as written; [] when the passages do not say) and the numbers of the passages that state them.`,
    },
    {
      role: 'user',
      content: `Question: ${question}\nExpected: ${expected}\n\n${passages.map((p, i) => `[${i + 1}] ${p}`).join('\n\n')}`,
    },
  ];
}

export function deduceMessages(
  question: string,
  op: string,
  a: string,
  b: string | undefined,
  evidence: string,
): ChatMessage[] {
  return [
    {
      role: 'system',
      content: `${DEDUCE_TAG} You decide one reasoning step from the evidence only. Operations: entailment (does A
imply B: "yes"/"no"), greater / less / equal (is A greater than / less than / equal to B: "yes"/"no"), choice (which of
the options in A and B answers the question: the option as written), extraction (the answer to the question from
A). Reply with ONLY {"answer": string, "reason": string}.`,
    },
    {
      role: 'user',
      content: `Question: ${question}\nOperation: ${op}\nA: ${a}\n${b !== undefined ? `B: ${b}\n` : ''}\nEvidence:\n${evidence || '(none)'}`,
    },
  ];
}

export function reflectMessages(
  question: string,
  memory: string,
  round: number,
  maxRounds: number,
): ChatMessage[] {
  return [
    {
      role: 'system',
      content: `${REFLECT_TAG} You judge whether what has been established answers the question. Reply with ONLY
{"solved": boolean, "answer": string, "followUps": [string]}: when solved, the short answer and no follow-ups; when
not, "answer" is "" and 1 to 3 follow-up questions that would close the gap.`,
    },
    {
      role: 'user',
      content: `Question: ${question}\nRound ${round} of at most ${maxRounds}.\n\nGlobal memory:\n${memory || '(empty)'}`,
    },
  ];
}

// The answer prompt: numbered context passages [1], [2] … and the question, with instructions to cite passages by
// number and to say plainly when the passages do not contain the answer instead of guessing.
import type { ChatMessage } from '../llm/index.ts';

export const NO_ANSWER = 'The documents do not contain the answer.';

export interface AnswerContextItem {
  chunkId: string;
  /** Document title, shown to the model as a hint. */
  title?: string;
  /** The section heading of an excerpt (RetrievedChunk.heading), shown with the title. */
  heading?: string;
  text: string;
}

const ANSWER_SYSTEM = `You answer questions using only the numbered passages you are given.
- Cite every claim with the number of the passage that supports it, in square brackets, e.g. [1] or [2][3].
- Be concise: answer in one to three sentences, starting with the answer itself.
- If the passages do not contain the answer, reply exactly: ${NO_ANSWER}
- Do not use outside knowledge and do not guess.`;

/** Facts from the KG (mode kg/hybrid), given as extra hints that still must be cited through passages. */
export function buildAnswerMessages(
  question: string,
  context: readonly AnswerContextItem[],
  facts: readonly string[] = [],
): ChatMessage[] {
  const passages = context
    .map((c, i) => {
      const where = [c.title, c.heading]
        .filter((s): s is string => !!s)
        .map((s) => s.replace(/\s+/g, ' ').trim());
      return `[${i + 1}]${where.length ? ` (${where.join(' › ')})` : ''}\n${c.text.trim()}`;
    })
    .join('\n\n');
  const factBlock = facts.length
    ? `\n\nKnowledge-graph facts (cite the passages, not these):\n- ${facts.join('\n- ')}`
    : '';
  return [
    { role: 'system', content: ANSWER_SYSTEM },
    {
      role: 'user',
      content: `Context:\n${passages || '(no passages)'}${factBlock}\n\nQuestion: ${question.replace(/\s+/g, ' ').trim()}`,
    },
  ];
}

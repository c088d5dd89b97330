// The atomizing prompts. Atomizing alone: the chunk in, the questions it answers out (PIKE-RAG 5.3.1). One pass: the
// KG extraction prompt of src/core/kg with one more field asked for, so a single call per chunk feeds both the KG
// and the atomic layer and the KG prompt stays the one place its rules are written. The chunk text sits between
// the KG prompt's markers, so a scripted test server finds it the same way in every kind of call.
import { extractionMessages, EXTRACTION_MAX_TOKENS, TEXT_BEGIN, TEXT_END } from '../kg/index.ts';
import type { ChatMessage } from '../llm/index.ts';

/** At most this many questions per chunk unless configured otherwise. */
export const DEFAULT_MAX_QUESTIONS = 12;
/** The paper atomizes at temperature 0.7 ("a balance between diversity and determinism"). */
export const DEFAULT_ATOMIZE_TEMPERATURE = 0.7;
/** Output budget of one atomizing call (12 short questions fit in a few hundred tokens). */
export const ATOMIZE_MAX_TOKENS = 1024;

/** Marks a request as atomizing-only (the scripted server and logs tell the kinds of call apart by it). */
export const ATOMIZE_TAG = 'You write atomic questions';
/** Marks the one-pass request: the KG extraction prompt with the questions field added. */
export const ONE_PASS_TAG = 'Also add the field "questions"';

function questionRules(maxQuestions: number): string {
  return `- questions: up to ${maxQuestions} distinct questions that the text answers, as many as it supports. Each is
  self-contained (names the people, works, places, dates it is about, never "he", "it" or "the text") and
  answerable from the text alone. One fact per question. No question the text does not answer.`;
}

export function atomizeMessages(chunkText: string, maxQuestions: number): ChatMessage[] {
  return [
    {
      role: 'system',
      content: `${ATOMIZE_TAG} for a retrieval system: the questions that a text answers.
Return ONLY a JSON object of this exact shape, with no other text:
{"questions": [string]}
Rules:
${questionRules(maxQuestions)}
- If the text states nothing answerable, return {"questions": []}.`,
    },
    {
      role: 'user',
      content: `Write the questions this text answers.\n${TEXT_BEGIN}\n${chunkText}\n${TEXT_END}`,
    },
  ];
}

/** The KG extraction messages with the atomic questions asked for in the same object. */
export function onePassMessages(chunkText: string, maxQuestions: number): ChatMessage[] {
  return extractionMessages(chunkText).map((m) =>
    m.role === 'system'
      ? {
          ...m,
          content: `${m.content}
${ONE_PASS_TAG} to the same JSON object: {"questions": [string]}, where
${questionRules(maxQuestions)}
  If the text states nothing answerable, "questions" is [].`,
        }
      : m,
  );
}

/** Output budget of a one-pass call: the extraction's and the questions'. */
export const ONE_PASS_MAX_TOKENS = EXTRACTION_MAX_TOKENS + ATOMIZE_MAX_TOKENS;

// Strict validation of atomizing replies, with messages that name the field and the reason (they go back to the
// model in the one repair call). The one-pass reply is the KG extraction (validated by src/core/kg's own
// validator) plus the questions.
import { validateExtraction, type Extraction } from '../kg/index.ts';
import type { Checked } from '../llm/index.ts';

const MAX_QUESTION_CHARS = 400;

/**
 * The questions of a reply: non-empty strings, trimmed, duplicates (ignoring case) dropped, at most `max` (the cap
 * keeps the first ones; more than asked is not an error, the model was asked for "as many as it can").
 */
export function validateQuestions(value: unknown, max: number): Checked<string[]> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, errors: ['the top level must be an object with a "questions" array'] };
  }
  const list = (value as Record<string, unknown>).questions;
  if (!Array.isArray(list)) {
    return {
      ok: false,
      errors: [
        `"questions" must be an array of strings (got ${list === undefined ? 'nothing' : typeof list})`,
      ],
    };
  }
  const errors: string[] = [];
  const seen = new Set<string>();
  const out: string[] = [];
  list.forEach((q, i) => {
    if (typeof q !== 'string' || q.trim() === '') {
      errors.push(`questions[${i}] must be a non-empty string (got ${JSON.stringify(q) ?? 'nothing'})`);
      return;
    }
    const text = q.trim().replace(/\s+/g, ' ');
    if (text.length > MAX_QUESTION_CHARS) {
      errors.push(`questions[${i}] is longer than ${MAX_QUESTION_CHARS} characters: one short question each`);
      return;
    }
    const key = text.toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    out.push(text);
  });
  return errors.length ? { ok: false, errors } : { ok: true, value: out.slice(0, Math.max(0, max)) };
}

/** A one-pass reply: the KG extraction and the questions, each checked by its own validator. */
export function validateOnePass(
  value: unknown,
  max: number,
): Checked<{ extraction: Extraction; questions: string[] }> {
  const kg = validateExtraction(value);
  const questions = validateQuestions(value, max);
  const errors = [...(kg.ok ? [] : kg.errors), ...(questions.ok ? [] : questions.errors)];
  if (!kg.ok || !questions.ok) return { ok: false, errors };
  return { ok: true, value: { extraction: kg.value, questions: questions.value } };
}

// Reading a JSON object out of a model's reply: models wrap it in code fences or a sentence, and reasoning models
// think aloud first, so the object is found rather than assumed to be the whole reply.
import { messageOf } from '../errors.ts';

/** Pulls the JSON object out of a reply that may wrap it in a code fence or a sentence. */
export function parseJsonReply(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  // Reasoning models (DeepSeek-R1, Qwen3 …) think aloud first; braces in the thoughts must not be taken for JSON.
  text = stripThinking(text);
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  const candidate = fenced ? fenced[1] : text;
  const first = candidate.indexOf('{');
  const last = candidate.lastIndexOf('}');
  if (first < 0 || last <= first) return { ok: false, error: 'the reply contains no JSON object' };
  try {
    return { ok: true, value: JSON.parse(candidate.slice(first, last + 1)) };
  } catch (err) {
    return {
      ok: false,
      error: `the reply is not valid JSON (${messageOf(err)})`,
    };
  }
}

/** Removes `<think>…</think>` blocks (and an unclosed one at the start) that reasoning models emit. */
export function stripThinking(text: string): string {
  return text
    .replace(/<think>[\s\S]*?<\/think>/gi, '')
    .replace(/^\s*<think>[\s\S]*$/i, '')
    .trim();
}

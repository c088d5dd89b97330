// Scripted replies to PIKE-RAG's prompts for the scripted LLM server (tests, e2e, the CLI bench check): atomizing
// (one question per sentence of the chunk: "What about <sentence>?"), one-pass distillation (the scripted KG
// extraction plus the same questions), and the decomposition's proposals and selections. Deterministic, derived
// from the request alone, and overridable per test.
import { PROPOSE_TAG, SELECT_TAG } from '../../src/core/atomic/decompose.ts';
import { ATOMIZE_TAG, ONE_PASS_TAG } from '../../src/core/atomic/prompt.ts';
import { TEXT_BEGIN, TEXT_END } from '../../src/core/kg/index.ts';
import { scriptedExtraction, type ScriptedResponder } from './scriptedLlmServer.ts';

/**
 * The atomic questions the scripted server writes for a chunk text: one per sentence (headings skipped), in order, made
 * self-contained as a model is asked to: a sentence that does not name the chunk's first name (its subject) is
 * prefixed with it. "What about Lothair II: His mother was Ermengarde of Tours?"
 */
export function scriptedAtomicQuestions(text: string): string[] {
  const subject = /\b[A-Z][a-z]+(?: +(?:of +)?[A-Z][A-Za-z]*)*/.exec(text)?.[0] ?? '';
  // Sentences only: a heading line (a passage's title) ends with no punctuation and answers nothing.
  return (
    text
      .split(/(?<=[.!?])\s+|\n+/)
      .map((s) => s.trim())
      .filter((s) => /[.!?]$/.test(s))
      .map((s) => s.replace(/[.!?]+$/, ''))
      // A question is short (the validator refuses one over 400 characters): a long sentence gives its first words.
      .map((s) => s.split(/\s+/).slice(0, 40).join(' '))
      .map((s) => (subject && !s.includes(subject) ? `What about ${subject}: ${s}?` : `What about ${s}?`))
  );
}

export interface DecomposeView {
  question: string;
  /** Chunk texts of the context so far ([C1], [C2]…). */
  context: string[];
  /** Candidate texts as numbered in the prompt (index 0 is [1]). */
  candidates: string[];
}

export interface ScriptedPikeOptions {
  /** Sub-questions for a round; default: the question itself first, then one per name in the context. */
  propose?: (view: DecomposeView) => string[];
  /** The pick; default: candidate [1], sufficient once the context holds two chunks with the pick. */
  select?: (view: DecomposeView) => { choice: number | null; sufficient: boolean; reason?: string };
}

function chunkOf(messages: Array<{ role: string; content: string }>): string | undefined {
  const user = messages.find((m) => m.role === 'user' && m.content.includes(TEXT_BEGIN))?.content;
  if (!user) return undefined;
  return user.slice(user.indexOf(TEXT_BEGIN) + TEXT_BEGIN.length, user.indexOf(TEXT_END)).trim();
}

function viewOf(user: string): DecomposeView {
  const question = /^Question: (.*)$/m.exec(user)?.[1] ?? '';
  const context = [...user.matchAll(/^\[C\d+\] (.*)$/gm)].map((m) => m[1]);
  const after = user.indexOf('\nCandidates:\n');
  const candidates = after < 0 ? [] : [...user.slice(after).matchAll(/^\[\d+\] (.*)$/gm)].map((m) => m[1]);
  return { question, context, candidates };
}

/** Names (capitalized runs) of the context that the question does not mention: what to ask about next. */
function newNames(view: DecomposeView): string[] {
  const names: string[] = [];
  for (const text of view.context) {
    for (const m of text.matchAll(/\b[A-Z][a-z]+(?:\s+(?:of\s+)?[A-Z][a-z]+)*/g)) {
      if (!view.question.includes(m[0]) && !names.includes(m[0])) names.push(m[0]);
    }
  }
  return names;
}

const defaultPropose = (view: DecomposeView): string[] =>
  view.context.length === 0
    ? [view.question.replace(/\?$/, '')]
    : newNames(view).map((n) => `What about ${n}?`);

const defaultSelect = (view: DecomposeView) => ({
  choice: view.candidates.length ? 1 : null,
  sufficient: view.context.length + (view.candidates.length ? 1 : 0) >= 2,
  reason: view.candidates.length ? `[1] is the closest to the question` : 'nothing fits',
});

/** The responder to add to the scripted server (options.responders or addResponder). */
export function scriptedPike(options: ScriptedPikeOptions = {}): ScriptedResponder {
  return (messages) => {
    const system = messages.find((m) => m.role === 'system')?.content ?? '';
    // Repairs append turns: the request is read from its first user turn.
    const user = messages.find((m) => m.role === 'user')?.content ?? '';
    if (system.includes(ONE_PASS_TAG)) {
      const text = chunkOf(messages) ?? '';
      return JSON.stringify({ ...scriptedExtraction(text), questions: scriptedAtomicQuestions(text) });
    }
    if (system.includes(ATOMIZE_TAG)) {
      return JSON.stringify({ questions: scriptedAtomicQuestions(chunkOf(messages) ?? '') });
    }
    if (system.includes(PROPOSE_TAG)) {
      return JSON.stringify({ proposals: (options.propose ?? defaultPropose)(viewOf(user)) });
    }
    if (system.includes(SELECT_TAG)) {
      return JSON.stringify((options.select ?? defaultSelect)(viewOf(user)));
    }
    return undefined;
  };
}

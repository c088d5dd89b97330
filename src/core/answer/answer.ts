// Answer generation: the numbered context and the question go to the LLM, tokens stream back to the caller, and
// the finished text is parsed into citations (chunk id + best sentence) for the UI and the CLI.
import type { LlmClient } from '../llm/index.ts';
import { stripThinking } from '../llm/index.ts';
import type { CallUsage } from '../llm/index.ts';
import { parseCitations, isNoAnswer, type CitableChunk, type Citation } from './citations.ts';
import { buildAnswerMessages, type AnswerContextItem } from './prompt.ts';

export interface AnswerOptions {
  /** KG facts shown to the model as hints (kg/hybrid modes). */
  facts?: readonly string[];
  onDelta?: (delta: string) => void;
  signal?: AbortSignal;
  maxTokens?: number;
}

export interface Answer {
  text: string;
  citations: Citation[];
  /** The model said the documents do not contain the answer. */
  noAnswer: boolean;
  usage: CallUsage;
}

export async function answerQuestion(
  client: LlmClient,
  question: string,
  context: ReadonlyArray<AnswerContextItem & CitableChunk>,
  options: AnswerOptions = {},
): Promise<Answer> {
  const result = await client.chat({
    messages: buildAnswerMessages(question, context, options.facts),
    stream: true,
    temperature: 0,
    maxTokens: options.maxTokens ?? 800,
    onDelta: options.onDelta,
    signal: options.signal,
  });
  const text = stripThinking(result.text);
  return {
    text,
    citations: isNoAnswer(text) ? [] : parseCitations(text, context),
    noAnswer: isNoAnswer(text),
    usage: result.usage,
  };
}

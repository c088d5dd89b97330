// Structure-aware chunking: a parsed document → sections, chunks of at most maxTokens cl100k tokens, and sentences.
// Chunks never cross a section boundary and never cut a sentence; whole paragraphs are packed greedily and only a
// paragraph larger than the limit is split, between sentences. Tokens are counted once per sentence, plus once per
// finished chunk to check the exact total, so the cost is linear in the text length.
import { pageRange } from './pages.ts';
import type { ParsedDocument } from './parse/index.ts';
import { DEFAULT_MAX_SENTENCE_TOKENS, splitSentences } from './text/index.ts';
import { countTokens } from './text/index.ts';
import type { ChunkRecord, SectionRecord, SentenceRecord } from './types.ts';

/** Below this a chunk cannot hold an ordinary sentence; the UI and CLI offer 128–4096. */
export const MIN_CHUNK_TOKENS = 16;

export interface ChunkedDocument {
  sections: SectionRecord[];
  chunks: ChunkRecord[];
  sentences: SentenceRecord[];
}

interface Sentence {
  start: number;
  end: number;
  tokens: number;
}

const PARAGRAPH_BREAK = /\n[ \t\r\f\v]*\n/g;

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

const sectionId = (docId: string, section: number): string => `${docId}#${pad(section, 4)}`;
const chunkId = (docId: string, section: number, position: number): string =>
  `${docId}#${pad(section, 4)}#${pad(position, 4)}`;
const sentenceId = (docId: string, index: number): string => `${docId}:${pad(index, 6)}`;

/** Paragraphs of text[from, to) as sentence lists (each sentence at most sentenceLimit tokens). */
function sectionParagraphs(text: string, from: number, to: number, sentenceLimit: number): Sentence[][] {
  const paragraphs: Sentence[][] = [];
  const breaks = new RegExp(PARAGRAPH_BREAK.source, 'g');
  breaks.lastIndex = from;
  let start = from;
  while (start < to) {
    const match = breaks.exec(text);
    const end = match && match.index < to ? match.index : to;
    const spans = splitSentences(text, { maxTokens: sentenceLimit }, start, end);
    if (spans.length > 0) {
      paragraphs.push(spans.map((s) => ({ ...s, tokens: countTokens(text.slice(s.start, s.end)) })));
    }
    if (!match || match.index >= to) break;
    start = match.index + match[0].length;
  }
  return paragraphs;
}

/** Tokens of the text between two sentences (a space usually merges into the next word: 0; "\n\n": 1). */
function gapTokens(text: string, previous: Sentence, next: Sentence): number {
  const gap = text.slice(previous.end, next.start);
  return gap === ' ' ? 0 : countTokens(gap);
}

/**
 * Splits a parsed document into sections, chunks (≤ maxTokens tokens each) and sentences, with ids as in
 * src/core/types.ts. Throws when maxTokens is below MIN_CHUNK_TOKENS or the sections do not fit the text.
 */
export function chunkDocument(parsed: ParsedDocument, docId: string, maxTokens: number): ChunkedDocument {
  if (!Number.isFinite(maxTokens) || maxTokens < MIN_CHUNK_TOKENS) {
    throw new Error(`chunk: maxTokens must be a number ≥ ${MIN_CHUNK_TOKENS}, got ${maxTokens}`);
  }
  const { text } = parsed;
  const sentenceLimit = Math.min(DEFAULT_MAX_SENTENCE_TOKENS, maxTokens);
  const out: ChunkedDocument = { sections: [], chunks: [], sentences: [] };

  parsed.sections.forEach((section, sectionIndex) => {
    if (section.start < 0 || section.end > text.length || section.start > section.end) {
      throw new Error(
        `chunk: section ${sectionIndex} ("${section.heading}") of ${parsed.sourceName} has offsets ` +
          `${section.start}–${section.end} outside the text (length ${text.length})`,
      );
    }
    out.sections.push({
      id: sectionId(docId, sectionIndex),
      docId,
      index: sectionIndex,
      heading: section.heading,
      level: section.level,
      start: section.start,
      end: section.end,
    });

    // Where the heading text ends (sections open with their heading line).
    const headingEnd = section.level > 0 ? section.start + section.heading.length : section.start;
    let pending: Sentence[] = [];
    let pendingTokens = 0;
    let position = 0;

    const emit = (sentences: Sentence[]): void => {
      const start = sentences[0].start;
      const end = sentences[sentences.length - 1].end;
      const chunkText = text.slice(start, end);
      const tokens = countTokens(chunkText);
      // The sum of per-sentence counts is an estimate; if the exact count is over, move sentences to a new chunk.
      if (tokens > maxTokens && sentences.length > 1) {
        let cut = sentences.length - 1;
        while (cut > 1 && countTokens(text.slice(start, sentences[cut - 1].end)) > maxTokens) cut--;
        emit(sentences.slice(0, cut));
        emit(sentences.slice(cut));
        return;
      }
      const id = chunkId(docId, sectionIndex, position);
      const firstSentence = out.sentences.length;
      for (const s of sentences) {
        const index = out.sentences.length;
        out.sentences.push({
          id: sentenceId(docId, index),
          docId,
          chunkId: id,
          index,
          start: s.start,
          end: s.end,
          text: text.slice(s.start, s.end),
        });
      }
      const chunk: ChunkRecord = {
        id,
        docId,
        sectionIndex,
        position,
        order: out.chunks.length,
        start,
        end,
        text: chunkText,
        tokens,
        firstSentence,
        sentenceCount: sentences.length,
      };
      if (parsed.pageStarts?.length) Object.assign(chunk, pageRange(parsed.pageStarts, start, end));
      out.chunks.push(chunk);
      position++;
    };
    const flush = (): void => {
      if (pending.length > 0) emit(pending);
      pending = [];
      pendingTokens = 0;
    };
    const add = (sentence: Sentence): void => {
      const last = pending[pending.length - 1];
      const joined = last
        ? pendingTokens + gapTokens(text, last, sentence) + sentence.tokens
        : sentence.tokens;
      if (last && joined > maxTokens) {
        flush();
        pending = [sentence];
        pendingTokens = sentence.tokens;
        return;
      }
      pending.push(sentence);
      pendingTokens = joined;
    };

    for (const paragraph of sectionParagraphs(text, section.start, section.end, sentenceLimit)) {
      let paragraphTokens = paragraph[0].tokens;
      for (let i = 1; i < paragraph.length; i++) {
        paragraphTokens += gapTokens(text, paragraph[i - 1], paragraph[i]) + paragraph[i].tokens;
      }
      const last = pending[pending.length - 1];
      const separator = last ? gapTokens(text, last, paragraph[0]) : 0;
      // A paragraph that fits in a chunk of its own is never split: it opens a new chunk if this one is too full —
      // unless the chunk holds only the section's heading, which belongs with the text that follows it.
      const headingOnly =
        section.level > 0 &&
        position === 0 &&
        pending.length > 0 &&
        pending[pending.length - 1].end <= headingEnd;
      if (
        last &&
        !headingOnly &&
        paragraphTokens <= maxTokens &&
        pendingTokens + separator + paragraphTokens > maxTokens
      ) {
        flush();
      }
      for (const sentence of paragraph) add(sentence);
    }
    flush();
  });
  return out;
}

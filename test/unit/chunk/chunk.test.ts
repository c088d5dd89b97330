import { describe, expect, it } from 'vitest';
import { chunkDocument, MIN_CHUNK_TOKENS } from '../../../src/core/chunk.ts';
import type { ParsedDocument } from '../../../src/core/parse/types.ts';
import { countTokens } from '../../../src/core/text/tokens.ts';

function parsed(text: string, sections?: ParsedDocument['sections']): ParsedDocument {
  return {
    title: 't',
    text,
    mime: 'text/plain',
    sourceName: 't.txt',
    size: text.length,
    sections: sections ?? [{ heading: '', level: 0, start: 0, end: text.length }],
  };
}

/** Every invariant the rest of the app relies on. */
function checkInvariants(doc: ParsedDocument, maxTokens: number): ReturnType<typeof chunkDocument> {
  const out = chunkDocument(doc, 'dabc', maxTokens);
  const ids = out.chunks.map((c) => c.id);
  expect([...ids].sort()).toEqual(ids);
  expect(out.sentences.map((s) => s.id)).toEqual([...out.sentences.map((s) => s.id)].sort());
  out.chunks.forEach((chunk, order) => {
    expect(chunk.order).toBe(order);
    expect(chunk.tokens).toBe(countTokens(chunk.text));
    expect(chunk.tokens).toBeLessThanOrEqual(maxTokens);
    expect(chunk.text).toBe(doc.text.slice(chunk.start, chunk.end));
    const section = doc.sections[chunk.sectionIndex];
    expect(chunk.start).toBeGreaterThanOrEqual(section.start);
    expect(chunk.end).toBeLessThanOrEqual(section.end);
    const own = out.sentences.slice(chunk.firstSentence, chunk.firstSentence + chunk.sentenceCount);
    expect(own.every((s) => s.chunkId === chunk.id)).toBe(true);
    expect(own[0].start).toBe(chunk.start);
    expect(own[own.length - 1].end).toBe(chunk.end);
  });
  expect(out.chunks.reduce((n, c) => n + c.sentenceCount, 0)).toBe(out.sentences.length);
  out.sentences.forEach((s, i) => {
    expect(s.index).toBe(i);
    expect(s.text).toBe(doc.text.slice(s.start, s.end));
  });
  return out;
}

describe('chunkDocument', () => {
  it('builds ids and records exactly as the data model says', () => {
    const text = 'Dr. Smith went to Washington. He arrived.';
    const out = chunkDocument(parsed(text), 'd0123456789abcdef', 100);
    expect(out.sections).toEqual([
      {
        id: 'd0123456789abcdef#0000',
        docId: 'd0123456789abcdef',
        index: 0,
        heading: '',
        level: 0,
        start: 0,
        end: 41,
      },
    ]);
    expect(out.chunks).toEqual([
      {
        id: 'd0123456789abcdef#0000#0000',
        docId: 'd0123456789abcdef',
        sectionIndex: 0,
        position: 0,
        order: 0,
        start: 0,
        end: 41,
        text,
        tokens: countTokens(text),
        firstSentence: 0,
        sentenceCount: 2,
      },
    ]);
    expect(out.sentences.map((s) => [s.id, s.chunkId, s.start, s.end, s.text])).toEqual([
      ['d0123456789abcdef:000000', 'd0123456789abcdef#0000#0000', 0, 29, 'Dr. Smith went to Washington.'],
      ['d0123456789abcdef:000001', 'd0123456789abcdef#0000#0000', 30, 41, 'He arrived.'],
    ]);
  });

  it('packs whole paragraphs greedily and opens a new chunk rather than splitting one that fits', () => {
    // Each paragraph is 2 sentences of 5 tokens: "Alpha beta gamma delta." = 5 tokens.
    const p = 'Alpha beta gamma delta. Alpha beta gamma delta.';
    expect(countTokens(p)).toBe(10);
    const text = [p, p, p].join('\n\n');
    const out = checkInvariants(parsed(text), 22);
    // Estimate p + "\n\n" (1 token) + p = 21 ≤ 22 (exactly 20: ".\n\n" is one token); a third paragraph would
    // not fit, so it starts chunk 2 whole instead of being split.
    expect(out.chunks.map((c) => [c.text, c.tokens])).toEqual([
      [`${p}\n\n${p}`, 20],
      [p, 10],
    ]);
  });

  it('splits a paragraph larger than the limit between sentences, never inside one', () => {
    const sentence = 'The quick brown fox jumps over the lazy dog.'; // 10 tokens
    const text = Array.from({ length: 7 }, () => sentence).join(' ');
    const out = checkInvariants(parsed(text), 25);
    expect(out.chunks.map((c) => c.sentenceCount)).toEqual([2, 2, 2, 1]);
    for (const s of out.sentences) expect(s.text).toBe(sentence);
  });

  it('never crosses a section boundary and keeps a heading with the text that follows', () => {
    const heading = 'History of the Town and Its People';
    const body = 'The town was founded early. It grew fast. It is old.';
    const text = `Intro line.\n\n${heading}\n\n${body}\n\nToday\n\nIt is quiet.`;
    const history = text.indexOf(heading);
    const today = text.indexOf('Today');
    const sections = [
      { heading: '', level: 0, start: 0, end: history },
      { heading, level: 1, start: history, end: today },
      { heading: 'Today', level: 1, start: today, end: text.length },
    ];
    const out = checkInvariants(parsed(text, sections), 1000);
    expect(out.chunks.map((c) => [c.id, c.text])).toEqual([
      ['dabc#0000#0000', 'Intro line.'],
      ['dabc#0001#0000', `${heading}\n\n${body}`],
      ['dabc#0002#0000', 'Today\n\nIt is quiet.'],
    ]);
    // The body (≤ 16 tokens) would fit a chunk of its own, but not with the heading: rather than leave the heading
    // alone in a chunk, the body is split after its first sentence.
    expect(countTokens(body)).toBeLessThanOrEqual(16);
    expect(countTokens(`${heading}\n\n${body}`)).toBeGreaterThan(16);
    const tight = checkInvariants(parsed(text, sections), 16);
    expect(tight.chunks.filter((c) => c.sectionIndex === 1).map((c) => c.text)).toEqual([
      `${heading}\n\nThe town was founded early.`,
      'It grew fast. It is old.',
    ]);
  });

  it('cuts a sentence-less run of words so that no chunk exceeds the limit and no word is lost', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `w${i}`).join(' ');
    const out = checkInvariants(parsed(text), 128);
    expect(out.chunks.length).toBeGreaterThan(10);
    expect(out.sentences.map((s) => s.text).join(' ')).toBe(text);
  });

  it('handles CJK text and empty documents', () => {
    const cjk = '今日は晴れです。明日は雨ですか？そうです！';
    expect(checkInvariants(parsed(cjk), 100).sentences.map((s) => s.text)).toEqual([
      '今日は晴れです。',
      '明日は雨ですか？',
      'そうです！',
    ]);
    expect(chunkDocument(parsed('', []), 'dabc', 100)).toEqual({ sections: [], chunks: [], sentences: [] });
  });

  it('rejects a tiny limit and sections outside the text', () => {
    expect(() => chunkDocument(parsed('x'), 'd', MIN_CHUNK_TOKENS - 1)).toThrow(/chunk: maxTokens must be/);
    expect(() =>
      chunkDocument(parsed('abc', [{ heading: 'h', level: 1, start: 0, end: 9 }]), 'd', 100),
    ).toThrow(/chunk: section 0 \("h"\) of t\.txt has offsets 0–9 outside the text \(length 3\)/);
  });
});

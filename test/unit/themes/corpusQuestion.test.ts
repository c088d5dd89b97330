// The recogniser of a corpus-wide question: every word says nothing of a subject, and one asks for the contents.
// Questions written here, not taken from the recogniser's word lists: rephrasings it was not built from included.
import { describe, expect, it } from 'vitest';
import { isCorpusQuestion } from '../../../src/core/themes/index.ts';

describe('isCorpusQuestion', () => {
  it.each([
    'What is this about?',
    'what is this library about',
    'What are the main topics?',
    'What are the main themes of these documents?',
    'What does this library cover?',
    'Summarize the documents.',
    'Give me an overview of the collection',
    "What's in these files? Summarize them briefly.",
    'Which topics do these docs cover?',
    'What are these documents mostly about?',
    'Can you give a high-level summary of everything here?',
    'What subjects does the corpus discuss?',
    'WHAT IS IT ALL ABOUT',
  ])('recognises %j', (q) => expect(isCorpusQuestion(q)).toBe(true));

  it.each([
    '这些文档讲什么？',
    '这些文档讲了什么',
    '主要内容是什么？',
    '这个库的主题有哪些',
    '请概括一下这些资料',
    '这些文件都是关于什么的？',
  ])('recognises the Chinese %j', (q) => expect(isCorpusQuestion(q)).toBe(true));

  it.each([
    // A content word makes it an ordinary question, even with a cue.
    'What is Vue about?',
    'What are the main themes of Hamlet?',
    'Summarize the reactivity documentation',
    'What topics does the Rust reference cover about lifetimes?',
    'How does computed caching differ from a method?',
    'When is the onMounted hook called?',
    'Who directed the film that won the award?',
    'What are props?',
    'What are the main components?',
    // No cue: it does not ask for the contents.
    'What is this?',
    'Who wrote these documents?',
    'How many files are there?',
    '',
    'Vue的主要内容是什么？',
    '如何声明响应式状态？',
    '这些文档的作者是谁',
  ])('does not take %j for a corpus-wide question', (q) => expect(isCorpusQuestion(q)).toBe(false));
});

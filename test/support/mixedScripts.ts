// The small library of two scripts that the tests of word statistics per script (scriptStatistics) share: English
// notes and Chinese ones whose words are picked in a fixed pattern, so that their frequencies differ, and the
// questions asked of it in both scripts. Each test assembles its notes (passages, files, documents) around these.
import type { RetrievalInput } from '../../src/core/retrieval/index.ts';

/** Chinese words of a component library's documentation. */
const CHINESE = [
  '组件',
  '渲染',
  '状态',
  '属性',
  '事件',
  '模板',
  '路由',
  '钩子',
  '函数',
  '数据',
  '更新',
  '页面',
  '插槽',
];

/** English words of places; `ENGLISH_WITH_CANAL` has "canal" for "city" (the stream and keep-mask fixtures). */
export const ENGLISH = [
  'river',
  'bridge',
  'city',
  'mill',
  'harbour',
  'castle',
  'market',
  'valley',
  'abbey',
  'ferry',
  'tower',
];
export const ENGLISH_WITH_CANAL = [...ENGLISH.filter((w) => w !== 'city'), 'canal'];

/** The five English words of note i. */
export function englishWords(i: number, words: readonly string[] = ENGLISH): string[] {
  return [0, 1, 2, 3, 4].map((j) => words[(i * (j + 1) + j) % words.length]);
}

/** The five Chinese words of note i. */
export function chineseWords(i: number): string[] {
  return [0, 1, 2, 3, 4].map((j) => CHINESE[(i * (j + 2) + j) % CHINESE.length]);
}

/** Questions in both scripts, each answered by notes of its own script. */
export const MIXED_QUESTIONS = [
  '组件如何接收属性？',
  '路由钩子在什么时候更新页面',
  'Which mill stands by the river?',
  '插槽 模板',
];

/**
 * The notes as passages of one chunk each (d00…): 30 English ones (each dated `in 17xx` with `years`) and, unless
 * `englishOnly`, 30 Chinese ones.
 */
export function mixedPassages({ years = false, englishOnly = false } = {}): RetrievalInput {
  const texts: string[] = [];
  for (let i = 0; i < 30; i++) {
    const w = englishWords(i);
    const date = years ? ` in ${1700 + i}` : '';
    texts.push(`The ${w[0]} of ${w[1]} stands by the ${w[2]}. A ${w[3]} was built near the ${w[4]}${date}.`);
  }
  if (!englishOnly)
    for (let i = 0; i < 30; i++) {
      const w = chineseWords(i);
      texts.push(`${w[0]}通过${w[1]}接收${w[2]}，并在${w[3]}变化时重新${w[4]}。`);
    }
  return {
    chunks: texts.map((text, d) => ({
      id: `d${String(d).padStart(2, '0')}#0000#0000`,
      docId: `d${String(d).padStart(2, '0')}`,
      text,
      tokens: text.length,
      start: 0,
    })),
    sentences: [],
  };
}

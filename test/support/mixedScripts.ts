// The small library of two scripts that the tests of word statistics per script (scriptStatistics) share: English
// notes and Chinese ones whose words are picked in a fixed pattern, so that their frequencies differ, and the
// questions asked of it in both scripts. Each test assembles its notes (passages, files, documents) around these.

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

// Segmenter fragments: the single characters Intl.Segmenter leaves where its dictionary lacks a Chinese word.
//
// ICU's Chinese dictionary is weighted to traditional and general text, so many simplified technical words come
// out cut into characters: 文档 → 文|档, 语义 → 语|义, 构建 → 构|建, 知识图谱 → 知识|图|谱. A lone character
// is then in a third of a paper's paragraphs (语 in 42 of 149), so as a concept it is a hub that links every
// passage to every other, and the walk spreads a question's mass over all of them. What the writer meant is
// the run of characters: adjacent fragments are joined back into one candidate (文档, 语义, 图谱) and a
// fragment alone is no candidate. BM25 keeps the characters as the segmenter gives them (question and passage
// are cut alike, so they still match); only the concept candidates change.
import { isStopWord } from './stopwords.ts';
import type { WordToken } from './words.ts';

const ONE_HAN = /^\p{Script=Han}$/u;

/** Whether a token is a segmenter fragment: one Han character that is not a function word (的, 是, 把). */
function isFragment(term: string): boolean {
  return ONE_HAN.test(term) && !isStopWord(term);
}

/**
 * The concept words of a token list with fragments joined: each token that is not a fragment as given, and each
 * run of two or more adjacent fragments (nothing between them in the text) as one word; a lone fragment is left out.
 */
export function joinFragments(tokens: readonly WordToken[]): Array<{ term: string; joined: boolean }> {
  const out: Array<{ term: string; joined: boolean }> = [];
  let run: WordToken[] = [];
  const flush = (): void => {
    if (run.length >= 2) out.push({ term: run.map((t) => t.term).join(''), joined: true });
    run = [];
  };
  for (const token of tokens) {
    if (isFragment(token.term)) {
      if (run.length > 0 && run[run.length - 1].end !== token.start) flush();
      run.push(token);
      continue;
    }
    flush();
    out.push({ term: token.term, joined: false });
  }
  flush();
  return out;
}

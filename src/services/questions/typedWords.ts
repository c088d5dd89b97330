// The words of a question a person has finished typing, which the Ask box has read ahead as they come
// (QueryService.prepare): the text but a word still being typed at its end. A word of a script written with spaces
// is finished by the space or the mark after it; ideographs (Chinese, Japanese) come whole from an input method, so a
// run of them counts as typed, while the Latin letters an input method shows before it converts them do not.

/** A run of letters or digits at the end of the text, of a script that puts spaces between its words. */
const UNFINISHED = /[\p{L}\p{N}\p{M}_'’-]+$/u;
const IDEOGRAPHS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/** The text up to the word still being typed at its end (the whole text when it ends with a space, mark or ideograph). */
export function finishedWords(text: string): string {
  const last = UNFINISHED.exec(text);
  if (!last) return text;
  // Within the run, an ideograph ends what was typed: what follows it is what the input method has not converted yet.
  let cut = last.index;
  for (let i = last[0].length - 1; i >= 0; i--) {
    if (IDEOGRAPHS.test(last[0][i])) {
      cut = last.index + i + 1;
      break;
    }
  }
  return text.slice(0, cut);
}

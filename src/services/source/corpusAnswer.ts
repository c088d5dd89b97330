// Whether ask() answers a question with the library's themes: in the default mode, when the question asks about the
// whole library (core/themes/corpusQuestion.ts) and the source has themes. Any other question, mode or source goes
// the ordinary way.
import { DEFAULT_MODE, type RetrievedChunk } from '../../core/retrieval/index.ts';
import { isCorpusQuestion } from '../../core/themes/index.ts';
import type { ParsedMode } from '../questions/modeRegistry.ts';
import type { AskRequest } from '../questions/queryProtocol.ts';
import type { LibrarySource, SourceQuestion } from './librarySource.ts';
import { themesAnswer } from './themesAnswer.ts';
import type { ThemesOverview } from '../themes/themesProtocol.ts';

export async function corpusAnswer(
  source: LibrarySource,
  question: SourceQuestion,
  request: AskRequest,
  mode: ParsedMode,
  budget: number,
): Promise<{ hits: RetrievedChunk[]; overview: ThemesOverview } | null> {
  if (mode.name !== DEFAULT_MODE) return null;
  if (!source.themes || !isCorpusQuestion(request.question)) return null;
  const themes = await source.themes();
  if (!themes || themes.themes.length === 0) return null;
  const answer = await themesAnswer(themes, question, (text) => source.terms(text), budget);
  return answer.hits.length > 0 ? answer : null;
}

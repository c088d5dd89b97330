// The one place that chooses where a question reads its library: the library in memory, a paged index (a bundle
// read by ranges, or the library's own stored pages), or the stored chunks by words while its pages are awaited.
// A new kind of library is one more case here and one LibrarySource; a new RangeSource needs neither (it is a
// PagedLibrary's bytes).
import type { PagedLibrary } from '../../core/paged/index.ts';
import type { QuestionLibrary } from '../library/questionLibrary.ts';
import type { PagesAwaited, StoredPages } from '../library/storedPages.ts';
import type { LibrarySource, SourceLayers } from './librarySource.ts';
import { memorySource } from './memorySource.ts';
import { pagedSource } from './pagedSource.ts';
import { storedThemesSource, type StoredThemes } from './storedThemesSource.ts';
import { wordsSource } from './wordsSource.ts';
import { withoutDocuments } from '../themes/themesOf.ts';

export type SourceAt =
  /** A library loaded into memory; `name`: how a refusal names it ("this bundle"). */
  | ({ library: QuestionLibrary; name?: string } & SourceLayers)
  /** A paged index read by ranges (a bundle over any RangeSource). */
  | ({ paged: PagedLibrary } & SourceLayers)
  /** The library's own stored pages: a large library, answered from them to stay within the tab's memory. */
  | ({ stored: StoredPages } & SourceLayers)
  /** A large library whose pages are not written yet. */
  | { awaited: PagesAwaited }
  /** The themes stored with the library's graph, for a corpus-wide question while the library is not loaded. */
  | { storedThemes: StoredThemes };

export function openSource(at: SourceAt): LibrarySource {
  if ('awaited' in at) return wordsSource(at.awaited, { chunks: at.awaited.chunks });
  if ('storedThemes' in at) return storedThemesSource(at.storedThemes);
  if ('library' in at) return memorySource(at.library, at);
  if ('paged' in at) return pagedSource(at.paged, at);
  const { themes } = at.stored;
  return pagedSource(at.stored.library, {
    ...(themes ? { themes: () => Promise.resolve(withoutDocuments(themes, at.stored.removed)) } : {}),
    ...at,
    removed: at.stored.removed,
    from: 'pages',
    answering: (modes) =>
      `this library (${at.stored.chunks.toLocaleString('en')} chunks) is answered from its paged index to stay within the ` +
      `tab’s memory, which answers ${modes}`,
  });
}

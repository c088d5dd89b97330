// The one place that chooses where a question reads its library: the library in memory, a paged index (a bundle
// read by ranges, or the library's own stored pages), or the stored chunks by words while its pages are awaited.
// A new kind of library is one more case here and one LibrarySource; a new RangeSource needs neither (it is a
// PagedLibrary's bytes).
import type { PagedBundle, PagedLibrary } from '../../core/paged/index.ts';
import type { QuestionLibrary } from '../library/questionLibrary.ts';
import { pagedLayers } from '../library/readOnlyBundle.ts';
import type { PagesAwaited, StoredPages } from '../library/storedPages.ts';
import type { StoredThemes } from '../library/storedThemes.ts';
import { withoutDocuments } from '../themes/themesOf.ts';
import type { LibrarySource, SourceLayers } from './librarySource.ts';
import { memorySource } from './memorySource.ts';
import { pagedSource } from './pagedSource.ts';
import { storedThemesSource } from './storedThemesSource.ts';
import { wordsSource } from './wordsSource.ts';

export type SourceAt =
  /** A library loaded into memory; `name`: how a refusal names it ("this bundle"). */
  | ({ library: QuestionLibrary; name?: string } & SourceLayers)
  /** A paged index read by ranges (a bundle over any RangeSource), with the layers given. */
  | ({ paged: PagedLibrary } & SourceLayers)
  /** A bundle read by ranges: its paged index and the layers it holds. */
  | { bundle: PagedBundle }
  /**
   * The library's own stored pages: a large library, answered from them to stay within the tab's memory; while
   * they are not written yet (`awaiting`), its stored chunks by words.
   */
  | ({ pages: StoredPages | PagesAwaited } & SourceLayers)
  /** The themes stored with the library's graph, for a corpus-wide question while the library is not loaded. */
  | { storedThemes: StoredThemes };

export function openSource(at: SourceAt): LibrarySource {
  if ('storedThemes' in at) return storedThemesSource(at.storedThemes);
  if ('library' in at) return memorySource(at.library, at);
  if ('paged' in at) return pagedSource(at.paged, at);
  if ('bundle' in at) return pagedSource(at.bundle.library, pagedLayers(at.bundle));
  const { pages } = at;
  if ('awaiting' in pages) return wordsSource(pages, { chunks: pages.chunks });
  const { themes } = pages;
  return pagedSource(pages.library, {
    ...(themes ? { themes: () => Promise.resolve(withoutDocuments(themes, pages.removed)) } : {}),
    ...at,
    removed: pages.removed,
    from: 'pages',
    answering: (modes) =>
      `this library (${pages.chunks.toLocaleString('en')} chunks) is answered from its paged index to stay within the ` +
      `tab’s memory, which answers ${modes}`,
  });
}

// Whether stored pages index the library as it was before its latest changes (a drop goes on, a removal since):
// their stamp against the library's stamp now (src/store/pagesRepo.ts). The app does not ask it; tests read it to
// show which pages were opened.
import type { StoredPages } from '../../src/services/library/storedPages.ts';
import type { ConceptDb } from '../../src/store/db.ts';
import { PagesRepo } from '../../src/store/pagesRepo.ts';

export async function pagesLagging(db: ConceptDb, pages: Pick<StoredPages, 'stamp'>): Promise<boolean> {
  return (await new PagesRepo(db).libraryStamp()).stamp !== pages.stamp;
}

// Bundles as the page handles them: the library exported as one file, a bundle file imported (asked about first when
// the tab will likely not hold it, bundleFit.ts) or opened read-only, and a shared bundle opened read-only from
// ?bundle=… (downloaded, or read by ranges). A bundle opened read-only becomes what the views show and questions read
// (LibraryState.readOnly) until the page is reloaded.
import { proxy } from 'comlink';
import { download } from '../files.ts';
import { queryParam } from '../url.ts';
import { ingestWorker, queryWorker } from '../workers.ts';
import { offlineCopy } from './offlineCopy.svelte.ts';
import { kgApi } from '../llm/api.ts';
import { browserMemoryBudget } from '../estimates/memoryEstimate.ts';
import {
  checkBundleFit,
  readBundleFacts,
  wholeBundleRefusal,
  type BundleShortfall,
} from '../estimates/bundleFit.ts';
import { PendingChoice } from './pendingChoice.svelte.ts';
import type { LibraryHost } from './libraryHost.ts';
import { messageOf } from '../../core/errors.ts';

export class LibraryBundles {
  /** A bundle about to be imported that the tab will likely not hold (bundleFit.ts): read-only by ranges, or import. */
  readonly bundleFit = new PendingChoice<BundleShortfall, 'read-only' | 'import'>();
  /** Export/import in progress, with what it is doing. */
  bundleBusy = $state<string | null>(null);
  /** The shared index this page opens read-only (?bundle=…), known from the first render on; else null. */
  readonly bundleUrl: string | null = typeof location === 'undefined' ? null : queryParam('bundle');
  /** ?bundle=…: why the shared index could not be opened (null while it loads or once it is open). */
  bundleError = $state<string | null>(null);
  /** ?bundle=…: bytes of the shared index downloaded so far, and its size when the server states it. */
  bundleDownload = $state<{ received: number; total: number | null } | null>(null);

  constructor(private readonly library: LibraryHost) {}

  /** Opens the shared bundle of ?bundle=… read-only (the page's start, instead of the local library). */
  async openReadOnly(url: string): Promise<void> {
    this.bundleBusy = `Opening ${url}…`;
    this.bundleDownload = { received: 0, total: null };
    const onProgress = (received: number, total: number | null) => {
      this.bundleDownload = { received, total };
    };
    try {
      // Both workers are told in this same task, before any question can be asked, so neither ever answers
      // from the local library (a question asked while the bundle downloads waits for it).
      // Read whole, the bundle's documents header is checked against this tab's memory before their text is read.
      const fit = (library: { textBytes: number; vectors: boolean }) =>
        wholeBundleRefusal(url, library, browserMemoryBudget());
      const [opened] = await Promise.all([
        queryWorker().openBundle(url, proxy(onProgress), proxy(fit)),
        kgApi().useBundle(),
      ]);
      // Its documents, listed like the library's own (a bundle read by ranges has none to list up front).
      const documents = await queryWorker()
        .bundleDocuments()
        .catch(() => null);
      this.library.showReadOnly({ ...opened, documents }, opened.counts.vectors ?? 0);
      offlineCopy.opened(url, opened.offlineCopy, opened.fromOfflineCopy, opened.offlineCopyDropped);
    } catch (error) {
      this.bundleError = messageOf(error);
      // A copy kept for offline use stays removable although the bundle did not open (LibraryOpening).
      void offlineCopy.failedToOpen(url);
      throw error;
    } finally {
      this.bundleBusy = null;
      this.bundleDownload = null;
    }
  }

  /** Downloads the library as one bundle file. */
  async exportBundle(): Promise<void> {
    this.library.message = null;
    this.library.notice = null;
    this.bundleBusy = 'Exporting…';
    try {
      const { blob, fileName } = await ingestWorker().exportBundle();
      download(fileName, blob);
      this.library.notice = `Exported ${fileName} (${(blob.size / 1024 / 1024).toFixed(1)} MB).`;
    } finally {
      this.bundleBusy = null;
    }
  }

  /**
   * Opens a bundle file read-only, read by ranges (a bundle from `cli index --pages`): nothing is imported or
   * stored, questions read only the blocks they need. The page stays read-only until it is reloaded.
   */
  async openBundleFile(file: File): Promise<void> {
    this.library.message = null;
    this.library.notice = null;
    this.bundleBusy = `Opening ${file.name}…`;
    try {
      const [opened] = await Promise.all([
        queryWorker().openBundleFile(file, file.name),
        kgApi().useBundle(),
      ]);
      this.library.showReadOnly(opened, 0);
    } catch (error) {
      this.library.message = `Bundle ${file.name} not opened: ${messageOf(error)}`;
    } finally {
      this.bundleBusy = null;
    }
  }

  /**
   * Imports a bundle file: validated completely first; a refused bundle leaves the library untouched. One the tab
   * will likely not hold once imported is asked about first (bundleFit.ts): with pages it can be opened read-only.
   */
  async importBundle(file: File): Promise<void> {
    const library = this.library;
    library.message = null;
    library.notice = null;
    const facts = await readBundleFacts(file);
    const shortfall =
      facts &&
      checkBundleFit(facts, { storedSentences: library.counts.sentences, budget: browserMemoryBudget() });
    if (shortfall) {
      const choice = await this.bundleFit.ask(shortfall);
      if (choice === 'stop') {
        library.message = `${file.name} was not imported: your library is unchanged.`;
        return;
      }
      if (choice === 'read-only') return this.openBundleFile(file);
    }
    this.bundleBusy = `Importing ${file.name}…`;
    try {
      const result = await ingestWorker().importBundle(file);
      library.notice =
        `Imported ${file.name}: ${result.added.documents} document(s) added` +
        (result.skippedDocuments > 0 ? `, ${result.skippedDocuments} already in the library.` : '.');
    } catch (error) {
      library.message = `Bundle ${file.name} refused: ${messageOf(error)}`;
    } finally {
      this.bundleBusy = null;
      await library.refresh();
    }
  }
}

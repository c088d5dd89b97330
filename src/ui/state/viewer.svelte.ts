// The document viewer: one source document, opened at a sentence (character offsets) that is highlighted.
import { pageAt } from '../../core/pages.ts';
import type { DocumentRecord } from '../../core/types.ts';
import { queryWorker } from '../workers.ts';
import { pageRepo } from './db.ts';

class ViewerState {
  doc = $state<DocumentRecord | null>(null);
  start = $state(0);
  end = $state(0);
  error = $state<string | null>(null);
  /** The page of the highlighted sentence, where the document has pages (PDF). */
  readonly page = $derived(
    this.doc?.pageStarts?.length ? pageAt(this.doc.pageStarts, this.start) : undefined,
  );

  /** Where keyboard focus goes back to when the viewer closes (what opened it, or what the opener named). */
  private opener: HTMLElement | null = null;

  /** The element focus returns to on close, instead of the one that had it when the viewer opened. */
  returnFocusTo(element: HTMLElement | null): void {
    this.opener = element;
  }

  /** Opens a document; `fromBundle` reads it from the read-only bundle in the query worker, not IndexedDB. */
  async open(docId: string, start: number, end: number, fromBundle = false): Promise<void> {
    this.error = null;
    if (
      !this.doc &&
      !this.opener &&
      typeof document !== 'undefined' &&
      document.activeElement instanceof HTMLElement
    )
      this.opener = document.activeElement;
    const doc = fromBundle
      ? await queryWorker().getDocument(docId)
      : await pageRepo().db.documents.get(docId);
    if (!doc) {
      this.error = `Document ${docId} is no longer in the library.`;
      this.doc = null;
      return;
    }
    this.doc = doc;
    this.start = Math.max(0, Math.min(start, doc.text.length));
    this.end = Math.max(this.start, Math.min(end, doc.text.length));
  }

  close(): void {
    if (!this.doc) return;
    this.doc = null;
    const opener = this.opener;
    this.opener = null;
    // After the dialog has left the page: focus goes back where the reader was.
    if (opener?.isConnected) queueMicrotask(() => opener.focus({ preventScroll: true }));
  }
}

export const viewer = new ViewerState();

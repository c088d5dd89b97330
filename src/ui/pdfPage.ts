// The original page of a PDF in the viewer: pdf.js draws it on a canvas from the file's bytes. The store keeps the
// text, not the files (a library of PDFs would double in size), so the bytes come from the person: a PDF added in
// this session is still at hand (its File handle is remembered, not its bytes); after a reload they choose the
// file once, it is checked against what was indexed (its size), and kept in memory for the rest of the session.
// pdf.js runs in the page, loaded only when a page is shown, with its worker module imported into this thread as
// the parser does (src/core/parse/pdfjs.ts): no worker URL to serve.
import { loadPdfJs, type PdfJs } from '../core/parse/index.ts';
import type { DocumentRecord, PageWord } from '../core/types.ts';

/** PDF bytes chosen in this session, by document id. */
const kept = new Map<string, Uint8Array>();
/** PDFs added in this session, by file name and size (what a document record keeps of its file). */
const added = new Map<string, Pick<File, 'size' | 'arrayBuffer'>>();
const fileKey = (name: string, size: number): string => `${size}\u0000${name}`;

/** Remembers the PDFs among files being added, so their pages can be shown without choosing them again. */
export function rememberAddedPdfs(
  files: readonly { name: string; file: Pick<File, 'size' | 'arrayBuffer'> }[],
): void {
  for (const { name, file } of files) {
    if (/\.pdf$/i.test(name)) added.set(fileKey(name, file.size), file);
  }
}

/** The PDF's bytes when this session has them (chosen, or added in this session); undefined otherwise. */
export async function pdfBytesOf(
  doc: Pick<DocumentRecord, 'id' | 'sourceName' | 'size'>,
): Promise<Uint8Array | undefined> {
  const bytes = kept.get(doc.id);
  if (bytes) return bytes;
  const file = added.get(fileKey(doc.sourceName, doc.size));
  if (!file) return undefined;
  // A file that can no longer be read (moved, or its handle expired) is asked for instead.
  const read = await file.arrayBuffer().then(
    (buffer) => new Uint8Array(buffer),
    () => undefined,
  );
  if (read) kept.set(doc.id, read);
  return read;
}

/**
 * Keeps a chosen file's bytes for a document, after checking it is the file that was indexed. Throws an Error
 * naming the file and the reason otherwise.
 */
export async function keepChosenPdf(
  doc: Pick<DocumentRecord, 'id' | 'sourceName' | 'size'>,
  file: File,
): Promise<Uint8Array> {
  if (file.size !== doc.size) {
    throw new Error(
      `${file.name} is not the file indexed as ${doc.sourceName} (${file.size.toLocaleString('en')} bytes, ` +
        `the indexed file had ${doc.size.toLocaleString('en')})`,
    );
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  kept.set(doc.id, bytes);
  return bytes;
}

/** A pdf.js text item: its string, its transform (text space → page space) and its width in page units. */
interface TextItemLike {
  str: string;
  transform: number[];
  width: number;
}

/**
 * Draws page `pageNumber` (1-based) of the PDF on the canvas, `width` CSS pixels wide, and returns its text layer
 * as boxes in fractions of the page (empty for a scan: its words are in the document's record instead).
 */
export async function renderPdfPage(
  bytes: Uint8Array,
  pageNumber: number,
  canvas: HTMLCanvasElement,
  width: number,
): Promise<PageWord[]> {
  const lib = await loadPdfJs();
  // pdf.js detaches the buffer it is given: a copy keeps ours for the next page.
  const task = lib.getDocument({ data: bytes.slice(), isEvalSupported: false, verbosity: 0 });
  const document = await task.promise;
  try {
    const page = await document.getPage(Math.min(Math.max(1, pageNumber), document.numPages));
    const base = page.getViewport({ scale: 1 });
    const ratio = globalThis.devicePixelRatio || 1;
    const viewport = page.getViewport({ scale: (width / base.width) * ratio });
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    canvas.style.width = `${Math.floor(viewport.width / ratio)}px`;
    await page.render({ canvas, viewport }).promise;
    const content = await page.getTextContent();
    const items = content.items.filter((item) => 'str' in item) as unknown as TextItemLike[];
    return items.flatMap((item) => textBox(lib, base, item));
  } finally {
    await document.destroy();
  }
}

/** A text item's box on the page (as pdf.js's own text layer places it): from its baseline up by its font size. */
function textBox(
  lib: PdfJs,
  viewport: { transform: number[]; width: number; height: number },
  item: TextItemLike,
): PageWord[] {
  if (!item.str.trim()) return [];
  const [, , c, d, e, f] = lib.Util.transform(viewport.transform, item.transform) as number[];
  const size = Math.hypot(c, d);
  const clamp = (v: number): number => Math.min(1, Math.max(0, v));
  return [
    {
      text: item.str,
      x0: clamp(e / viewport.width),
      // Ascenders reach about the font size above the baseline, descenders a fifth of it below.
      y0: clamp((f - size) / viewport.height),
      x1: clamp((e + item.width) / viewport.width),
      y1: clamp((f + size * 0.2) / viewport.height),
    },
  ];
}

// pdf.js, loaded on first use only (it is ~1.5 MB of code), for the parser (pdf.ts) and the viewer's pages
// (src/ui/pdfPage.ts). pdf.js normally parses in its own web worker. We import its worker module into the current
// thread instead (it registers globalThis.pdfjsWorker, which pdf.js then uses as a same-thread "fake worker"): that
// works the same in Node, in vitest, in the page and inside our own Vite-bundled module worker, with no workerSrc
// URL to serve.
export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | undefined;

export function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= (async () => {
    await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return pdfjs;
}

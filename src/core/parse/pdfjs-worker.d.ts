// pdf.js ships no typings for its worker module; importing it only registers globalThis.pdfjsWorker.
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs';

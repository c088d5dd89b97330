// The browser's recogniser and its page store, for the parse worker. Every file comes from the app's own origin
// (public/tesseract, copied from node_modules by src/tools/copy-assets.mjs; the service worker keeps them for offline
// use once fetched): tesseract.js's own worker is started from there as a Web Worker inside the parse worker.
import { tesseractEngine } from './tesseract.ts';

/** A path of the app's origin, from a worker whose script sits in /assets/ (built) or /workers/ (dev). */
function appUrl(path: string): string {
  return new URL(`../${path}`, self.location.href).href;
}

export function browserOcrEngine(): ReturnType<typeof tesseractEngine> {
  return tesseractEngine({
    workerPath: appUrl('tesseract/worker.min.js'),
    corePath: appUrl('tesseract/core/'),
    langPath: () => appUrl('tesseract/lang'),
    image: (bytes) => new Blob([bytes as Uint8Array<ArrayBuffer>]),
  });
}

type Made = { canvas: OffscreenCanvas | null; context: OffscreenCanvasRenderingContext2D | null };

/**
 * pdf.js's canvases in a worker (its default makes them with `document`, which a worker has not): a page whose text
 * is drawn as outlines is drawn here to be recognised. Same methods as pdf.js's BaseCanvasFactory.
 */
export class OffscreenCanvasFactory {
  create(width: number, height: number): Made {
    if (width <= 0 || height <= 0) throw new Error('Invalid canvas size');
    const canvas = new OffscreenCanvas(width, height);
    return { canvas, context: canvas.getContext('2d', { willReadFrequently: true }) };
  }

  reset(made: Made, width: number, height: number): void {
    if (!made.canvas) throw new Error('Canvas is not specified');
    made.canvas.width = width;
    made.canvas.height = height;
  }

  destroy(made: Made): void {
    if (made.canvas) {
      made.canvas.width = 0;
      made.canvas.height = 0;
    }
    made.canvas = null;
    made.context = null;
  }
}

// The CLI's recogniser: Tesseract in a worker_threads thread, with its WASM core from tesseract.js-core and the
// language data from @tesseract.js-data/<lang> in node_modules (the LSTM "best_int" models, the same files the
// browser gets from the app's /tesseract/ folder). Nothing is fetched.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { OcrLanguage } from '../core/parse/index.ts';
import { tesseractEngine } from '../services/ocr/tesseract.ts';

const require = createRequire(import.meta.url);

export function nodeOcrEngine(): ReturnType<typeof tesseractEngine> {
  return tesseractEngine({
    langPath: (language: OcrLanguage) =>
      dirname(require.resolve(`@tesseract.js-data/${language}/4.0.0_best_int/${language}.traineddata.gz`)),
    image: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
  });
}

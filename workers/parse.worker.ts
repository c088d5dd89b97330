// The parse worker: prepareFile (parse → hash → chunk) in a thread of its own, so that a file that takes too long,
// or a Cancel, can stop it by terminating this worker (parseRunner.ts spawns a fresh one for the next file). The
// ingest worker cannot be terminated that way: it holds the queue, the embedder and the store writes.
import { expose } from 'comlink';
import { createParseService } from '../src/services/ingest/parseService.ts';
import { browserOcrEngine, OffscreenCanvasFactory } from '../src/services/ocr/browserOcr.ts';
import { IdbOcrPageStore } from '../src/services/ocr/ocrPageStore.ts';
import { reportOwnOriginLoads } from '../src/services/ledger/ledger.ts';

// Its loads from the app's own origin (scripts, pdf.js) are counted apart from the network ledger.
reportOwnOriginLoads('parse');

// The recogniser (tesseract.js, its WASM and language data from /tesseract/) loads on the first scanned page only.
let engine: ReturnType<typeof browserOcrEngine> | undefined;
expose(
  createParseService({
    engine: async () => (engine ??= browserOcrEngine()),
    store: new IdbOcrPageStore(),
    CanvasFactory: OffscreenCanvasFactory,
  }),
);

// The indexing worker: the ingest service (src/services/ingest/ingest.ts) over the IndexedDB library, with the real
// parser in a parse worker of its own, the embedder chosen in Settings and this tab's cross-tab lock.
import { expose } from 'comlink';
import packageJson from '../package.json';
import { openDatabase } from '../src/store/db.ts';
import { Repo } from '../src/store/repo.ts';
import { browserCrossTabLock } from '../src/services/library/crossTab.ts';
import { EmbedderHolder, spawnEmbedWorker } from '../src/services/embed/embedders.ts';
import { createIngestService } from '../src/services/ingest/ingest.ts';
import { spawnParseWorker, WorkerParser } from '../src/services/ingest/parseRunner.ts';
import { reportOwnOriginLoads } from '../src/services/ledger/ledger.ts';
import { IdbOcrPageStore } from '../src/services/ocr/ocrPageStore.ts';

const parser = new WorkerParser(spawnParseWorker);
const service = createIngestService({
  repo: new Repo(openDatabase()),
  prepare: parser.prepare,
  prepareMany: parser.prepareMany,
  releaseParser: () => parser.terminate(),
  // Sentences are embedded by a pool of embedding workers (cores − 1, or the Settings value); with one worker
  // the model runs here, as the query worker's does.
  embedders: new EmbedderHolder({ spawnEmbedWorker }),
  lock: browserCrossTabLock('ingest', self.name),
  appVersion: packageJson.version,
  ocrPages: new IdbOcrPageStore(),
});

// Its loads from the app's own origin (scripts, model files) are counted apart from the network ledger.
reportOwnOriginLoads('ingest');

expose(service);

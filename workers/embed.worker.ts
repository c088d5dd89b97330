// One embedding worker of the pool (src/services/embedPool.ts, started by src/services/embedders.ts): it loads the
// embedder the pool names, once, and embeds the batches it is sent.
import { expose } from 'comlink';
import { createEmbedWorkerService } from '../src/services/embedders.ts';

const service = createEmbedWorkerService();

export type EmbedWorkerApi = typeof service;

expose(service);

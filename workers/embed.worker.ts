// One embedding worker of the pool (src/services/embed/embedPool.ts, started by src/services/embed/embedders.ts): it loads the
// embedder the pool names, once, and embeds the batches it is sent.
import { expose } from 'comlink';
import { createEmbedWorkerService } from '../src/services/embed/embedders.ts';
import { reportOwnOriginLoads } from '../src/services/ledger/ledger.ts';

const service = createEmbedWorkerService();

// Its loads from the app's own origin (scripts, model files) are counted apart from the network ledger.
reportOwnOriginLoads('embed');

expose(service);

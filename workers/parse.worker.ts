// The parse worker: prepareFile (parse → hash → chunk) in a thread of its own, so that a file that takes too long,
// or a Cancel, can stop it by terminating this worker (parseRunner.ts spawns a fresh one for the next file). The
// ingest worker cannot be terminated that way: it holds the queue, the embedder and the store writes.
import { expose } from 'comlink';
import { prepareFile } from '../src/core/prepare.ts';
import { reportOwnOriginLoads } from '../src/services/ledger.ts';

const api = {
  prepare(name: string, bytes: Uint8Array, options: { maxChunkTokens: number }) {
    return prepareFile(name, bytes, options);
  },
  /**
   * Several small files in one call (one round trip instead of one per file); a file that cannot be read gets
   * its own error and the others their documents.
   */
  async prepareMany(files: Array<{ name: string; bytes: Uint8Array }>, options: { maxChunkTokens: number }) {
    const out: Array<Awaited<ReturnType<typeof prepareFile>> | { error: string }> = [];
    for (const { name, bytes } of files) {
      try {
        out.push(await prepareFile(name, bytes, options));
      } catch (error) {
        out.push({ error: error instanceof Error ? error.message : String(error) });
      }
    }
    return out;
  },
};

export type ParseApi = typeof api;

// Its loads from the app's own origin (scripts, pdf.js) are counted apart from the network ledger.
reportOwnOriginLoads('parse');

expose(api);

// What the parse worker serves (workers/parse.worker.ts only exposes it): prepareFile (parse → hash → chunk) in a
// thread of its own, so that parseRunner.ts can stop a file that takes too long, or a Cancel, by terminating it.
import { prepareFile } from '../../core/prepare.ts';

export function createParseService() {
  return {
    prepare(name: string, bytes: Uint8Array, options: { maxChunkTokens: number }) {
      return prepareFile(name, bytes, options);
    },
    /**
     * Several small files in one call (one round trip instead of one per file); a file that cannot be read gets
     * its own error and the others their documents.
     */
    async prepareMany(
      files: Array<{ name: string; bytes: Uint8Array }>,
      options: { maxChunkTokens: number },
    ) {
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
}

/** The parse worker's API as parseRunner.ts calls it. */
export type ParseApi = ReturnType<typeof createParseService>;

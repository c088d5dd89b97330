// Node file I/O for bundles (CLI only): stream a bundle from disk through the validating reader, and write one
// through a temporary file that is renamed into place, so a crash never leaves a half-written bundle at --out.
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import process from 'node:process';
import { readIndexBundle, type EmbedderInfo, type IndexSnapshot } from '../core/bundle/index.ts';

/**
 * The size of a bundle file, which must be a regular file: opening a FIFO waits for a writer that never comes (`cli
 * ask`, `info` and `upgrade` hung on one), and a device or a folder is no bundle either.
 */
export async function bundleFileSize(path: string): Promise<number> {
  const found = await stat(path).catch(() => {
    throw new Error(`bundle file ${path} does not exist or cannot be read`);
  });
  if (!found.isFile())
    throw new Error(
      `bundle file ${path} is not a regular file (a pipe, device or folder is not read as a bundle)`,
    );
  return found.size;
}

export async function readBundleFile(
  path: string,
  expectEmbedder?: EmbedderInfo | null,
): Promise<IndexSnapshot> {
  const size = await bundleFileSize(path);
  // A Node file stream is an async iterable of Buffers (Uint8Array views): read in 1 MB chunks. The file's size
  // bounds every length the bundle declares.
  return readIndexBundle(createReadStream(path, { highWaterMark: 1 << 20 }), expectEmbedder, {
    totalBytes: size,
  });
}

/** Writes the chunks to `path` atomically; returns the byte count. */
export async function writeBundleFile(path: string, chunks: AsyncIterable<Uint8Array>): Promise<number> {
  const temp = `${path}.tmp-${process.pid}`;
  const out = createWriteStream(temp);
  let bytes = 0;
  try {
    for await (const chunk of chunks) {
      bytes += chunk.length;
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    await rename(temp, path);
    return bytes;
  } catch (error) {
    // The stream opens its file asynchronously: removed before the open completes, the file would be created
    // after the removal (a CI run left failed.bundle.tmp-…). Close first, then remove.
    if (!out.closed) {
      await new Promise<void>((resolve) => {
        out.once('close', () => resolve());
        out.destroy();
      });
    }
    await rm(temp, { force: true });
    throw error;
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(2)} MB`;
}

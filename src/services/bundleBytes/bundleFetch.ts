// Opens a bundle read-only from a URL (`?bundle=`): the same-origin rule, the redirect check every read of a bundle
// link makes, the download counted as it arrives, and the bundle read whole from it.
import {
  readIndexBundle,
  snapshotCounts,
  type BundleHead,
  type EmbedderInfo,
  type PartEntry,
} from '../../core/bundle/index.ts';
import type { LoadedCorpus } from '../../store/libraryRepo.ts';
import { snapshotToCorpus } from '../../store/bundleImport.ts';

export interface ReadOnlyBundle {
  corpus: LoadedCorpus;
  /** The bundle's other layers (the KG: kgEntities, kgRelations, kgChunks), records as the store keeps them. */
  tables: Record<string, unknown[]>;
  counts: Record<string, number>;
  embedder: EmbedderInfo | null;
  /** Where the bundle came from (resolved, same-origin). */
  url: string;
}

/** Bytes of a bundle downloaded so far, and its size when the server states it (else null). */
export type DownloadProgress = (received: number, total: number | null) => void;

/**
 * Asked, before a bundle opened whole is read past its documents' header, whether the library it holds fits this
 * tab: the page answers from its memory model (src/ui/estimates/bundleFit.ts) with the message to show, or null.
 */
export type WholeBundleFit = (library: {
  /** The documents' text (the decoded size of documents.jsonl). */
  textBytes: number;
  /** Whether it carries sentence vectors. */
  vectors: boolean;
}) => Promise<string | null> | string | null;

/**
 * The body's size, when the server states it for the bytes we read (not for a compressed transfer): every length the
 * bundle declares is then checked against it before anything is allocated.
 */
export function statedLength(response: Response): number | undefined {
  const length = Number(response.headers.get('content-length') ?? NaN);
  const plain = !response.headers.get('content-encoding');
  return plain && Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/** The body, its bytes so far told to `onProgress` as they pass (the Library view shows "3.1 of 9.5 MB"). */
export function counted(
  body: ReadableStream<Uint8Array>,
  total: number | null,
  onProgress: DownloadProgress,
): ReadableStream<Uint8Array> {
  let received = 0;
  onProgress(0, total);
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength;
        onProgress(received, total);
        controller.enqueue(chunk);
      },
    }),
  );
}

/** A ?bundle= path or URL resolved against the app's origin; anything on another origin is refused. */
export function sameOriginBundleUrl(url: string, origin: string): URL {
  let resolved: URL;
  try {
    resolved = new URL(url, origin || undefined);
  } catch {
    throw new Error(`open bundle: "${url}" is not a valid path or URL`);
  }
  if (resolved.origin !== origin) {
    throw new Error(
      `open bundle: ${resolved.href} is not on this site (${origin}); only same-origin bundles open`,
    );
  }
  return resolved;
}

/**
 * Refuses an answer that came from another origin than the bundle URL asked (a redirect the browser or Node
 * followed): only the app's own origin serves its bundles, so a same-origin link that answers 302 to a stranger's host
 * must not open that host's bundle under the link's name (nor have the service worker keep it). Checked on the URL the
 * response came from, for the range probe, every range read and every whole download.
 */
export function checkAnsweredFrom(requested: string, response: Response): void {
  if (response.type === 'opaqueredirect')
    throw new Error(`open bundle: ${requested} answered with a redirect; link the bundle's own address`);
  if (!response.url) return; // a response made in the page (a download kept in memory), not fetched
  const from = new URL(response.url).origin;
  if (from !== new URL(requested).origin) {
    void response.body?.cancel().catch(() => undefined);
    throw new Error(
      `open bundle: ${requested} redirected to ${from}, another origin; a bundle link is read from this app's ` +
        'origin only',
    );
  }
}

/**
 * Opens a bundle from `?bundle=<path or URL>` read-only: nothing is written to IndexedDB. Only the app's own
 * origin is allowed, so a link cannot make the app fetch from elsewhere.
 */
export async function openBundleReadOnly(
  url: string,
  origin: string = globalThis.location?.origin ?? '',
  fetcher: typeof fetch = fetch,
  onProgress?: DownloadProgress,
  fit?: WholeBundleFit,
): Promise<ReadOnlyBundle> {
  const resolved = sameOriginBundleUrl(url, origin);
  const response = await fetcher(resolved.href);
  checkAnsweredFrom(resolved.href, response);
  if (!response.ok || !response.body) {
    throw new Error(
      `open bundle: ${resolved.href} answered ${response.status} ${response.statusText}`.trim(),
    );
  }
  const totalBytes = statedLength(response);
  const body = onProgress ? counted(response.body, totalBytes ?? null, onProgress) : response.body;
  // The documents' header states their text before it is read: a library the tab cannot hold stops the download
  // there, with the page's reason, instead of filling the tab until it reloads.
  const onPart = async (entry: PartEntry, head: BundleHead): Promise<void> => {
    if (!fit || entry.name !== 'documents.jsonl') return;
    const refusal = await fit({ textBytes: entry.rawLength, vectors: head.embedder !== null });
    if (refusal) throw new Error(refusal);
  };
  const snapshot = await readIndexBundle(body, undefined, { totalBytes, onPart });
  return {
    corpus: snapshotToCorpus(snapshot),
    tables: snapshot.tables,
    counts: snapshotCounts(snapshot),
    embedder: snapshot.embedder,
    url: resolved.href,
  };
}

// The bundle API in one import: write an index to a v1 bundle stream, read one back fully validated.
// FORMAT.md beside this file documents the bytes.
import type { ByteInput } from './byteSource.ts';
import type { EmbedderInfo } from './format.ts';
import { readBundle, type ReadOptions } from './reader.ts';
import {
  indexParts,
  manifestBase,
  snapshotFromBundle,
  type ExportOptions,
  type IndexSnapshot,
} from './snapshot.ts';
import { writeBundle } from './writer.ts';

export * from './format.ts';
export { checkLocatedParts, readBundle, type ReadOptions } from './reader.ts';
export { writeBundle, bundleStream, bundleBytes, type StreamedPart } from './writer.ts';
export { mergeSnapshots } from './merge.ts';
export { concatBytes, type ByteInput } from './byteSource.ts';
export {
  decodeTablePart,
  snapshotCounts,
  snapshotFromBundle,
  tablePartName,
  withoutText,
  type ExportOptions,
  type IndexSnapshot,
} from './snapshot.ts';

/** Streams an in-memory snapshot as bundle bytes, with its counts in the manifest. */
export function writeSnapshotBundle(
  snapshot: IndexSnapshot,
  options: ExportOptions,
): AsyncGenerator<Uint8Array> {
  return writeBundle(indexParts(snapshot, options), manifestBase(snapshot, options.appVersion));
}

/**
 * Reads, validates and decodes a bundle. Every check (bytes, digests, manifest, embedder, cross-layer
 * consistency) passes before the snapshot is returned; otherwise a BundleError says why.
 */
export async function readIndexBundle(
  input: ByteInput,
  expectEmbedder?: EmbedderInfo | null,
  options: Omit<ReadOptions, 'expectEmbedder'> = {},
): Promise<IndexSnapshot> {
  const read = await readBundle(input, { ...options, expectEmbedder });
  return snapshotFromBundle(read, expectEmbedder);
}

export type { VectorEncoding } from './codecs.ts';
export { dequantizeInt8, quantizeInt8 } from './codecs.ts';
export { BUNDLE_EXTENSION } from './format.ts';
export {
  entityMentions,
  kgChunkIds,
  layerRecordKey,
  layerRecordsToMerge,
  layerStateTable,
  mergeDocuments,
  mergeLayerRecord,
  mergedGraph,
  relationMentions,
} from './merge.ts';
export type { MergeBase } from './merge.ts';
// What a library read by ranges (src/core/paged) shares with the bundle: the structured codec, gzip and SHA-256.
export { decodeStructured, encodeStructured } from './codecs.ts';
export { gunzip, gzip } from './compress.ts';
export { sha256, Sha256, toHex } from './sha256.ts';

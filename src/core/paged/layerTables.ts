// The LLM-built layers of a bundle read by ranges: its KG tables (table.kgEntities.bin, …) are read whole, each in
// one range, beside the pages. The KG covers only the PageRank-selected core chunks, so its tables are small next
// to the pages; each is checked as the whole read checks it (declared sizes, the SHA-256 the digested manifest
// gives, the records' shapes) before anything is decoded from it.
import {
  BundleError,
  checkLocatedParts,
  decodeTablePart,
  gunzip,
  Sha256,
  tablePartName,
  toHex,
  type BundleManifest,
  type PartEntry,
} from '../bundle/index.ts';
import type { RangeSource } from './rangeSource.ts';

export interface LayerTables {
  /** The records of each table the bundle holds (a table it lacks is absent). */
  tables: Record<string, unknown[]>;
  /** Bytes read from the source for them. */
  bytes: number;
}

/** Reads the named layer tables of a version 3 bundle by ranges, each part whole and checked. */
export async function readLayerTables(
  source: RangeSource,
  manifest: BundleManifest,
  names: readonly string[],
): Promise<LayerTables> {
  const wanted: Array<{ name: string; entry: PartEntry }> = [];
  for (const name of names) {
    const entry = manifest.parts.find((p) => p.name === tablePartName(name));
    if (entry) wanted.push({ name, entry });
  }
  checkLocatedParts(
    wanted.map((w) => w.entry),
    source.size,
  );
  const tables: Record<string, unknown[]> = {};
  let bytes = 0;
  // One read per part, all in flight at once (a URL source answers each with its own request).
  const stored = await Promise.all(wanted.map(({ entry }) => source.read(entry.offset!, entry.length)));
  for (const [i, { name, entry }] of wanted.entries()) {
    const data = stored[i];
    bytes += data.length;
    if (toHex(new Sha256().update(data).digest()) !== entry.sha256)
      throw new BundleError('corrupted', `corrupted (SHA-256 mismatch in part ${entry.name})`, entry.name);
    const payload = entry.encoding === 'gzip' ? await gunzip(data, entry.rawLength) : data;
    tables[name] = decodeTablePart(name, entry, payload, manifest.embedder);
  }
  return { tables, bytes };
}

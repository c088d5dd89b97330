// A bundle's part found through its version 3 locator (the last 12 bytes: the manifest's offset and length), for
// tests that compare the parts two writers made.
import type { BundleManifest } from '../../src/core/bundle/index.ts';

/** A part's bytes and manifest entry's meta. */
export function partOf(bundle: Uint8Array, name: string): { bytes: Uint8Array; meta: unknown } {
  const view = new DataView(bundle.buffer, bundle.byteOffset, bundle.byteLength);
  const at = view.getUint32(bundle.length - 12, true) + view.getUint32(bundle.length - 8, true) * 2 ** 32;
  const length = view.getUint32(at + 4, true);
  const manifest = JSON.parse(
    new TextDecoder().decode(bundle.subarray(at + 12, at + 12 + length)),
  ) as BundleManifest;
  const entry = manifest.parts.find((p) => p.name === name);
  if (!entry) throw new Error(`no part ${name}`);
  return { bytes: bundle.subarray(entry.offset!, entry.offset! + entry.length), meta: entry.meta };
}

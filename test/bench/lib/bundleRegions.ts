// The regions of a bundle file a question's reads are split by (question-bytes.ts, read-bound.ts): the head
// (preamble, manifest, locator), the pages' block hashes, and each section of pages.bin.
import { blockLayoutOf, sectionsOf, type PagesDirectory } from '../../../src/core/paged/format.ts';
import { readManifestByRanges } from '../../../src/core/paged/index.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import type { Region } from './taggedSource.ts';

export /** The bundle's regions: head (preamble, manifest and locator), the pages' hashes, and each pages section. */
async function regionsOf(data: Uint8Array, name: string): Promise<{ regions: Region[]; d: PagesDirectory }> {
  const source = new MemoryRangeSource(data, name);
  const manifest = await readManifestByRanges(source);
  if (!manifest) throw new Error(`${name}: not a version 3 bundle (no manifest to read by ranges)`);
  const pages = manifest.parts.find((p) => p.name === 'pages.bin');
  const hashes = manifest.parts.find((p) => p.name === 'pages.sha256');
  if (!pages?.offset || !hashes?.offset)
    throw new Error(`${name}: no pages part (index it with --embedder none --pages)`);
  const d = pages.meta as unknown as PagesDirectory;
  const tail = new DataView(data.buffer, data.byteOffset + data.length - 12, 8);
  const manifestAt = tail.getUint32(0, true) + tail.getUint32(4, true) * 2 ** 32;
  const regions: Region[] = [
    { name: 'head', start: 0, end: 12 },
    { name: 'head', start: manifestAt, end: data.length },
    { name: 'hashes', start: hashes.offset, end: hashes.offset + hashes.length },
  ];
  // Version 13's paths (blockPaths) lie after the rows' blocks: the rows' region holds them, the sections after it
  // lie that much later (the directory's offsets are without them). Version 17's lists' paths: the lists' region
  // holds them, the rows' lies that much later.
  const layout = d.blockPaths ? blockLayoutOf(d, pages.length ?? 0) : undefined;
  const paths = layout?.pathsLength ?? 0;
  const rowsPaths = d.blockPaths && d.rowBlocks ? d.rowBlocks.count * 48 : 0;
  const listsPaths = paths - rowsPaths;
  const shift: Partial<Record<string, number>> = { rows: listsPaths, degrees: paths };
  const grow: Partial<Record<string, number>> = { lists: listsPaths, rows: rowsPaths };
  for (const s of sectionsOf(d.version)) {
    const [logical, sectionLength] = d.sections[s];
    const at = logical + (shift[s] ?? 0);
    const length = sectionLength + (grow[s] ?? 0);
    // Version 12's evidence blocks (evidenceArrays) apart from the records they end.
    const evidence = s === 'records' ? (d.evidenceArrays?.bytes ?? 0) : 0;
    regions.push({ name: s, start: pages.offset + at, end: pages.offset + at + length - evidence });
    if (evidence > 0)
      regions.push({
        name: 'evidence',
        start: pages.offset + at + length - evidence,
        end: pages.offset + at + length,
      });
  }
  return { regions, d };
}

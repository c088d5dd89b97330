// What blocks that carry the path to their leaf page's hash would cost the blocks a question actually reads (round
// twenty-two, issue 47's slow link): a model, not a layout. The idea: each block of a zone is stored followed by its 3
// siblings on the way from its hash to its leaf page's hash (8 block hashes of 16 bytes taken in pairs), and the leaf
// page's hash in the level above is that Merkle root; a block of the zone is then checked from its own bytes and the
// level-1 page alone, and the leaf pages only its zone's blocks need are not read.
// The reads come from `link-sim.ts --trace` (every request's ranges of cold questions on the bundle given, the Ask
// view's first page). For each set of zones carrying paths, per question: the ranges of `pages.sha256` lose the leaf
// pages whose every block is of those zones (a range left with nothing is a range less; one left with pieces is as
// many ranges as pieces), and every block of those zones read (each time it is read, gap blocks too) brings 48 bytes
// more. The level-1 pages are read as before (every rows leaf page's hash is there). Printed p50 / max over the
// questions: data KB, ranges, on the wire at --part-overhead (data + ranges × part; a request's own headers are the
// same before and after, left out), each before → after, and the part's growth (48 bytes a block of the zones).
// Usage: node --import tsx test/bench/block-paths.ts <x.bundle> <trace.jsonl> [--part-overhead 120]
import { readFile } from 'node:fs/promises';
import { sectionsOf } from '../../src/core/paged/format.ts';
import { arg } from './lib/args.ts';
import { median, openTracedBundle } from './lib/tracedBundle.ts';

/** A block's path: 3 sibling hashes of 16 bytes (a leaf page of 8). */
const PATH = 48;
const PARTS = arg('part-overhead', '120,90').split(',').map(Number);

async function main(): Promise<void> {
  const { bundlePath, tracePath, directory, store } = await openTracedBundle(
    'usage: block-paths.ts <x.bundle> <trace.jsonl> [--part-overhead 120,90]',
  );
  const { layout, levels } = store;
  if (!levels?.length) throw new Error(`${bundlePath}: block hashes not read by pages`);
  const leaf = levels[0];
  const perLeaf = leaf.pageSize / leaf.entry;
  // Each block's zone: its section, and the records' evidence blocks apart (version 12).
  const zoneOf = new Array<string>(layout.count);
  const evidenceFrom = directory.evidenceArrays
    ? directory.sections.records[0] + directory.sections.records[1] - directory.evidenceArrays.bytes
    : Infinity;
  for (const name of sectionsOf(directory.version)) {
    const [at, length] = directory.sections[name];
    if (length === 0) continue;
    for (let b = layout.blockOf(at); b <= layout.blockOf(at + length - 1); b++)
      zoneOf[b] = name === 'records' && layout.startOf(b) >= evidenceFrom ? 'evidence' : name;
  }
  const zones = [...new Set(zoneOf)];
  const blocksIn = new Map(zones.map((z) => [z, zoneOf.filter((x) => x === z).length]));
  const pagesEnd = store.base + store.length;
  const hashesAt = store.hashes.offset;
  const leafPages = Math.ceil(leaf.length / leaf.pageSize);
  const leafZones: Array<Set<string>> = Array.from({ length: leafPages }, (_, p) => {
    const s = new Set<string>();
    for (let b = p * perLeaf; b < Math.min((p + 1) * perLeaf, layout.count); b++) s.add(zoneOf[b]);
    return s;
  });
  const questions = (await readFile(tracePath, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { requests: Array<Array<[number, number]>> });
  console.log(
    `${bundlePath}: ${layout.count} blocks (${zones.map((z) => `${z} ${blocksIn.get(z)}`).join(', ')}); ` +
      `${questions.length} questions; leaf pages ${leafPages} of ${perLeaf}`,
  );
  const sets: string[][] = [
    [],
    ...zones.map((z) => [z]),
    ['rows', 'lists'],
    ['rows', 'lists', 'evidence'],
    ['rows', 'lists', 'degrees'],
    zones,
  ];
  const f = (xs: number[], k = 1e3) =>
    `${Math.round(median(xs) / k).toLocaleString('en')} / ${Math.round(Math.max(...xs) / k).toLocaleString('en')}`;
  const head = `| zones with paths | data KB | ranges | hash KB | ${PARTS.map((p) => `wire KB at ${p}`).join(' | ')} | Δ data p50 | ${PARTS.map((p) => `Δ wire at ${p} p50`).join(' | ')} | part growth KB |`;
  console.log(head);
  console.log(head.replace(/[^|]+/g, ' --- '));
  let base: Array<{ data: number; ranges: number }> = [];
  for (const set of sets) {
    const carries = new Set(set);
    const costs = questions.map((q) => {
      let data = 0;
      let ranges = 0;
      let hashBytes = 0;
      for (const request of q.requests)
        for (const [o, len] of request) {
          if (o >= pagesEnd) {
            const at = o - hashesAt;
            if (at >= leaf.length) {
              // An upper level's pages: read as before.
              data += len;
              hashBytes += len;
              ranges++;
              continue;
            }
            // Leaf pages: those whose blocks all carry paths are not read; the rest in as many ranges as pieces.
            let pieces = 0;
            let open = false;
            for (let p = Math.floor(at / leaf.pageSize); p * leaf.pageSize < at + len; p++) {
              const dropped = [...leafZones[p]].every((z) => carries.has(z));
              if (dropped) open = false;
              else {
                const bytes = Math.min(leaf.pageSize, leaf.length - p * leaf.pageSize);
                data += bytes;
                hashBytes += bytes;
                if (!open) pieces++;
                open = true;
              }
            }
            ranges += pieces;
            continue;
          }
          data += len;
          ranges++;
          if (o < store.base || carries.size === 0) continue;
          const from = layout.blockOf(o - store.base);
          const to = layout.blockOf(o - store.base + len - 1);
          for (let b = from; b <= to; b++) if (carries.has(zoneOf[b])) data += PATH;
        }
      return { data, ranges, hashBytes };
    });
    if (set.length === 0) base = costs;
    const growth = set.reduce((s, z) => s + (blocksIn.get(z) ?? 0) * PATH, 0);
    const wire = (p: number) => costs.map((c) => c.data + c.ranges * p);
    const delta = (xs: number[]) => {
      const d = median(xs);
      return `${d >= 0 ? '+' : ''}${Math.round(d / 1e3).toLocaleString('en')}`;
    };
    console.log(
      `| ${set.length === 0 ? 'none (today)' : set.length === zones.length ? 'every zone' : set.join(', ')} | ` +
        `${f(costs.map((c) => c.data))} | ${f(
          costs.map((c) => c.ranges),
          1,
        )} | ${f(costs.map((c) => c.hashBytes))} | ` +
        `${PARTS.map((p) => f(wire(p))).join(' | ')} | ${delta(costs.map((c, i) => c.data - base[i].data))} | ` +
        `${PARTS.map((p) => delta(costs.map((c, i) => c.data - base[i].data + (c.ranges - base[i].ranges) * p))).join(' | ')} | ` +
        `+${Math.round(growth / 1e3).toLocaleString('en')} |`,
    );
  }
}

await main();

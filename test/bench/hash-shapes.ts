// What other shapes of the tree of hash pages would cost the blocks a question actually reads (round twenty-one,
// issue 47's slow link): a model, not a layout. The blocks come from `link-sim.ts --trace` (every request's ranges of
// cold questions on the bundle given); for each shape, what a question would read of `pages.sha256` to check them:
// every page of the tree above its blocks that it touches, level by level, pages side by side in one range (as the
// block store reads them, gap 0), and how much the hashes part would grow.
// A shape: the leaf pages' hashes by zone (the sections' block zones: rows, lists, records…; the writers' 8 today), and
// the hashes of each page of the levels above (32 today), either one tree over every zone's leaves (as today) or a
// tree of its own for each zone ("by zone": no upper page covers two zones; every zone's top pages go to the top list).
// Printed per shape, p50 / max over the questions: hash KB read, hash ranges, on the wire (KB, ranges × --part-overhead
// more), and the hashes part's bytes against today's. The shape "8 / 32" is today's; its figures beside the trace's own
// hash bytes say how close the model is (the opening's pages, held before the question, are not in the model).
// Usage: node --import tsx test/bench/hash-shapes.ts <x.bundle> <trace.jsonl> [--part-overhead 120]
import { readFile } from 'node:fs/promises';
import { sectionsOf } from '../../src/core/paged/format.ts';
import { arg } from './lib/args.ts';
import { median, openTracedBundle } from './lib/tracedBundle.ts';

const HASH = 16;
/** The top list holds at most this many hashes (format.ts MAX_TOP_HASHES). */
const MAX_TOP = 64;
const PART = Number(arg('part-overhead', '120'));

interface Shape {
  name: string;
  /** Hashes a leaf page by zone (absent: 8). */
  leaf: Record<string, number>;
  /** Hashes a page of each level above the leaves (the last repeated while the top list would hold more than 64). */
  upper: number[];
  byZone: boolean;
}

interface Zone {
  name: string;
  first: number;
  count: number;
}

/** A tree over `leaves` hashes: its levels' page counts and entries a page (the leaves' own first). */
function levelsOf(leafPages: number, upper: number[]): number[] {
  const fan: number[] = [];
  let pages = leafPages;
  for (let l = 0; pages > MAX_TOP && l < 8; l++) {
    const u = upper[Math.min(l, upper.length - 1)];
    fan.push(u);
    pages = Math.ceil(pages / u);
  }
  return fan;
}

/**
 * Ranges for `pages` (ascending, distinct) of `size` bytes each, and the pages read between them: pages less than a
 * part's headers apart go in one range with those between (blockStore.ts partGap), as the reader of this branch reads
 * them.
 */
function runsOf(pages: number[], size: number): { runs: number; between: number } {
  const gap = Math.floor((PART - 1) / size);
  let runs = 0;
  let between = 0;
  for (let i = 0; i < pages.length; i++) {
    const apart = i === 0 ? Infinity : pages[i] - pages[i - 1] - 1;
    if (apart > gap) runs++;
    else between += apart;
  }
  return { runs, between };
}

function cost(
  shape: Shape,
  zones: Zone[],
  blocks: Iterable<number>,
): { bytes: number; ranges: number; partBytes: number } {
  const zoneOf = (b: number) => zones.findLast((z) => z.first <= b)!;
  const leafOf = (z: Zone) => shape.leaf[z.name] ?? 8;
  // The leaf pages of each zone, numbered in file order (a zone's leaves start a page: no leaf straddles two zones).
  const leafStart = new Map<string, number>();
  let at = 0;
  for (const z of zones) {
    leafStart.set(z.name, at);
    at += Math.ceil(z.count / leafOf(z));
  }
  const allLeaves = at;
  let bytes = 0;
  let ranges = 0;
  // Level 0: leaf pages touched, with their bytes (a zone's own leaf size).
  const leaves = new Set<number>();
  const leafBytes = new Map<number, number>();
  for (const b of blocks) {
    const z = zoneOf(b);
    const p = leafStart.get(z.name)! + Math.floor((b - z.first) / leafOf(z));
    leaves.add(p);
    leafBytes.set(p, leafOf(z) * HASH);
  }
  const sorted = [...leaves].sort((a, b) => a - b);
  for (const p of sorted) bytes += leafBytes.get(p)!;
  // Leaf pages of one size (the smallest of the shape's) for the gaps read between them.
  const leafSize = Math.min(...zones.map((z) => leafOf(z))) * HASH;
  const leafRuns = runsOf(sorted, leafSize);
  ranges += leafRuns.runs;
  bytes += leafRuns.between * leafSize;
  // Levels above: one tree over all leaves, or one a zone.
  const trees: Array<{ from: number; count: number }> = shape.byZone
    ? zones.map((z) => ({ from: leafStart.get(z.name)!, count: Math.ceil(z.count / leafOf(z)) }))
    : [{ from: 0, count: allLeaves }];
  for (const tree of trees) {
    const fan = levelsOf(tree.count, shape.upper);
    let below = sorted.filter((p) => p >= tree.from && p < tree.from + tree.count).map((p) => p - tree.from);
    for (const u of fan) {
      const pages = [...new Set(below.map((p) => Math.floor(p / u)))].sort((a, b) => a - b);
      const upperRuns = runsOf(pages, u * HASH);
      bytes += (pages.length + upperRuns.between) * u * HASH;
      ranges += upperRuns.runs;
      below = pages;
    }
  }
  return { bytes, ranges, partBytes: ranges * PART };
}

/** The hashes part's bytes under a shape: leaves (a zone's last page whole) and every level above. */
function partSize(shape: Shape, zones: Zone[]): number {
  let leafPages = 0;
  let total = 0;
  const trees: number[] = [];
  for (const z of zones) {
    const leaf = shape.leaf[z.name] ?? 8;
    const pages = Math.ceil(z.count / leaf);
    leafPages += pages;
    total += z.count * HASH;
    trees.push(pages);
  }
  for (const count of shape.byZone ? trees : [leafPages]) {
    let pages = count;
    for (const u of levelsOf(count, shape.upper)) {
      total += pages * HASH;
      pages = Math.ceil(pages / u);
    }
    total += pages * HASH; // the top list (in the directory)
  }
  return total;
}

async function main(): Promise<void> {
  const { bundlePath, tracePath, directory, store } = await openTracedBundle(
    'usage: hash-shapes.ts <x.bundle> <trace.jsonl> [--part-overhead 120]',
  );
  const layout = store.layout;
  const zones: Zone[] = [];
  for (const name of sectionsOf(directory.version)) {
    const [at, length] = directory.sections[name];
    if (length === 0) continue;
    const first = layout.blockOf(at);
    const count = layout.blockOf(at + length - 1) - first + 1;
    zones.push({ name, first, count });
  }
  const pagesEnd = store.base + store.length;
  const questions = (await readFile(tracePath, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const q = JSON.parse(l) as { requests: Array<Array<[number, number]>> };
      const blocks = new Set<number>();
      let hashBytes = 0;
      let hashRanges = 0;
      const zoneBlocks = new Map<string, number>();
      for (const request of q.requests)
        for (const [o, len] of request) {
          if (o >= pagesEnd) {
            hashBytes += len;
            hashRanges++;
            continue;
          }
          if (o < store.base) continue;
          const from = layout.blockOf(o - store.base);
          const to = layout.blockOf(o - store.base + len - 1);
          for (let b = from; b <= to; b++) blocks.add(b);
        }
      for (const b of blocks) {
        const z = zones.findLast((x) => x.first <= b)!.name;
        zoneBlocks.set(z, (zoneBlocks.get(z) ?? 0) + 1);
      }
      return { blocks, hashBytes, hashRanges, zoneBlocks };
    });
  console.log(
    `${bundlePath}: ${layout.count} blocks; zones ${zones.map((z) => `${z.name} ${z.count}`).join(', ')}; ` +
      `${questions.length} questions; part headers ${PART} B`,
  );
  const f = (xs: number[], k = 1e3) => `${(median(xs) / k).toFixed(0)} / ${(Math.max(...xs) / k).toFixed(0)}`;
  console.log(
    `trace: hash KB ${f(questions.map((q) => q.hashBytes))}, ranges ${f(
      questions.map((q) => q.hashRanges),
      1,
    )}; blocks a question by zone (p50): ` +
      zones.map((z) => `${z.name} ${median(questions.map((q) => q.zoneBlocks.get(z.name) ?? 0))}`).join(', '),
  );
  const small = ['rows', 'lists'];
  const shapes: Shape[] = [];
  for (const byZone of [false, true])
    for (const upper of [[32], [16], [8], [64]])
      for (const leaf of [8, 4, 2, 1])
        shapes.push({
          name: `${byZone ? 'by zone, ' : ''}leaves of rows/lists ${leaf}, others 8 / upper ${upper[0]}`,
          leaf: Object.fromEntries(small.map((z) => [z, leaf])),
          upper,
          byZone,
        });
  for (const leaf of [4, 2])
    for (const upper of [[32], [16]])
      shapes.push({
        name: `every zone's leaves ${leaf} / upper ${upper[0]}`,
        leaf: Object.fromEntries(zones.map((z) => [z.name, leaf])),
        upper,
        byZone: false,
      });
  const today = partSize({ name: '', leaf: {}, upper: [32], byZone: false }, zones);
  console.log(
    '| shape | hash KB p50 / max | hash ranges p50 / max | hashes on the wire KB p50 / max | hashes part KB (vs today) |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  for (const shape of shapes) {
    const costs = questions.map((q) => cost(shape, zones, q.blocks));
    const size = partSize(shape, zones);
    console.log(
      `| ${shape.name} | ${f(costs.map((c) => c.bytes))} | ${f(
        costs.map((c) => c.ranges),
        1,
      )} | ` +
        `${f(costs.map((c) => c.bytes + c.partBytes))} | ${(size / 1e3).toFixed(0)} (${size >= today ? '+' : ''}${((size - today) / 1e3).toFixed(0)}) |`,
    );
  }
}

await main();

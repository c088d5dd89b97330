// Round fifteen (issue 47): how small the one group of rows that keep the lists (listsInRows) of a
// documentation-sized bundle could be, since every question reads it whole (walk-rows.ts --layouts: the walk needs
// a quarter to a half of the chunks' rows, scattered). For each bundle (version 4 or 5 pages with listsInRows) it
// decodes the group and prints its size today (gzip'd as stored, and at fflate's level 9), the lists' information bound
// (Σ log2 C(chunks, df)), the lists coded by concept with Rice codes (k = ⌊log2(chunks/df)⌋ and one either side) and
// the counts (a flag bit a link, varints of the counts over 1), the whole group so coded and gzip'd (what version 6
// writes with k = ⌊log2(chunks/df)⌋), and the rows coded by chunk in two streams (ids, counts) gzip'd.
// Usage: node --import tsx test/bench/rows-coding.ts <x.bundle> [...]
import { readFile } from 'node:fs/promises';
import { decodeStructured, gunzip, gzip } from '../../src/core/bundle/index.ts';
import { gzipSize } from '../../src/core/paged/blockStore.ts';
import type { PagesDirectory } from '../../src/core/paged/format.ts';
import { readManifestByRanges } from '../../src/core/paged/index.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { expandOpen, residualsOf } from '../../src/core/paged/compactOpen.ts';
import { gzipSync } from 'fflate';

for (const path of process.argv.slice(2)) {
  const data = new Uint8Array(await readFile(path));
  const manifest = await readManifestByRanges(new MemoryRangeSource(data, path));
  const pages = manifest!.parts.find((p) => p.name === 'pages.bin')!;
  const d = pages.meta as unknown as PagesDirectory;
  if (!d.listsInRows || d.version >= 6)
    throw new Error(
      `${path}: pages version ${d.version}${d.listsInRows ? '' : ' without listsInRows'}: give a version 4 or 5 bundle that keeps its lists in its rows`,
    );
  const sec = (s: keyof PagesDirectory['sections']) =>
    data.subarray(pages.offset! + d.sections[s][0], pages.offset! + d.sections[s][0] + d.sections[s][1]);
  const ob = sec('open');
  const open = expandOpen(
    decodeStructured(await gunzip(ob, gzipSize(ob)), 'open') as never,
    d.version,
    d.chunkCount,
    true,
    residualsOf(d),
  );
  const rowsGz = sec('rows');
  const rows = await gunzip(rowsGz, gzipSize(rowsGz));
  const n = d.chunkCount,
    nc = d.conceptCount;
  let at = 0;
  const next = () => {
    let v = 0;
    for (let s = 1; ; s *= 128) {
      const b = rows[at++];
      v += (b & 127) * s;
      if (b < 128) return v;
    }
  };
  const lists: number[][] = Array.from({ length: nc }, () => []);
  const tfs: number[][] = Array.from({ length: nc }, () => []);
  const rowIds: number[][] = [];
  const rowTf: number[][] = [];
  for (let k = 0; k < n; k++) {
    let c = 0;
    const ids = [],
      t = [];
    for (let j = 0; j < open.conceptCounts![k]; j++) {
      const coded = next();
      c += Math.floor(coded / 2);
      const tf = coded % 2 ? next() + 2 : 1;
      lists[c].push(k);
      tfs[c].push(tf);
      ids.push(c);
      t.push(tf);
    }
    rowIds.push(ids);
    rowTf.push(t);
  }
  const lg = Math.log2;
  let bound = 0;
  for (let c = 0; c < nc; c++) {
    const m = lists[c].length;
    for (let i = 0; i < m; i++) bound += lg(n - i) - lg(i + 1);
  }
  // bit writer
  class Bits {
    bytes: number[] = [];
    cur = 0;
    nb = 0;
    put(v: number, w: number) {
      for (let i = w - 1; i >= 0; i--) {
        this.cur = (this.cur << 1) | ((v >>> i) & 1);
        if (++this.nb === 8) {
          this.bytes.push(this.cur);
          this.cur = 0;
          this.nb = 0;
        }
      }
    }
    unary(q: number) {
      for (let i = 0; i < q; i++) this.put(1, 1);
      this.put(0, 1);
    }
    done() {
      if (this.nb) this.bytes.push(this.cur << (8 - this.nb));
      return this.bytes.length;
    }
  }
  // concept-major Rice: gaps with k from df
  const rice = new Bits();
  for (let c = 0; c < nc; c++) {
    const m = lists[c].length;
    if (!m) continue;
    const k = Math.max(0, Math.floor(lg((n / m) * Math.LN2)));
    let prev = -1;
    for (const x of lists[c]) {
      const g = x - prev - 1;
      rice.unary(g >>> k);
      rice.put(g & ((1 << k) - 1), k);
      prev = x;
    }
  }
  const riceBytes = rice.done();
  // counts: one bit "more than once", then varints of tf-2 (concept-major order)
  const flag = new Bits();
  const more: number[] = [];
  for (let c = 0; c < nc; c++)
    for (const t of tfs[c]) {
      flag.put(t > 1 ? 1 : 0, 1);
      if (t > 1) more.push(t - 2);
    }
  const flagBytes = flag.done();
  const varintArr = (vs: number[]) => {
    const out: number[] = [];
    for (let v of vs) {
      while (v >= 128) {
        out.push((v & 127) | 128);
        v = Math.floor(v / 128);
      }
      out.push(v);
    }
    return Uint8Array.from(out);
  };
  const moreGz = gzipSync(varintArr(more), { level: 9 }).length;
  const flagGz = gzipSync(Uint8Array.from(flag.bytes), { level: 9 }).length;
  // row-major split streams (ids gaps varints | tf) gz9
  const idGaps: number[] = [];
  const tfAll: number[] = [];
  for (let k = 0; k < n; k++) {
    let p = 0;
    for (let j = 0; j < rowIds[k].length; j++) {
      idGaps.push(rowIds[k][j] - p);
      p = rowIds[k][j];
      tfAll.push(rowTf[k][j] - 1);
    }
  }
  const idsGz9 = gzipSync(varintArr(idGaps), { level: 9 }).length;
  const tfGz9 = gzipSync(varintArr(tfAll), { level: 9 }).length;
  // concept-major gaps varint gz9
  const cGaps: number[] = [];
  for (let c = 0; c < nc; c++) {
    let p = -1;
    for (const x of lists[c]) {
      cGaps.push(x - p - 1);
      p = x;
    }
  }
  const cGz9 = gzipSync(varintArr(cGaps), { level: 9 }).length;
  const todayGz9 = gzipSync(rows, { level: 9 }).length;
  const links = idGaps.length;
  console.log(
    `${path}: ${n} chunks ${nc} concepts ${links} links; today gzip ${rowsGz.length} (gz9 ${todayGz9}); raw ${rows.length}`,
  );
  console.log(
    `  concept-major bound log2 C(n,df): ${Math.round(bound / 8)} B; Rice(df) ${riceBytes} B; counts flag bits ${flagBytes} (gz9 ${flagGz}) + more ${more.length} gz9 ${moreGz}`,
  );
  console.log(`  => concept-major Rice + counts: ${riceBytes + Math.min(flagBytes, flagGz) + moreGz} B`);
  for (const variant of [-1, 0, 1]) {
    const b = new Bits();
    for (let c = 0; c < nc; c++) {
      const m = lists[c].length;
      if (!m) continue;
      let k = 0;
      while (m * 2 ** (k + 1) <= n) k++;
      k = Math.max(0, k + variant);
      let prev = -1;
      for (const x of lists[c]) {
        const g = x - prev - 1;
        b.unary(g >>> k);
        b.put(g & ((1 << k) - 1), k);
        prev = x;
      }
    }
    const ricePart = b.done();
    const f = new Bits();
    for (let c = 0; c < nc; c++) for (const t of tfs[c]) f.put(t > 1 ? 1 : 0, 1);
    f.done();
    const whole = Uint8Array.from([...b.bytes, ...f.bytes, ...varintArr(more)]);
    console.log(
      `  k = floor(log2(n/df)) ${variant >= 0 ? '+' : ''}${variant}: rice ${ricePart}; whole gzip ${(await gzip(whole)).length} (fflate gz6 ${gzipSync(whole).length})`,
    );
  }
  console.log(
    `  row-major split gz9: ids ${idsGz9} + tf ${tfGz9} = ${idsGz9 + tfGz9}; concept-major varint gz9 ${cGz9} + tf`,
  );
}

// Version 12's `evidenceArrays` (FORMAT.md "Version 12"): each chunk's token count out of `open` (read whole at every
// opening: 91 KB of its 983 gzip'd at 100 MiB) into blocks read by ranges. A question uses ~70 of 102,310, all for
// its evidence's budget (docs/results/question-bytes.md, round nineteen, "which entries of `open` a question uses").
// Block b holds the counts of chunks [b·entries, (b + 1)·entries) and is one checked block of the part: the blocks lie
// at the end of the `records` section, after the records' dictionary, and `open` holds each block's size
// (`evidenceBlocks`), so a reader locates any block without a per-chunk array. A block is the varints of each chunk's
// zigzag(tokens − floor(textLength × openResiduals.tokensPerLength / 65536)), the residuals version 10 keeps in `open`
// (hand-written: the product's own format). The record groups' sizes and `documentChunks` stay in `open`: a card's
// record located only once a block came would cost a round whenever a chunk enters the ranking late (measured:
// docs/results/question-bytes.md, round twenty-one), and the document runs code `titleChunks`, which the ranking reads.
import { ByteReader, ByteWriter } from './bytes.ts';
import { predicted, unzigzag, zigzag } from './compactOpen.ts';
import { PagesError } from './blockStore.ts';
import { MAX_EVIDENCE_ENTRIES, type EvidenceArrays } from './format.ts';

/** What a block's values are predicted from (the part's `open` and directory). */
export interface EvidenceCoding {
  entries: number;
  textLengths: ArrayLike<number>;
  tokensPerLength: number;
}

/** The blocks of `tokens` and the field. `cli index`, `--stream` and `cli upgrade` all write them from here. */
export function evidenceBlocksOf(
  tokens: ArrayLike<number>,
  coding: EvidenceCoding,
): { blocks: Uint8Array[]; field: EvidenceArrays } {
  const n = tokens.length;
  const { entries } = coding;
  if (!(Number.isSafeInteger(entries) && entries >= 1 && entries <= MAX_EVIDENCE_ENTRIES))
    throw new Error(`pages: ${entries} chunks an evidence block is not 1 to ${MAX_EVIDENCE_ENTRIES}`);
  const blocks: Uint8Array[] = [];
  const out = new ByteWriter();
  for (let first = 0; first < n; first += entries) {
    for (let k = first; k < Math.min(n, first + entries); k++)
      out.varint(zigzag(tokens[k] - predicted(coding.textLengths[k], coding.tokensPerLength)));
    blocks.push(out.take());
  }
  const bytes = blocks.reduce((sum, b) => sum + b.length, 0);
  return { blocks, field: { entries, count: blocks.length, bytes } };
}

/** Block b's token counts (of `n` chunks in all), each checked to be a u32, with no byte left over. */
export function decodeEvidenceBlock(
  bytes: Uint8Array,
  b: number,
  n: number,
  coding: EvidenceCoding,
): Uint32Array {
  const first = b * coding.entries;
  const last = Math.min(n, first + coding.entries);
  if (!(first < n)) throw new PagesError(`evidence block ${b} lies past the ${n} chunks`);
  const tokens = new Uint32Array(last - first);
  const r = new ByteReader(bytes);
  for (let k = first; k < last; k++) {
    let residual: number;
    try {
      residual = r.varint();
    } catch {
      throw new PagesError(`evidence block ${b} ends inside chunk ${k}'s tokens`);
    }
    const count = predicted(coding.textLengths[k], coding.tokensPerLength) + unzigzag(residual);
    if (!(count >= 0 && count <= 0xffffffff)) throw new PagesError(`gives chunk ${k} ${count} tokens`);
    tokens[k - first] = count;
  }
  if (r.at !== bytes.length)
    throw new PagesError(`evidence block ${b} has ${bytes.length - r.at} bytes after its tokens`);
  return tokens;
}

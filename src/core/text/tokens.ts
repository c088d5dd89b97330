// Token counting with OpenAI's cl100k_base vocabulary, used to keep chunks within ℓ tokens.
// js-tiktoken's encode() re-encodes every regex piece to a comma-joined byte key and has a quadratic merge, which is
// too slow for a 50 MB corpus. We reuse its vocabulary but count per pre-tokenizer piece with a memo of piece → count
// (natural text repeats words constantly), so counting is near linear. Counts equal encode(text).length except that
// special-token strings such as "<|endoftext|>" count as ordinary text (never throwing), and a single piece longer
// than MAX_PIECE_CHARS (e.g. a base64 blob) is counted in windows, which can differ by a token or two per window.
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

const MAX_PIECE_CHARS = 64;
const MAX_MEMO_ENTRIES = 500_000;

interface Counter {
  pattern: RegExp;
  ranks: Map<string, number>;
  memo: Map<string, number>;
  bytes: TextEncoder;
}

let counter: Counter | undefined;

function getCounter(): Counter {
  if (counter) return counter;
  const encoder = new Tiktoken(cl100k);
  // The rank map (bytes joined by ',' → rank) is a public field in the JS build, only hidden from the typings.
  const ranks = (encoder as unknown as { rankMap?: Map<string, number> }).rankMap;
  if (!(ranks instanceof Map) || ranks.size < 100_000) {
    throw new Error('tokens: js-tiktoken no longer exposes its cl100k rank map; update countTokens');
  }
  counter = { pattern: new RegExp(cl100k.pat_str, 'gu'), ranks, memo: new Map(), bytes: new TextEncoder() };
  return counter;
}

/** Number of byte-pair tokens of one pre-tokenized piece (the same merge loop as tiktoken). */
function bytePairCount(bytes: Uint8Array, ranks: Map<string, number>): number {
  if (bytes.length <= 1 || ranks.has(bytes.join(','))) return 1;
  // parts[i] is the start offset of the i-th part; a part ends where the next begins.
  const parts: number[] = [];
  for (let i = 0; i <= bytes.length; i++) parts.push(i);
  const key = (from: number, to: number): string => bytes.subarray(from, to).join(',');
  while (parts.length > 2) {
    let best = -1;
    let bestRank = Infinity;
    for (let i = 0; i < parts.length - 2; i++) {
      const rank = ranks.get(key(parts[i], parts[i + 2]));
      if (rank !== undefined && rank < bestRank) {
        bestRank = rank;
        best = i;
      }
    }
    if (best < 0) break;
    parts.splice(best + 1, 1);
  }
  return parts.length - 1;
}

function pieceCount(piece: string, c: Counter): number {
  const memoized = c.memo.get(piece);
  if (memoized !== undefined) return memoized;
  let count = 0;
  if (piece.length <= MAX_PIECE_CHARS) {
    count = bytePairCount(c.bytes.encode(piece), c.ranks);
  } else {
    // Windows are memoized like pieces, so a long run of repeated characters costs little.
    for (let from = 0; from < piece.length;) {
      let to = Math.min(piece.length, from + MAX_PIECE_CHARS);
      if (to < piece.length && (piece.charCodeAt(to - 1) & 0xfc00) === 0xd800) to++;
      count += pieceCount(piece.slice(from, to), c);
      from = to;
    }
  }
  if (c.memo.size >= MAX_MEMO_ENTRIES) c.memo.clear();
  c.memo.set(piece, count);
  return count;
}

/** Number of cl100k_base tokens in `text`. Count per sentence or paragraph, not per 50 MB document. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const c = getCounter();
  const pattern = c.pattern;
  pattern.lastIndex = 0;
  let count = 0;
  // exec() in a loop: measurably cheaper than matchAll's iterator on millions of sentences.
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text))
    count += pieceCount(match[0], c);
  return count;
}

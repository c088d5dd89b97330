// Token counting with OpenAI's cl100k_base vocabulary, used to keep chunks within ℓ tokens.
// js-tiktoken's encode() re-encodes every regex piece to a comma-joined byte key and has a quadratic merge, which is
// too slow for a 50 MB corpus. We reuse its vocabulary but count per pre-tokenizer piece with a memo of piece → count
// (natural text repeats words constantly), so counting is near linear. Counts equal encode(text).length except that
// special-token strings such as "<|endoftext|>" count as ordinary text (never throwing), and a single piece longer
// than MAX_PIECE_CHARS (e.g. a base64 blob) is counted in windows, which can differ by a token or two per window.
import cl100k from 'js-tiktoken/ranks/cl100k_base';

const MAX_PIECE_CHARS = 64;
const MAX_MEMO_ENTRIES = 500_000;

interface Counter {
  pattern: RegExp;
  /** Token bytes as a binary string (one char per byte, as atob gives them) → rank. */
  ranks: Map<string, number>;
  memo: Map<string, number>;
  bytes: TextEncoder;
}

let counter: Counter | undefined;

/**
 * The cl100k rank table read from js-tiktoken's own vocabulary file, keyed by binary strings. Its Tiktoken class
 * keeps the same table twice (bytes joined by ',' → rank, and rank → bytes) after building a third (base64 →
 * rank): about 100 MB in every worker that counts tokens, where this one is ~10 MB.
 */
function rankTable(bpeRanks: string): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const line of bpeRanks.split('\n')) {
    if (!line) continue;
    // "<prefix> <first rank> <base64 token> <base64 token> …": consecutive ranks from the first.
    const fields = line.split(' ');
    const first = Number.parseInt(fields[1], 10);
    for (let i = 2; i < fields.length; i++) ranks.set(atob(fields[i]), first + i - 2);
  }
  return ranks;
}

function getCounter(): Counter {
  if (counter) return counter;
  const ranks = rankTable(cl100k.bpe_ranks);
  if (ranks.size < 100_000) throw new Error('tokens: the cl100k vocabulary read has too few ranks');
  counter = { pattern: new RegExp(cl100k.pat_str, 'gu'), ranks, memo: new Map(), bytes: new TextEncoder() };
  return counter;
}

/** Number of byte-pair tokens of one pre-tokenized piece (the same merge loop as tiktoken). */
function bytePairCount(bytes: Uint8Array, ranks: Map<string, number>): number {
  if (bytes.length <= 1) return 1;
  const binary = String.fromCharCode(...bytes);
  if (ranks.has(binary)) return 1;
  // parts[i] is the start offset of the i-th part; a part ends where the next begins.
  const parts: number[] = [];
  for (let i = 0; i <= bytes.length; i++) parts.push(i);
  while (parts.length > 2) {
    let best = -1;
    let bestRank = Infinity;
    for (let i = 0; i < parts.length - 2; i++) {
      const rank = ranks.get(binary.slice(parts[i], parts[i + 2]));
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

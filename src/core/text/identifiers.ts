// Code identifiers as units: API documentation is about `fs.createReadStream`, `watchEffect`, `v-model`,
// `--experimental-vm-modules` and `Vec<T>`, which the word tokenizer either splits into stray pieces ("v" is
// dropped, "--experimental-vm-modules" becomes three common words) or keeps as one opaque token ("fs.createreadstream"
// matches no question that says "createReadStream"). Each identifier is kept whole (lowercased) and also split into
// its parts, so a question naming the whole finds it and one naming a part still reaches it.

export interface Identifier {
  /** The identifier as written, lowercased, without a trailing "()". */
  whole: string;
  /** Its pieces: dotted/hyphenated/underscored parts and camelCase humps, lowercased, 2 characters or more. */
  parts: string[];
}

// Order matters: each pattern's matches are blanked before the next runs, so "fs.createReadStream" is one dotted
// identifier, not also a camelCase one.
const PATTERNS: readonly RegExp[] = [
  // Command-line flags: --experimental-vm-modules, --no-verify.
  /(?<![\w-])--?[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+/g,
  // Generic types: Vec<T>, Option<String>, Map<K, V>.
  /(?<![\w$])[A-Za-z_][\w]*<[A-Za-z_][\w]*(?:, ?[A-Za-z_][\w]*)*>/g,
  // Dotted member paths: fs.createReadStream, app.config.errorHandler, std::vec::Vec (:: as a dot).
  /(?<![\w$.])[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)+(?:\(\))?/g,
  // Hyphenated names: v-model, v-if, server-side, max-width.
  /(?<![\w.-])[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?![\w-])/g,
  // snake_case and SCREAMING_CASE.
  /(?<![\w$])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w$])/g,
  // camelCase and PascalCase with at least two humps: watchEffect, defineProps, KeepAlive.
  /(?<![\w$.])(?:[a-z][a-z0-9]*|[A-Z][a-z0-9]+)(?:[A-Z][a-z0-9]+|[A-Z]+(?![a-z]))+(?![\w$])/g,
];

const HUMPS = /[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+/g;

/** Splits one identifier into lowercased parts of 2+ characters. */
function partsOf(text: string): string[] {
  const out: string[] = [];
  for (const piece of text.split(/[.\-_:<>,\s()]+/)) {
    if (!piece) continue;
    const humps = piece.match(HUMPS) ?? [piece];
    if (humps.length > 1 && piece.length > 2) out.push(piece.toLowerCase());
    for (const h of humps) if (h.length >= 2) out.push(h.toLowerCase());
  }
  return out;
}

/** Whether a dotted match is an abbreviation or a sentence break rather than code ("e.g", "U.S", "end.Then"). */
function looksLikeProse(match: string): boolean {
  const parts = match.split(/\.|::/);
  if (parts.every((p) => p.length <= 2)) return true;
  // "word.Next": one lowercase word then a capitalized one is a missing space after a full stop.
  return parts.length === 2 && /^[a-z]+$/.test(parts[0]) && /^[A-Z][a-z]+$/.test(parts[1]);
}

/** Code identifiers of `text`, in no particular order, with repetitions. */
export function codeIdentifiers(text: string): Identifier[] {
  // Cheap exit for plain prose: no character that any identifier pattern needs besides letters.
  if (!/\w(?:\.|::)[A-Za-z_$]|\w-[A-Za-z0-9]|\w_\w|\w<|[a-z][A-Z]|[A-Z][a-z]+[A-Z]/.test(text)) return [];
  const out: Identifier[] = [];
  let rest = text;
  for (const pattern of PATTERNS) {
    rest = rest.replace(pattern, (match: string) => {
      const isDotted = /\.|::/.test(match) && !match.startsWith('-') && !match.includes('<');
      if (!(isDotted && looksLikeProse(match))) {
        const whole = match.replace(/\(\)$/, '').toLowerCase();
        out.push({ whole, parts: partsOf(match.replace(/\(\)$/, '')).filter((p) => p !== whole) });
      }
      return ' '.repeat(match.length);
    });
  }
  return out;
}

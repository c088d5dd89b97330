// How deeply a bundle's JSON may nest. Records are written to IndexedDB with the structured clone, which recurses:
// a 20,000-deep record parses (V8's JSON.parse does not recurse) but fails at write time with "Maximum call stack
// size exceeded", after other tables were written. Real records nest a few levels (a serialized graph about 4),
// so anything past MAX_JSON_DEPTH is refused while the part is decoded, before a record is stored.

export const MAX_JSON_DEPTH = 100;

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

/**
 * Scans UTF-8 JSON (one value, or JSON Lines: the depth restarts at each newline, which JSON never has inside a
 * string) without parsing it; returns the 1-based line where nesting first goes past `max`, or 0 when it never
 * does. Linear and allocation-free, so it is safe to run on bytes nobody has checked yet.
 */
export function lineNestedBeyond(bytes: Uint8Array, max = MAX_JSON_DEPTH): number {
  let depth = 0;
  let inString = false;
  let line = 1;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === NEWLINE) {
      depth = 0;
      inString = false;
      line++;
    } else if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      if (++depth > max) return line;
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
      depth--;
    }
  }
  return 0;
}

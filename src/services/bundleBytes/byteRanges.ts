// The body of a `206 multipart/byteranges` answer (RFC 9110 §14.6): what a host sends back for a request of several
// ranges (`Range: bytes=a-b, c-d`). Hand-written, not a multipart library: the form-data parsers on npm read Node
// streams or look for the boundary inside the data, while here each part says its length (its Content-Range), so
// the parser reads the few header lines between parts and never scans the data itself. It runs in the query worker.

/** One part: the file's bytes [start, end] (inclusive, as Content-Range says). */
export interface BytePart {
  start: number;
  end: number;
  bytes: Uint8Array;
}

/** The longest multipart boundary RFC 2046 allows. */
const MAX_BOUNDARY = 70;

/** The boundary of a `multipart/byteranges; boundary=…` content type, or undefined for any other type. */
export function byterangesBoundary(contentType: string | null): string | undefined {
  if (!contentType || !/^\s*multipart\/byteranges\s*;/i.test(contentType)) return undefined;
  const m = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  // RFC 2046 §5.1.1: 1 to 70 characters. A longer one would make every search for it cost its length a byte.
  if (boundary !== undefined && boundary.length > MAX_BOUNDARY)
    throw new Error(
      `multipart/byteranges: a boundary of ${boundary.length} characters (at most ${MAX_BOUNDARY})`,
    );
  return boundary;
}

/** `bytes a-b/size` (or `bytes a-b/*`) → [a, b, size or NaN], or undefined when it is not one. */
export function parseContentRange(value: string | null): [number, number, number] | undefined {
  const m = value ? /^\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/i.exec(value) : null;
  if (!m) return undefined;
  const start = Number(m[1]);
  const end = Number(m[2]);
  if (end < start) return undefined;
  return [start, end, m[3] === '*' ? NaN : Number(m[3])];
}

const CR = 13;
const LF = 10;
const DASH = 45;

/**
 * The parts of a multipart/byteranges body, in the order sent. Throws (naming what is wrong) on a body that does not
 * follow the format: a missing delimiter, a part without a Content-Range, or data shorter than its range.
 */
export function parseByteranges(body: Uint8Array, boundary: string): BytePart[] {
  const delimiter = new TextEncoder().encode(`--${boundary}`);
  const parts: BytePart[] = [];
  // The preamble (nginx sends a CRLF, others nothing) runs up to the first delimiter.
  let at = indexOf(body, delimiter, 0);
  if (at < 0) throw new Error('multipart/byteranges: no boundary in the body');
  for (;;) {
    at += delimiter.length;
    if (body[at] === DASH && body[at + 1] === DASH) return parts; // the close delimiter
    // Transport padding may follow a delimiter before its CRLF.
    while (body[at] === 0x20 || body[at] === 0x09) at++;
    if (body[at] !== CR || body[at + 1] !== LF) {
      throw new Error('multipart/byteranges: a boundary is not followed by a line end');
    }
    at += 2;
    const headersEnd = indexOf(body, CRLF_CRLF, at - 2);
    if (headersEnd < 0) throw new Error('multipart/byteranges: a part has no end to its headers');
    const headers = new TextDecoder().decode(body.subarray(at, headersEnd));
    const rangeLine = /^content-range:(.*)$/im.exec(headers);
    const range = parseContentRange(rangeLine?.[1] ?? null);
    if (!range) throw new Error('multipart/byteranges: a part has no Content-Range');
    const [start, end] = range;
    const from = headersEnd + 4;
    const to = from + (end - start + 1);
    if (to > body.length)
      throw new Error(`multipart/byteranges: the part of bytes ${start}-${end} is cut short`);
    parts.push({ start, end, bytes: body.subarray(from, to) });
    // The data is followed by CRLF and the next delimiter.
    at = indexOf(body, delimiter, to);
    if (at < 0) throw new Error('multipart/byteranges: the body ends without its closing boundary');
  }
}

const CRLF_CRLF = Uint8Array.of(CR, LF, CR, LF);

/** The first index of `needle` in `hay` at or after `from`, or -1. */
function indexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  const last = hay.length - needle.length;
  for (let i = hay.indexOf(first, from); i >= 0 && i <= last; i = hay.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

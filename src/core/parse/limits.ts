// Bounds for the compressed formats, checked before the real parser runs: a .docx (a zip) or a PDF (deflated
// streams) can inflate a thousand times over, so a 1 MB file could ask mammoth or pdf.js for a gigabyte of memory.
// Sizes are measured by inflating with fflate and counting the bytes, stopping at the limit: the sizes a zip's
// headers declare can lie. The inflated data itself is thrown away as it streams (at most one input chunk's worth
// is held).
import { Inflate, Unzip, UnzipInflate } from 'fflate';
import { ParseError } from './types.ts';

const MB = 1024 * 1024;
/** A .docx's parts, unzipped, together (text, styles, images): far above real documents under the 20 MB cap. */
const MAX_DOCX_INFLATED_BYTES = 200 * MB;
/** The deflated streams of a PDF that text extraction reads (page content, fonts, object streams). */
const MAX_PDF_INFLATED_BYTES = 200 * MB;
/** Pages read from one PDF (pdf.js reads them one by one; a 20 MB book has well under a thousand). */
export const MAX_PDF_PAGES = 2000;
/** Input is fed in small pieces so that one piece (deflate expands at most ~1032×) cannot overshoot by much. */
const PIECE = 16 * 1024;

function tooLarge(file: string, what: string, limit: number): ParseError {
  return new ParseError(
    file,
    `${what} expands to more than ${limit / MB} MB when decompressed (the limit is ${limit / MB} MB)`,
  );
}

/** Throws ParseError when the zip's entries inflate to more than `limit` bytes together. */
export function checkZipInflatedSize(file: string, bytes: Uint8Array, limit = MAX_DOCX_INFLATED_BYTES): void {
  let total = 0;
  let over = false;
  const unzip = new Unzip((entry) => {
    entry.ondata = (error, data) => {
      if (error || over) return;
      total += data.length;
      if (total > limit) {
        over = true;
        entry.terminate();
      }
    };
    entry.start();
  });
  unzip.register(UnzipInflate);
  try {
    for (let at = 0; at < bytes.length && !over; at += PIECE) {
      unzip.push(bytes.subarray(at, at + PIECE), at + PIECE >= bytes.length);
    }
  } catch {
    // Not a readable zip: mammoth reports that with its own reason.
  }
  if (over) throw tooLarge(file, 'the .docx', limit);
}

/** Bytes inflated from one deflate stream, stopping once `budget` is exceeded (returns budget + 1 then). */
function inflatedSize(data: Uint8Array, budget: number): number {
  let total = 0;
  const inflate = new Inflate((chunk) => {
    total += chunk.length;
  });
  try {
    for (let at = 0; at < data.length && total <= budget; at += PIECE) {
      inflate.push(data.subarray(at, at + PIECE), at + PIECE >= data.length);
    }
  } catch {
    // A damaged stream: pdf.js decides what to make of it; what inflated so far counts.
  }
  return Math.min(total, budget + 1);
}

/**
 * Throws ParseError when the PDF's /FlateDecode streams (images excepted: text extraction does not decode them)
 * inflate to more than `limit` bytes together. A scan for "stream … endstream" over the raw bytes, hand-written
 * because pdf.js has no such limit: it decodes a whole stream into memory when a page needs it.
 */
export function checkPdfInflatedSize(file: string, bytes: Uint8Array, limit = MAX_PDF_INFLATED_BYTES): void {
  // One character per byte, so string offsets are byte offsets (only ASCII keywords are searched for).
  const text = new TextDecoder('latin1').decode(bytes);
  let total = 0;
  let from = 0;
  for (;;) {
    const keyword = text.indexOf('stream', from);
    if (keyword < 0) break;
    from = keyword + 6;
    if (text.startsWith('endstream', keyword - 3)) continue;
    let start = keyword + 6;
    if (text[start] === '\r') start++;
    if (text[start] !== '\n') continue;
    start++;
    const end = text.indexOf('endstream', start);
    if (end < 0) break;
    from = end + 9;
    // The stream's dictionary: back to the start of its object ("obj"), at most a few KB.
    const objectStart = text.lastIndexOf('obj', keyword);
    const dictionary = text.slice(Math.max(objectStart, keyword - 4096), keyword);
    if (!dictionary.includes('/FlateDecode') || /\/Subtype\s*\/Image/.test(dictionary)) continue;
    // zlib streams (PDF's FlateDecode) have a 2-byte header that raw inflate does not expect.
    total += inflatedSize(bytes.subarray(start + 2, end), limit - total);
    if (total > limit) throw tooLarge(file, 'the PDF', limit);
  }
}

// Bytes → text for the text-based formats: byte-order marks (UTF-8, UTF-16 LE/BE), and the "is this really text?"
// check that turns an image renamed to .txt into a clear error instead of a screen of mojibake.
import { ParseError } from './types.ts';

/** Only the start of a file is inspected for binary content. */
const SNIFF_BYTES = 64 * 1024;
/** More replacement characters than this share of the sniffed text means binary (or not UTF-8 at all). */
const MAX_INVALID_SHARE = 0.1;
/** Share of control bytes above which mostly-invalid UTF-8 is binary rather than 8-bit text. */
const MAX_CONTROL_SHARE = 0.01;

function utf16(bytes: Uint8Array, littleEndian: boolean): string {
  return new TextDecoder(littleEndian ? 'utf-16le' : 'utf-16be').decode(bytes.subarray(2));
}

/** Windows-1252 bytes 0x80–0x9F (undefined ones keep their C1 code point, as the WHATWG encoding does). */
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

/**
 * Windows-1252 decoding done here rather than by TextDecoder: Node's TextDecoder('windows-1252') decodes as
 * ISO-8859-1 (0x97 → U+0097 instead of "—"), and the same file must give the same text, hence the same document
 * id, in Node and in the browser.
 */
function decodeWindows1252(bytes: Uint8Array): string {
  const parts: string[] = [];
  const CHUNK = 8192;
  for (let from = 0; from < bytes.length; from += CHUNK) {
    const codes: number[] = [];
    const end = Math.min(bytes.length, from + CHUNK);
    for (let i = from; i < end; i++) {
      const byte = bytes[i];
      codes.push(byte >= 0x80 && byte <= 0x9f ? CP1252_HIGH.charCodeAt(byte - 0x80) : byte);
    }
    parts.push(String.fromCharCode(...codes));
  }
  return parts.join('');
}

interface Sniff {
  binary: boolean;
  /** Invalid UTF-8 sequences outnumber valid non-ASCII characters: a legacy 8-bit encoding (Latin-1, cp1252). */
  legacy8bit: boolean;
}

/** Looks at the first 64 KB: NUL bytes, or more than 10% invalid UTF-8 with control bytes, means binary. */
function sniff(bytes: Uint8Array): Sniff {
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) return { binary: true, legacy8bit: false };
  // A multi-byte character cut at the end of the sniffed window is not an error.
  const sample = new TextDecoder('utf-8').decode(head, { stream: head.length < bytes.length });
  let invalid = 0;
  let nonAscii = 0;
  for (let i = 0; i < sample.length; i++) {
    const code = sample.charCodeAt(i);
    if (code === 0xfffd) invalid++;
    else if (code > 0x7f) nonAscii++;
  }
  if (invalid <= nonAscii) return { binary: false, legacy8bit: false };
  if (invalid / sample.length <= MAX_INVALID_SHARE) return { binary: false, legacy8bit: true };
  // Mostly invalid UTF-8: Latin-1 prose with many accents, or binary data. Binary data is full of control bytes
  // (about 10% of random bytes are C0 controls); text in any 8-bit encoding has almost none.
  let controls = 0;
  for (let i = 0; i < head.length; i++) {
    const byte = head[i];
    if ((byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c) || byte === 0x7f)
      controls++;
  }
  const binary = controls / head.length > MAX_CONTROL_SHARE;
  return { binary, legacy8bit: !binary };
}

/**
 * Decodes a text file: UTF-16 when it starts with a UTF-16 byte-order mark; else UTF-8 (BOM stripped), unless
 * invalid UTF-8 outweighs valid non-ASCII text, which marks an old 8-bit file read as Windows-1252 (a superset of
 * Latin-1) so that "café" does not become "caf\ufffd". Line endings become "\n". Throws ParseError for empty and
 * binary files.
 */
export function decodeText(file: string, bytes: Uint8Array): string {
  if (bytes.length === 0) throw new ParseError(file, 'the file is empty');
  let text: string;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) text = utf16(bytes, true);
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = utf16(bytes, false);
  else {
    const { binary, legacy8bit } = sniff(bytes);
    if (binary) throw new ParseError(file, 'not a text file (binary content)');
    // TextDecoder drops a UTF-8 BOM by default.
    text = legacy8bit ? decodeWindows1252(bytes) : new TextDecoder('utf-8').decode(bytes);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** File name without folders and extension, as a fallback title. */
export function baseTitle(file: string): string {
  const name = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
  const dot = name.lastIndexOf('.');
  return (dot > 0 ? name.slice(0, dot) : name).trim() || name;
}

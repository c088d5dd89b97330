// Bytes → text for the text-based formats: byte-order marks (UTF-8, UTF-16 LE/BE), and the "is this really text?"
// check that turns an image renamed to .txt into a clear error instead of a screen of mojibake.
import { ParseError } from './types.ts';

/** Only the start of a file is inspected for binary content. */
const SNIFF_BYTES = 64 * 1024;
/** More replacement characters than this share of the sniffed text means binary (or not UTF-8 at all). */
const MAX_INVALID_SHARE = 0.1;

function utf16(bytes: Uint8Array, littleEndian: boolean): string {
  return new TextDecoder(littleEndian ? 'utf-16le' : 'utf-16be').decode(bytes.subarray(2));
}

/** True when the first 64 KB have NUL bytes or more than 10% invalid UTF-8 sequences. */
export function looksBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) return true;
  // A multi-byte character cut at the end of the sniffed window is not an error.
  const sample = new TextDecoder('utf-8').decode(head, { stream: head.length < bytes.length });
  let invalid = 0;
  for (let i = sample.indexOf('\ufffd'); i >= 0; i = sample.indexOf('\ufffd', i + 1)) invalid++;
  return sample.length > 0 && invalid / sample.length > MAX_INVALID_SHARE;
}

/**
 * Decodes a text file: UTF-16 when it starts with a UTF-16 byte-order mark, else UTF-8 (BOM stripped, invalid
 * sequences replaced). Line endings become "\n". Throws ParseError for empty and binary files.
 */
export function decodeText(file: string, bytes: Uint8Array): string {
  if (bytes.length === 0) throw new ParseError(file, 'the file is empty');
  let text: string;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) text = utf16(bytes, true);
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = utf16(bytes, false);
  else {
    if (looksBinary(bytes)) throw new ParseError(file, 'not a text file (binary content)');
    text = new TextDecoder('utf-8').decode(bytes); // TextDecoder drops a UTF-8 BOM by default
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

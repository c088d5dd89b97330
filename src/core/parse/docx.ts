// .docx → HTML (mammoth, loaded on first use) → our HTML parser, so Word headings become sections.
// mammoth's Node build reads `buffer`, its browser build (package.json "browser" field, applied by Vite) reads
// `arrayBuffer`: we pass both so the same call works in Node tests and in the bundled worker.
import { parseHtml } from './html.ts';
import { checkZipInflatedSize } from './limits.ts';
import { ParseError, type ParsedFile } from './types.ts';
import { messageOf } from '../errors.ts';

type Mammoth = typeof import('mammoth');

async function loadMammoth(): Promise<Mammoth> {
  const module = (await import('mammoth')) as Mammoth & { default?: Mammoth };
  return module.default ?? module;
}

/**
 * Parses a .docx. Throws ParseError "not a valid .docx (…)" for anything mammoth cannot open, and when its parts
 * inflate beyond MAX_DOCX_INFLATED_BYTES (checked first, so a zip bomb never reaches mammoth).
 */
export async function parseDocx(file: string, bytes: Uint8Array): Promise<ParsedFile> {
  checkZipInflatedSize(file, bytes);
  const mammoth = await loadMammoth();
  const arrayBuffer = bytes.buffer.slice(
    bytes.byteOffset,
    bytes.byteOffset + bytes.byteLength,
  ) as ArrayBuffer;
  let html: string;
  try {
    const input = { arrayBuffer, buffer: bytes } as unknown as Parameters<Mammoth['convertToHtml']>[0];
    html = (await mammoth.convertToHtml(input)).value;
  } catch (error) {
    const message = messageOf(error);
    throw new ParseError(file, `not a valid .docx (${message.split('\n')[0]})`);
  }
  return parseHtml(html);
}

// A picture of a page (.png, .jpg, .webp) → a one-page document of its recognised text. Its size is read from the
// header and checked before anything decodes it (a decompression bomb declares its size there), and the lines go
// through the same layout as a PDF page's (headings by size, paragraphs by spacing).
import { sha256Hex } from '../hash.ts';
import { imageDimensions, ocrPageLines, recognisedPage, recognisePages, type OcrOptions } from './ocr.ts';
import { dropPageFurniture, layoutPdf } from './pdfLayout.ts';
import { ParseError, type ParsedFile } from './types.ts';
import { messageOf } from '../errors.ts';

export async function parseImage(
  file: string,
  bytes: Uint8Array,
  ocr: OcrOptions | undefined,
): Promise<ParsedFile> {
  const { width, height } = imageDimensions(file, bytes);
  if (!ocr) throw new ParseError(file, 'a picture needs text recognition, which is not available here');
  const key = `img:${await sha256Hex(bytes)}`;
  let result;
  try {
    result = await recognisePages(key, [1], async () => ({ bytes, width, height }), undefined, ocr);
  } catch (error) {
    // The recogniser rejects with its decoder's words, as a string already prefixed "Error: ".
    const message = messageOf(error).replace(/^Error: /, '');
    throw new ParseError(file, `not a readable image (${message})`);
  }
  const page = result.results.get(1);
  if (!page) throw new ParseError(file, 'not a readable image');
  const built = layoutPdf(dropPageFurniture([ocrPageLines(page, page.height)]), []);
  if (built.text.length === 0) throw new ParseError(file, 'no text was recognised in the picture');
  return {
    text: built.text,
    sections: built.sections,
    pageStarts: built.pageStarts,
    recognised: { pages: 1, language: result.language, languageFrom: result.languageFrom },
    ocr: {
      language: result.language,
      languageFrom: result.languageFrom,
      key,
      pages: [recognisedPage(1, page)],
    },
  };
}

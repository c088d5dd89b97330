// The characters of a PDF's text items → the characters the author wrote. A PDF draws glyphs; its text layer
// (ToUnicode maps, font encodings) says which characters they stand for, and that layer carries glyph artefacts
// the author never typed:
// - ligature and presentation-form glyphs (ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ, Arabic presentation forms): NFKC gives the letters back.
//   NFKC is applied to those code points only: on the rest of the text it would also fold characters the author
//   chose (², ½, full-width CJK punctuation), which the Markdown and HTML readers keep too;
// - soft hyphens (U+00AD), invisible in print, which split words for the search;
// - UTF-8 read as Windows-1252 ("lÃ©gÃ¨re" for "légère"): a PDF whose producer wrote UTF-8 bytes into strings of
//   a single-byte font (a simple font with WinAnsiEncoding and no ToUnicode), or an HTML page printed without its
//   charset. The bytes are still all there, so the UTF-8 is decoded again — only when the whole run decodes as
//   valid UTF-8, so real Latin-1 text ("São", "Ãgua") is left as it is. One byte is not all there: "à" is C3 A0,
//   and A0 reads as a no-break space, which pdf.js hands over as a plain space ("lÃ aers"); a space where a
//   continuation byte must be is read back as A0.

/** Windows-1252 code points of bytes 0x80–0x9F (0 = undefined in cp1252). */
const CP1252_HIGH = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0,
  0x017d, 0, 0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a,
  0x0153, 0, 0x017e, 0x0178,
];
const CP1252_BYTE = new Map<number, number>(CP1252_HIGH.map((cp, i) => [cp, 0x80 + i]));

/** A UTF-8 lead byte read as Latin-1/cp1252 (Â–ô), then a continuation byte read the same way. */
const MOJIBAKE =
  /[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013\u2014\u2018-\u201a\u201c-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]/;

/** "Ã " inside a word: "à" (C3 A0) whose no-break space became a space. */
const SPACED_CONTINUATION = /\p{L}[\u00c2\u00c3] /u;

const PRESENTATION_FORMS = /[\ufb00-\ufb4f\ufb50-\ufdff\ufe70-\ufeff]+/g;

/** The string's bytes when every character is one Windows-1252 byte; undefined otherwise. */
function cp1252Bytes(text: string): Uint8Array | undefined {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const byte = code < 0x80 || (code >= 0xa0 && code <= 0xff) ? code : CP1252_BYTE.get(code);
    if (byte === undefined) return undefined;
    bytes[i] = byte;
  }
  return bytes;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 mis-read as Windows-1252, decoded again; the text unchanged when it is not such a misreading. */
export function repairMojibake(text: string): string {
  if (!MOJIBAKE.test(text) && !SPACED_CONTINUATION.test(text)) return text;
  const read = cp1252Bytes(text);
  if (!read) return text;
  const bytes: number[] = [];
  for (let i = 0; i < read.length; i++) {
    const lead = read[i];
    bytes.push(lead);
    const continuations =
      lead >= 0xc2 && lead <= 0xdf
        ? 1
        : lead >= 0xe0 && lead <= 0xef
          ? 2
          : lead >= 0xf0 && lead <= 0xf4
            ? 3
            : 0;
    for (let k = 1; k <= continuations && i + 1 < read.length; k++) {
      const next = read[i + 1];
      if (next === 0x20) {
        bytes.push(0xa0);
        i++;
        // pdf.js merges the no-break space with a space after it ("à Évian" → "Ã Ã‰vian"): the word ended there.
        if (k === continuations && i + 1 < read.length && read[i + 1] !== 0x20) bytes.push(0x20);
      } else if (next >= 0x80 && next <= 0xbf) {
        bytes.push(next);
        i++;
      } else break;
    }
  }
  try {
    return utf8.decode(Uint8Array.from(bytes));
  } catch {
    return text;
  }
}

/** A text item's string as the author's characters (see the module comment). */
export function pdfItemText(text: string): string {
  return repairMojibake(text)
    .replace(PRESENTATION_FORMS, (run) => run.normalize('NFKC'))
    .replace(/\u00ad/g, '');
}

// A small hand-written PDF writer for tests: real PDF files (catalog, pages, fonts, content streams, outline,
// info), read by pdf.js like any other, with exactly the layout a test needs — running headers at fixed heights,
// headings in larger fonts or numbered, ligature glyphs, UTF-8 bytes in a single-byte font, an outline. Written by
// hand because no PDF writer is a dependency and the tests need control over glyph codes that writers hide.
// Fonts: F1 Helvetica and F2 Courier (monospace), WinAnsiEncoding with the ligature glyphs at 0x80–0x84.

export interface TinyLine {
  text: string;
  /** Baseline height from the page's bottom edge (pages are 612 × 792). */
  y: number;
  size?: number;
  x?: number;
  mono?: boolean;
  /** Write the text's UTF-8 bytes into the single-byte font (what naive PDF writers do): mojibake in readers. */
  utf8Bytes?: boolean;
}

export interface TinyOutline {
  title: string;
  /** 1-based page. */
  page: number;
  /** Top of the destination (XYZ), from the page's bottom edge. */
  top?: number;
  children?: TinyOutline[];
}

export interface TinyPdf {
  pages: TinyLine[][];
  title?: string;
  outline?: TinyOutline[];
  /** The Info dictionary's /Producer (who wrote the PDF; "Skia/PDF m120" for Chromium's print). */
  producer?: string;
}

const LIGATURES: Record<string, number> = { ﬀ: 0x80, ﬁ: 0x81, ﬂ: 0x82, ﬃ: 0x83, ﬄ: 0x84 };
const DIFFERENCES = '[128 /ff /fi /fl /ffi /ffl]';
const CP1252_EXTRA: Record<string, number> = {
  '€': 0x80,
  '’': 0x92,
  '“': 0x93,
  '”': 0x94,
  '–': 0x96,
  '—': 0x97,
};

function encodeText(text: string, utf8Bytes: boolean): number[] {
  if (utf8Bytes) return [...new TextEncoder().encode(text)];
  const out: number[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (LIGATURES[ch] !== undefined) out.push(LIGATURES[ch]);
    else if (code < 0x80 || (code >= 0xa0 && code <= 0xff)) out.push(code);
    else out.push(CP1252_EXTRA[ch] ?? 0x3f);
  }
  return out;
}

/** A PDF literal string of these bytes (bytes ≥ 0x80 and delimiters escaped, so the file stays ASCII). */
function pdfString(bytes: number[]): string {
  return (
    '(' +
    bytes
      .map((b) =>
        b === 0x28 || b === 0x29 || b === 0x5c
          ? '\\' + String.fromCharCode(b)
          : b < 0x20 || b >= 0x7f
            ? '\\' + b.toString(8).padStart(3, '0')
            : String.fromCharCode(b),
      )
      .join('') +
    ')'
  );
}

/** The bytes of a PDF file holding these pages. */
export function tinyPdf(spec: TinyPdf): Uint8Array {
  const objects: string[] = [];
  const add = (body: string): number => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add('');
  const pagesId = add('');
  const font = (base: string): number =>
    add(
      `<< /Type /Font /Subtype /Type1 /BaseFont /${base} /Encoding << /Type /Encoding ` +
        `/BaseEncoding /WinAnsiEncoding /Differences ${DIFFERENCES} >> >>`,
    );
  const f1 = font('Helvetica');
  const f2 = font('Courier');
  const pageIds: number[] = [];
  for (const lines of spec.pages) {
    const stream = lines
      .map(
        (l) =>
          `BT /${l.mono ? 'F2' : 'F1'} ${l.size ?? 11} Tf ${l.x ?? 72} ${l.y} Td ` +
          `${pdfString(encodeText(l.text, l.utf8Bytes ?? false))} Tj ET`,
      )
      .join('\n');
    const content = add(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
    pageIds.push(
      add(
        `<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 612 792] ` +
          `/Resources << /Font << /F1 ${f1} 0 R /F2 ${f2} 0 R >> >> /Contents ${content} 0 R >>`,
      ),
    );
  }
  let outlinesId: number | undefined;
  if (spec.outline?.length) {
    outlinesId = add('');
    const addLevel = (entries: TinyOutline[], parent: number): number[] => {
      const ids = entries.map(() => add(''));
      entries.forEach((entry, i) => {
        const kids = entry.children?.length ? addLevel(entry.children, ids[i]) : [];
        const dest = `[${pageIds[entry.page - 1]} 0 R /XYZ 0 ${entry.top ?? 'null'} null]`;
        const links =
          (i > 0 ? ` /Prev ${ids[i - 1]} 0 R` : '') +
          (i < ids.length - 1 ? ` /Next ${ids[i + 1]} 0 R` : '') +
          (kids.length
            ? ` /First ${kids[0]} 0 R /Last ${kids[kids.length - 1]} 0 R /Count ${kids.length}`
            : '');
        objects[ids[i] - 1] =
          `<< /Title ${pdfString(encodeText(entry.title, false))} /Parent ${parent} 0 R /Dest ${dest}${links} >>`;
      });
      return ids;
    };
    const top = addLevel(spec.outline, outlinesId);
    objects[outlinesId - 1] =
      `<< /Type /Outlines /First ${top[0]} 0 R /Last ${top[top.length - 1]} 0 R /Count ${top.length} >>`;
  }
  const info = add(
    `<< /Title ${pdfString(encodeText(spec.title ?? '', false))} /Producer ${pdfString(encodeText(spec.producer ?? 'tinyPdf.ts', false))} >>`,
  );
  objects[catalog - 1] =
    `<< /Type /Catalog /Pages ${pagesId} 0 R${outlinesId ? ` /Outlines ${outlinesId} 0 R` : ''} >>`;
  objects[pagesId - 1] =
    `<< /Type /Pages /Kids [${pageIds.map((p) => `${p} 0 R`).join(' ')}] /Count ${pageIds.length} >>`;

  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R /Info ${info} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/**
 * A report of `pageCount` pages with a running header ("Harbour Annual Report · Confidential") and a footer
 * ("page n of N") on every page, a numbered heading per page ("n.1 Section n") and body text that names the page.
 */
export function reportWithRunningHeader(pageCount: number): Uint8Array {
  const pages: TinyLine[][] = [];
  for (let n = 1; n <= pageCount; n++) {
    pages.push([
      { text: 'Harbour Annual Report · Confidential', y: 760, size: 9 },
      { text: `${n}.1 Section ${n}`, y: 700, size: 15 },
      { text: `The lighthouse keeper logged ${n * 7} storms in district ${n}.`, y: 670 },
      { text: `Grain barges crossed the weir ${n * 3} times while the keeper watched.`, y: 656 },
      { text: `Each crossing on page ${n} was paid in silver coins.`, y: 642 },
      { text: `page ${n} of ${pageCount}`, y: 40, size: 9 },
    ]);
  }
  return tinyPdf({ pages, title: 'Harbour Annual Report' });
}

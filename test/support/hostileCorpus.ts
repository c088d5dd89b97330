// A hostile-input corpus generated on the fly (nothing stored in the repository): inputs that hung or exploded
// the parsers before issue 9 — megabyte-long Markdown lines, nested and unclosed HTML, deep lists, a huge .jsonl of
// bad lines, a .docx and a PDF that inflate far beyond their size, a PDF with too many pages, 0- and 1-byte files,
// invalid UTF-8 — plus two ordinary files. Each entry says which verdict the app must give and why. Used by the
// unit tests (test/unit/workers/hostileIngest.test.ts), the e2e spec (07-hostile-input) and the timing benchmark
// (test/bench/hostile-input.ts).
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { Zip, type ZipInputFile } from 'fflate';

export interface HostileFile {
  name: string;
  bytes: Uint8Array;
  /** The verdict the app must give. */
  expect: 'indexed' | 'failed';
  /** What the reason must say (failed), or what the partial-failure note must say (indexed with bad parts). */
  reason?: RegExp;
}

const encoder = new TextEncoder();
const text = (s: string): Uint8Array => encoder.encode(s);
const MB = 1024 * 1024;

/**
 * Raw deflate data for `parts` without ever holding them inflated: each part is deflated on its own and ended
 * with a full flush (byte-aligned, no back-references across parts), so the same compressed piece can be
 * repeated; a final empty block closes the stream. 1 MB of spaces deflates to about 1 KB.
 */
function deflatedPieces(parts: Iterable<Uint8Array>): {
  data: Uint8Array<ArrayBuffer>;
  size: number;
  crc: number;
} {
  const cache = new Map<Uint8Array, Uint8Array>();
  const out: Uint8Array[] = [];
  let size = 0;
  let crc = 0;
  for (const part of parts) {
    let piece = cache.get(part);
    if (!piece) {
      piece = deflateRawSync(part, { finishFlush: constants.Z_FULL_FLUSH });
      cache.set(part, piece);
    }
    out.push(piece);
    size += part.length;
    crc = crc32(part, crc);
  }
  out.push(deflateRawSync(new Uint8Array(0)));
  return { data: concat(out), size, crc };
}

/** A zip whose entries are given as pieces (deflated piece by piece, so a 256 MB entry never exists). */
function zip(entries: { name: string; pieces: () => Iterable<Uint8Array> }[]): Uint8Array {
  const out: Uint8Array[] = [];
  const archive = new Zip((error, data) => {
    if (error) throw error;
    out.push(data);
  });
  for (const entry of entries) {
    const { data, size, crc } = deflatedPieces(entry.pieces());
    // fflate's Zip takes a file of any kind: this one hands over data that is already deflated.
    const file: ZipInputFile = { filename: entry.name, size, crc, compression: 8, terminate: () => {} };
    archive.add(file);
    file.ondata?.(null, data, true);
  }
  archive.end();
  return concat(out);
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

function* repeated(piece: Uint8Array, times: number): Iterable<Uint8Array> {
  for (let i = 0; i < times; i++) yield piece;
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

/** A .docx whose word/document.xml is `inflatedMb` MB of spaces inside one paragraph (deflates ~1000:1). */
export function docxBomb(inflatedMb: number): Uint8Array {
  const head = text(
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>',
  );
  const tail = text('</w:t></w:r></w:p></w:body></w:document>');
  const spaces = new Uint8Array(MB).fill(0x20);
  return zip([
    { name: '[Content_Types].xml', pieces: () => [text(CONTENT_TYPES)] },
    { name: '_rels/.rels', pieces: () => [text(RELS)] },
    {
      name: 'word/document.xml',
      pieces: function* () {
        yield head;
        yield* repeated(spaces, inflatedMb);
        yield tail;
      },
    },
  ]);
}

/**
 * A .docx whose word/document.xml is `inflatedMb` MB of one-word paragraphs (~100 KB stored for 40 MB): under
 * every size limit, but mammoth builds a tree of every element (issue 23: 40 MB of XML ran past 300 s at 4.3 GB).
 */
export function docxXmlBomb(inflatedMb: number): Uint8Array {
  const head = text(
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>',
  );
  const tail = text('</w:body></w:document>');
  const paragraph = '<w:p><w:r><w:t>heron </w:t></w:r></w:p>';
  const piece = text(paragraph.repeat(Math.floor(MB / paragraph.length)));
  return zip([
    { name: '[Content_Types].xml', pieces: () => [text(CONTENT_TYPES)] },
    { name: '_rels/.rels', pieces: () => [text(RELS)] },
    {
      name: 'word/document.xml',
      pieces: function* () {
        yield head;
        yield* repeated(piece, inflatedMb);
        yield tail;
      },
    },
  ]);
}

/** An ordinary small .docx with one heading-less paragraph. */
export function docx(paragraph: string): Uint8Array {
  const body = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>${paragraph}</w:t></w:r></w:p></w:body></w:document>`;
  return zip([
    { name: '[Content_Types].xml', pieces: () => [text(CONTENT_TYPES)] },
    { name: '_rels/.rels', pieces: () => [text(RELS)] },
    { name: 'word/document.xml', pieces: () => [text(body)] },
  ]);
}

/** A PDF from object bodies (numbered from 1; object 1 is the catalog), with a correct xref table. */
function pdf(objects: (Uint8Array | string)[]): Uint8Array {
  const parts: Uint8Array[] = [text('%PDF-1.4\n')];
  let length = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const bytes = concat([
      text(`${i + 1} 0 obj\n`),
      typeof body === 'string' ? text(body) : body,
      text('\nendobj\n'),
    ]);
    parts.push(bytes);
    length += bytes.length;
  });
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(text(xref));
  return concat(parts);
}

/** A one-page PDF whose content stream inflates to `inflatedMb` MB (spaces, then one line of text). */
export function pdfBomb(inflatedMb: number): Uint8Array {
  const spaces = new Uint8Array(MB).fill(0x20);
  const { data } = deflatedPieces(
    (function* () {
      yield* repeated(spaces, inflatedMb);
      yield text('BT /F1 12 Tf 10 10 Td (bomb) Tj ET');
    })(),
  );
  // A zlib stream (FlateDecode): header, raw deflate, then an Adler-32 that readers do not check here.
  const stream = concat([new Uint8Array([0x78, 0x01]), data, new Uint8Array(4)]);
  return pdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    concat([
      text(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`),
      stream,
      text('\nendstream'),
    ]),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/** A PDF with `pages` empty pages. */
export function pdfPages(pages: number): Uint8Array {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  return pdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    ...Array.from({ length: pages }, () => '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>'),
  ]);
}

/** A .jsonl of `bad` lines that are not JSON and `good` valid passages. */
export function jsonlWithBadLines(bad: number, good: number): Uint8Array {
  const lines: string[] = [];
  for (let i = 0; i < good; i++) {
    lines.push(
      JSON.stringify({ title: `Passage ${i}`, text: `Passage ${i} tells of the mill on the river.` }),
    );
  }
  for (let i = 0; i < bad; i++) lines.push(`{"title": "broken ${i}", "text": `);
  return text(lines.join('\n'));
}

/** Bytes from a fixed-seed generator (same corpus every run). */
function noise(length: number, seed = 7): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** Every hostile file, plus two ordinary ones that must be indexed in the same batch. */
export function hostileCorpus(): HostileFile[] {
  const line = (unit: string, bytes = MB) =>
    text(`# Long line\n\n${unit.repeat(Math.floor(bytes / unit.length))}\n`);
  const deepList = Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i * 2)}- level ${i}`).join('\n');
  const latin1 = new Uint8Array([
    ...text('Caf'),
    0xe9,
    ...text(' au lait, cr'),
    0xe8,
    ...text('me br'),
    0xfb,
    ...text('l'),
    0xe9,
    0x2e,
  ]);
  return [
    {
      name: 'good-notes.md',
      bytes: text('# Mill notes\n\nThe mill on the river grinds grain every autumn.\n'),
      expect: 'indexed',
    },
    {
      name: 'good-letter.txt',
      bytes: text('The ferry crosses the river twice a day in summer.'),
      expect: 'indexed',
    },
    { name: 'md-brackets-1mb.md', bytes: line('['), expect: 'indexed' },
    { name: 'md-links-1mb.md', bytes: line('[a]('), expect: 'indexed' },
    { name: 'md-images-1mb.md', bytes: line('!['), expect: 'indexed' },
    { name: 'md-emphasis-1mb.md', bytes: line('*a_'), expect: 'indexed' },
    { name: 'md-backticks-1mb.md', bytes: line('`a'), expect: 'indexed' },
    { name: 'md-angle-1mb.md', bytes: line('<a '), expect: 'indexed' },
    { name: 'md-deep-list.md', bytes: text(deepList), expect: 'indexed' },
    // markdown-it stops nesting at depth 100 (its guard against deep recursion) and drops what is deeper.
    {
      name: 'md-deep-quote.md',
      bytes: text(`${'>'.repeat(100_000)} deep`),
      expect: 'failed',
      reason: /no text found/,
    },
    { name: 'html-text-pieces-1mb.html', bytes: text(' a<b>'.repeat(200_000)), expect: 'indexed' },
    { name: 'html-unclosed-div.html', bytes: text('<div>x'.repeat(200_000)), expect: 'indexed' },
    {
      name: 'html-misnested.html',
      bytes: text('<b><i>'.repeat(50_000) + 'text' + '</b></p>'.repeat(50_000)),
      expect: 'indexed',
    },
    {
      name: 'html-unclosed-comment.html',
      bytes: text('<!-- ' + 'x '.repeat(500_000)),
      expect: 'failed',
      reason: /no text found/,
    },
    {
      name: 'html-unclosed-script.html',
      bytes: text('<p>before</p><script>' + 'x<'.repeat(500_000)),
      expect: 'indexed',
    },
    {
      name: 'jsonl-200k-bad-lines.jsonl',
      bytes: jsonlWithBadLines(200_000, 3),
      expect: 'indexed',
      reason: /and 199,?980 more bad lines/,
    },
    {
      name: 'jsonl-all-bad.jsonl',
      bytes: jsonlWithBadLines(50_000, 0),
      expect: 'failed',
      reason: /line 20: .*and 49,?980 more bad lines/s,
    },
    {
      name: 'docx-bomb-256mb.docx',
      bytes: docxBomb(256),
      expect: 'failed',
      reason: /more than 200 MB when decompressed/,
    },
    {
      name: 'good-small.docx',
      bytes: docx('The weir holds the water back in dry summers.'),
      expect: 'indexed',
    },
    {
      name: 'pdf-bomb-256mb.pdf',
      bytes: pdfBomb(256),
      expect: 'failed',
      reason: /more than 200 MB when decompressed/,
    },
    {
      name: 'pdf-3000-pages.pdf',
      bytes: pdfPages(3000),
      expect: 'failed',
      reason: /3000 pages \(the limit is 2000/,
    },
    { name: 'zero-bytes.txt', bytes: new Uint8Array(0), expect: 'failed', reason: /the file is empty/ },
    { name: 'one-byte.md', bytes: text('x'), expect: 'indexed' },
    { name: 'one-space.txt', bytes: text(' '), expect: 'failed', reason: /no text found/ },
    { name: 'latin1-invalid-utf8.txt', bytes: latin1, expect: 'indexed' },
    { name: 'noise-invalid-utf8.md', bytes: noise(256 * 1024), expect: 'failed', reason: /not a text file/ },
  ];
}

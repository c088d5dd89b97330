// Builds the scanned set: sections of the project's source papers (/work/shared/papers) printed to text PDFs by
// headless Chromium, then each page rendered to a gray JPEG by pdftoppm (150 dpi, as an office scanner's default)
// and rebuilt into an image-only PDF (no text layer at all). The text copies and the scanned copies hold the same
// pages, so retrieval and character accuracy compare like with like.
//
//   node test/bench/scanned/build.mjs [papers dir] [out dir] [chromium]
//   node test/bench/scanned/build.mjs --fixture      (test/fixtures/scanned/harbour-scan.pdf and
//                                                     harbour-outlines.pdf, committed, with their .truth.json)
//
// Out: <out>/text/<id>.pdf, <out>/scan/<id>.pdf (default out: test/fixtures/generated/scanned, not in git).
// Needs pdftoppm (Debian: poppler-utils) and a CJK font for the Chinese pages (Debian: fonts-wqy-microhei).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { grayJpegPages, printToPdf } from '../lib/printPdf.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const papers = process.argv[2] && process.argv[2] !== '--fixture' ? process.argv[2] : '/work/shared/papers';
const out = process.argv[3] ?? join(here, '../../fixtures/generated/scanned');
const chromium = process.argv[4] ?? '/usr/bin/chromium';

const HAN = /\p{Script=Han}/gu;
const hanShare = (line) => (line.match(HAN)?.length ?? 0) / Math.max(1, line.replace(/\s/g, '').length);

/** The paper's sections: heading line → its body lines, until the next numbered heading. */
function sections(text) {
  const out = new Map();
  let current;
  for (const line of text.split('\n')) {
    const heading = /^#*\s*(\d+(?:\.\d+)*) (\S.*)$/.exec(line);
    if (heading && !out.has(heading[1])) {
      current = { number: heading[1], title: heading[2].trim(), lines: [] };
      out.set(heading[1], current);
      continue;
    }
    if (
      current &&
      line.trim() &&
      !line.startsWith('|') &&
      !line.startsWith('Figure') &&
      !line.startsWith('Table')
    ) {
      current.lines.push(line.trim());
    }
  }
  return out;
}

function capped(lines, maxChars) {
  const kept = [];
  let total = 0;
  for (const line of lines) {
    if (total + line.length > maxChars && kept.length > 0) break;
    kept.push(line);
    total += line.length;
  }
  return kept;
}

const escape = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** id, title, paragraphs. English: the English lines of PIKE-RAG (a bilingual translation); Chinese: KAG and G2ConS. */
function documents() {
  const docs = [];
  const pike = sections(readFileSync(join(papers, '003_c24fda356dee713b.txt'), 'utf8'));
  for (const number of [
    '1',
    '2.1',
    '3.1',
    '3.2',
    '3.3',
    '4.1',
    '4.2',
    '5.1.1',
    '5.1.2',
    '5.2.1',
    '5.2.2',
    '5.2.3',
    '5.3.1',
    '5.3.2',
    '5.3.3',
    '5.4',
    '5.5',
  ]) {
    const s = pike.get(number);
    const english = s.lines.filter((l) => hanShare(l) < 0.05 && !l.startsWith('$'));
    docs.push({
      id: `en-pike-${number}`,
      lang: 'en',
      title: `${number} ${s.title}`,
      paragraphs: capped(english, 5200),
    });
  }
  const kag = sections(readFileSync(join(papers, '004_d7b8e9c4b4409069.txt'), 'utf8'));
  for (const number of ['1', '2.1', '2.2.1', '2.2.2', '2.3.1']) {
    const s = kag.get(number);
    docs.push({
      id: `zh-kag-${number}`,
      lang: 'zh',
      title: `${number} ${s.title}`,
      paragraphs: capped(s.lines, 1700),
    });
  }
  const g2 = sections(readFileSync(join(papers, '001_88a023139436d0bf.txt'), 'utf8'));
  for (const number of ['1', '3.2', '4.4', '4.5']) {
    const s = g2.get(number);
    docs.push({
      id: `zh-g2cons-${number}`,
      lang: 'zh',
      title: `${number} ${s.title}`,
      paragraphs: capped(s.lines, 1700),
    });
  }
  return docs;
}

function html(doc) {
  const font = doc.lang === 'zh' ? "'WenQuanYi Micro Hei', sans-serif" : "'DejaVu Serif', serif";
  return `<!doctype html><html lang="${doc.lang}"><meta charset="utf-8"><title>${escape(doc.title)}</title>
<style>@page { size: A4; margin: 22mm 20mm; } body { font: 11.5pt/1.5 ${font}; } h1 { font-size: 17pt; }</style>
<h1>${escape(doc.title)}</h1>
${doc.paragraphs.map((p) => `<p>${escape(p.replace(/^#+\s*/, ''))}</p>`).join('\n')}
</html>`;
}

/** A PDF of JPEG pages (DCTDecode, gray), each page one image covering an A4 page: what a scanner writes. */
export function imagePdf(jpegs) {
  const objects = [];
  const add = (body) => objects.push(body) - 1 + 1;
  const pageIds = [];
  const catalog = add(null);
  const pagesId = add(null);
  for (const jpeg of jpegs) {
    const width = jpeg.readUInt16BE(jpeg.indexOf(Buffer.from([0xff, 0xc0])) + 7);
    const height = jpeg.readUInt16BE(jpeg.indexOf(Buffer.from([0xff, 0xc0])) + 5);
    const image = add(
      Buffer.concat([
        Buffer.from(
          `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray ` +
            `/BitsPerComponent 8 /Filter /DCTDecode /Length ${jpeg.length} >>\nstream\n`,
        ),
        jpeg,
        Buffer.from('\nendstream'),
      ]),
    );
    const draw = 'q 595 0 0 842 0 0 cm /Im Do Q';
    const content = add(Buffer.from(`<< /Length ${draw.length} >>\nstream\n${draw}\nendstream`));
    pageIds.push(
      add(
        Buffer.from(
          `<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 595 842] ` +
            `/Resources << /XObject << /Im ${image} 0 R >> >> /Contents ${content} 0 R >>`,
        ),
      ),
    );
  }
  objects[catalog - 1] = Buffer.from(`<< /Type /Catalog /Pages ${pagesId} 0 R >>`);
  objects[pagesId - 1] = Buffer.from(
    `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`,
  );
  const parts = [Buffer.from('%PDF-1.4\n%\xff\xff\xff\xff\n', 'latin1')];
  const offsets = [];
  let at = parts[0].length;
  objects.forEach((body, i) => {
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    offsets.push(at);
    parts.push(chunk);
    at += chunk.length;
  });
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${at}\n%%EOF\n`;
  parts.push(Buffer.from(xref));
  return Buffer.concat(parts);
}

export function scanPdf(textPdf, scanPath, work, dpi = 150) {
  const jpegs = grayJpegPages(textPdf, work, dpi, 75);
  writeFileSync(scanPath, imagePdf(jpegs));
  return jpegs.length;
}

/** The sentence the e2e asks about, on page 2 of the fixture; its place on the page is written beside it. */
const FIXTURE_SENTENCE = 'The lighthouse at Port Ellen was rebuilt in granite after the storm of 1888.';

/**
 * Where a sentence lies on a page of a text PDF, from poppler's word boxes (pdftotext -bbox): one box per line, in
 * fractions of the page, top-left origin. The scan is a picture of that page, so this is where the viewer's mark
 * must be, found without the app's code.
 */
function sentencePlace(textPdf, pageNumber, sentence) {
  const xhtml = execFileSync(
    'pdftotext',
    ['-bbox', '-f', String(pageNumber), '-l', String(pageNumber), textPdf, '-'],
    {
      encoding: 'utf8',
    },
  );
  const size = /<page width="([\d.]+)" height="([\d.]+)"/.exec(xhtml);
  const words = [
    ...xhtml.matchAll(
      /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
    ),
  ].map((m) => ({ x0: +m[1], y0: +m[2], x1: +m[3], y1: +m[4], text: m[5] }));
  const wanted = sentence.split(' ');
  const start = words.findIndex((_, i) => wanted.every((w, k) => words[i + k]?.text === w));
  if (start < 0) throw new Error(`"${sentence}" is not on page ${pageNumber} of ${textPdf}`);
  const lines = [];
  for (const word of words.slice(start, start + wanted.length)) {
    const line = lines.at(-1);
    if (line && Math.abs(line.y0 - word.y0) < (word.y1 - word.y0) / 2) {
      line.x1 = Math.max(line.x1, word.x1);
      line.y1 = Math.max(line.y1, word.y1);
    } else lines.push({ ...word });
  }
  const [width, height] = [Number(size[1]), Number(size[2])];
  const round = (v) => Math.round(v * 10_000) / 10_000;
  return {
    page: pageNumber,
    sentence,
    lines: lines.map((l) => ({
      x0: round(l.x0 / width),
      y0: round(l.y0 / height),
      x1: round(l.x1 / width),
      y1: round(l.y1 / height),
    })),
  };
}

/**
 * The test fixture (test/fixtures/scanned/harbour-scan.pdf): two scanned pages of a small report with a running
 * header and a page footer, the fact the tests ask for on page 2. 120 dpi and JPEG quality 60 keep it near 100 KB.
 */
function buildFixture() {
  const work = join(tmpdir(), `scanned-fixture-${process.pid}`);
  mkdirSync(work, { recursive: true });
  const page = (
    n,
    paragraphs,
  ) => `<section class="page"><div class="header">Harbour Annual Report · Confidential</div>
<h1>${n}. ${n === 1 ? 'The quays' : 'The lighthouse'}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('')}
<div class="footer">page ${n} of 2</div></section>`;
  const html = `<!doctype html><html lang="en"><meta charset="utf-8"><style>
@page { size: A5; margin: 0; } body { margin: 0; font: 11pt/1.45 'DejaVu Serif', serif; }
.page { height: 210mm; box-sizing: border-box; padding: 14mm 14mm; position: relative; page-break-after: always; }
.header { font-size: 8pt; } .footer { position: absolute; bottom: 10mm; font-size: 8pt; } h1 { font-size: 16pt; }
</style>
${page(1, [
  'The keepers of the harbour counted four hundred barrels of grain on the north quay in the spring.',
  'Barges from the mill crossed the weir twelve times that year, each carrying slate for the new warehouse.',
])}
${page(2, [
  FIXTURE_SENTENCE,
  'Its lamp was first lit again on the ninth of March, and the harbour master recorded the date in the ledger.',
])}</html>`;
  writeFileSync(join(work, 'harbour.html'), html);
  const textPdf = join(work, 'harbour.pdf');
  printToPdf(join(work, 'harbour.html'), textPdf, chromium);
  const fixtures = join(here, '../../fixtures/scanned');
  mkdirSync(fixtures, { recursive: true });
  const jpegs = grayJpegPages(textPdf, join(work, 'pages'), 120, 60);
  writeFileSync(join(fixtures, 'harbour-scan.pdf'), imagePdf(jpegs));
  writeFileSync(
    join(fixtures, 'harbour-scan.truth.json'),
    `${JSON.stringify(sentencePlace(textPdf, 2, FIXTURE_SENTENCE), null, 2)}\n`,
  );
  rmSync(work, { recursive: true, force: true });
  console.log(`test/fixtures/scanned/harbour-scan.pdf: ${jpegs.length} pages`);
}

/**
 * The mixed fixture (test/fixtures/scanned/harbour-outlines.pdf): page 1 a text page, page 2 the same kind of page
 * with its letters turned into vector outlines by Ghostscript (-dNoOutputFonts): no text layer and no picture, as a
 * PDF "printed to outlines" comes. Only page 2 must be recognised. Needs gs (Debian: ghostscript).
 */
function buildOutlinesFixture() {
  const work = join(tmpdir(), `outlines-fixture-${process.pid}`);
  mkdirSync(work, { recursive: true });
  const page = (n, title, paragraphs) => `<section class="page"><h1>${n}. ${title}</h1>
${paragraphs.map((p) => `<p>${p}</p>`).join('')}</section>`;
  const html = `<!doctype html><html lang="en"><meta charset="utf-8"><style>
@page { size: A5; margin: 0; } body { margin: 0; font: 11pt/1.45 'DejaVu Serif', serif; }
.page { height: 210mm; box-sizing: border-box; padding: 14mm; page-break-after: always; } h1 { font-size: 16pt; }
</style>
${page(1, 'The ferry', [
  'The ferry to the island sailed twice a day in summer and once a day in winter, weather permitting.',
])}
${page(2, 'The signal station', [
  OUTLINES_SENTENCE,
  'Its keeper sent the first telegraph message across the sound in the spring of 1902.',
])}</html>`;
  writeFileSync(join(work, 'outlines.html'), html);
  const textPdf = join(work, 'text.pdf');
  printToPdf(join(work, 'outlines.html'), textPdf, chromium);
  const gs = (args) =>
    execFileSync('gs', ['-q', '-dBATCH', '-dNOPAUSE', '-dSAFER', '-sDEVICE=pdfwrite', ...args]);
  gs([`-sOutputFile=${join(work, 'p1.pdf')}`, '-dFirstPage=1', '-dLastPage=1', textPdf]);
  gs([`-sOutputFile=${join(work, 'p2.pdf')}`, '-dFirstPage=2', '-dLastPage=2', '-dNoOutputFonts', textPdf]);
  const fixtures = join(here, '../../fixtures/scanned');
  gs([`-sOutputFile=${join(fixtures, 'harbour-outlines.pdf')}`, join(work, 'p1.pdf'), join(work, 'p2.pdf')]);
  writeFileSync(
    join(fixtures, 'harbour-outlines.truth.json'),
    `${JSON.stringify(sentencePlace(textPdf, 2, OUTLINES_SENTENCE), null, 2)}\n`,
  );
  rmSync(work, { recursive: true, force: true });
  console.log('test/fixtures/scanned/harbour-outlines.pdf: 2 pages, page 2 in outlines');
}

const OUTLINES_SENTENCE = 'The signal station on the headland was built of basalt blocks in 1874.';

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--fixture') {
  buildFixture();
  buildOutlinesFixture();
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(join(out, 'text'), { recursive: true });
  mkdirSync(join(out, 'scan'), { recursive: true });
  const work = join(tmpdir(), `scanned-build-${process.pid}`);
  let pages = { en: 0, zh: 0 };
  for (const doc of documents()) {
    const page = join(work, `${doc.id}.html`);
    mkdirSync(work, { recursive: true });
    writeFileSync(page, html(doc));
    const textPdf = join(out, 'text', `${doc.id}.pdf`);
    printToPdf(page, textPdf, chromium);
    const n = scanPdf(textPdf, join(out, 'scan', `${doc.id}.pdf`), join(work, 'pages'));
    pages[doc.lang] += n;
    console.log(`${doc.id}: ${n} page(s)`);
  }
  rmSync(work, { recursive: true, force: true });
  console.log(`scanned set: ${pages.en} English pages, ${pages.zh} Chinese pages in ${out}`);
}

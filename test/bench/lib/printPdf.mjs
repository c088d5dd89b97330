// Prints HTML to PDF as a person saves a page (headless Chromium), and renders a PDF's pages to pictures as an office
// scanner would (poppler's pdftoppm): the held-out PDF set and the scanned set are both built this way.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * `htmlFile` printed to `pdfPath` by headless Chromium. --no-pdf-header-footer: no date or file:// address printed
 * into the page's text.
 */
export function printToPdf(htmlFile, pdfPath, chromium = '/usr/bin/chromium') {
  execFileSync(
    chromium,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-pdf-header-footer',
      `--print-to-pdf=${pdfPath}`,
      pathToFileURL(htmlFile).href,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
}

/**
 * Each page of `pdf` as a gray JPEG at `dpi` and JPEG `quality` (pdftoppm; Debian: poppler-utils), in page order.
 * `work` is emptied and used for the pictures.
 */
export function grayJpegPages(pdf, work, dpi, quality) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  execFileSync('pdftoppm', [
    '-r',
    String(dpi),
    '-gray',
    '-jpeg',
    '-jpegopt',
    `quality=${quality}`,
    pdf,
    join(work, 'p'),
  ]);
  return readdirSync(work)
    .filter((n) => n.endsWith('.jpg'))
    .sort()
    .map((n) => readFileSync(join(work, n)));
}

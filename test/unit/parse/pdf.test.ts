// PDFs read as well as Markdown (issue 22): running headers, footers and page numbers dropped; headings from the
// outline, font sizes and numbering; ligature glyphs and UTF-8 mojibake back to text; each chunk's page range.
// Every PDF here is a real file made by test/support/tinyPdf.ts and read through pdf.js.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { prepareFile } from '../../../src/core/prepare.ts';
import { pageAt, pageLabel, pageRange } from '../../../src/core/pages.ts';
import { parseFile } from '../../../src/core/parse/index.ts';
import { isPageNumber, isPrintFurniture, layoutPdf } from '../../../src/core/parse/pdfLayout.ts';
import { pdfItemText, repairMojibake } from '../../../src/core/parse/pdfText.ts';
import { reportWithRunningHeader, tinyPdf, type TinyLine } from '../../support/tinyPdf.ts';

async function parsed(bytes: Uint8Array, name = 'test.pdf') {
  const result = await parseFile(name, bytes);
  expect(result.documents).toHaveLength(1);
  return result.documents[0];
}

const headings = (doc: { sections: { heading: string; level: number }[] }) =>
  doc.sections.filter((s) => s.level > 0).map((s) => [s.heading, s.level]);

describe('PDF page furniture', () => {
  it('drops a running header, a "page n of N" footer and bare page numbers, keeps the body', async () => {
    const doc = await parsed(reportWithRunningHeader(4));
    expect(doc.text).not.toContain('Confidential');
    expect(doc.text).not.toMatch(/page \d of 4/);
    for (let n = 1; n <= 4; n++) {
      expect(doc.text).toContain(`The lighthouse keeper logged ${n * 7} storms in district ${n}.`);
    }
    const bare = await parsed(
      tinyPdf({
        pages: [1, 2, 3].map((n) => [
          { text: `Chapter text on the sheet numbered ${n} tells of barges.`, y: 600 },
          { text: String(n + 10), y: 30, size: 9 },
        ]),
      }),
    );
    expect(bare.text).not.toMatch(/\b1[123]\b/);
    expect(bare.text).toContain('sheet numbered 3 tells of barges.');
  });

  it('keeps a line that repeats in the body, and a header that is on fewer than half of the pages', async () => {
    const pages: TinyLine[][] = [1, 2, 3, 4].map((n) => [
      ...(n === 1 ? [{ text: 'Draft prepared for the harbour board', y: 760, size: 9 }] : []),
      { text: 'Tide tables follow below.', y: 500 },
      { text: `Entry ${n} names the storm of year ${1900 + n}.`, y: 480 },
    ]);
    const doc = await parsed(tinyPdf({ pages }));
    expect(doc.text).toContain('Draft prepared for the harbour board');
    expect(doc.text.match(/Tide tables follow below\./g)).toHaveLength(4);
  });

  it("drops a browser's print header and footer from a one-page PDF, keeps the author's own link", async () => {
    // Chromium's print of a local page: date–time and title at the top, address and page count at the foot.
    const doc = await parsed(
      tinyPdf({
        pages: [
          [
            { text: '11/26/26, 1:24 PM', y: 775, size: 8, x: 20 },
            { text: 'Harbour notes', y: 775, size: 8, x: 280 },
            { text: 'The pilot boat met every barge at the outer buoy before dawn.', y: 600 },
            { text: 'Tide tables are kept at https://harbour.example.org/tides', y: 580 },
            { text: 'file:///home/ann/notes/harbour.html', y: 20, size: 8, x: 20 },
            { text: '1/1', y: 20, size: 8, x: 570 },
          ],
        ],
      }),
    );
    expect(doc.text).toContain('The pilot boat met every barge at the outer buoy before dawn.');
    expect(doc.text).toContain('https://harbour.example.org/tides');
    expect(doc.text).not.toContain('1:24 PM');
    expect(doc.text).not.toContain('file://');
    // An address alone at the foot of an unprinted page is the author's.
    const own = await parsed(
      tinyPdf({
        pages: [
          [
            { text: 'The pilot boat met every barge at the outer buoy before dawn.', y: 600 },
            { text: 'https://harbour.example.org/tides', y: 20, size: 8 },
          ],
        ],
      }),
    );
    expect(own.text).toContain('https://harbour.example.org/tides');
  });

  it('reads a page printed by Chromium: no print header or footer, the code block whole and in place', async () => {
    const doc = await parsed(
      new Uint8Array(
        readFileSync(fileURLToPath(new URL('../../fixtures/browser-print/page.pdf', import.meta.url))),
      ),
      'browser-print.pdf',
    );
    expect(doc.text).not.toMatch(/\d:\d\d [AP]M/);
    expect(doc.text).not.toContain('file://');
    expect(doc.text).not.toMatch(/\b1\/1\b/);
    const code = doc.text.indexOf('fn read_username()');
    expect(doc.text.indexOf('return the error to the calling code.')).toBeLessThan(code);
    expect(doc.text.indexOf('The question mark operator')).toBeGreaterThan(doc.text.indexOf('Ok(username)'));
    expect(doc.text).toContain('File::open("hello.txt")?;\n\nlet mut username = String::new();');
  });

  it("knows a browser's print stamp", () => {
    for (const yes of [
      '11/26/26, 1:24 PM Harbour notes',
      '26.11.26, 13:24',
      'https://a.org/p 2/3',
      'file:///x.html 1/1',
    ]) {
      expect(isPrintFurniture(yes, false), yes).toBe(true);
    }
    for (const no of [
      'https://a.org/p',
      'Updated 2024-05-01',
      'In 1/2 of the cases',
      'Open file:///x.html to see it',
    ]) {
      expect(isPrintFurniture(no, false), no).toBe(false);
    }
    expect(isPrintFurniture('Harbour notes https://a.org/p', true)).toBe(true);
  });

  it('knows a page number when it sees one', () => {
    for (const yes of ['12', '12/40', '- 7 -', 'Page 3 of 9', 'xii', 'p. 4', '(5)']) {
      expect(isPageNumber(yes), yes).toBe(true);
    }
    for (const no of ['12 storms', 'Chapter 3', 'I was there', '2024-05-01', 'Figure 3']) {
      expect(isPageNumber(no), no).toBe(false);
    }
  });
});

describe('PDF headings', () => {
  it('levels headings by font size relative to the body text, and joins a wrapped heading', async () => {
    const doc = await parsed(
      tinyPdf({
        pages: [
          [
            { text: 'River Trade', y: 740, size: 22 },
            { text: 'Grain moved down the river every week of the year.', y: 700 },
            { text: 'Locks and weirs', y: 660, size: 15 },
            { text: 'The lock at Eastweir halved the waiting time.', y: 635 },
            { text: 'A very long section heading that needs more', y: 595, size: 15 },
            { text: 'than one line', y: 578, size: 15 },
            { text: 'Barges waited at the weir for the tide to turn.', y: 550 },
          ],
        ],
      }),
    );
    expect(headings(doc)).toEqual([
      ['River Trade', 1],
      ['Locks and weirs', 2],
      ['A very long section heading that needs more than one line', 2],
    ]);
    const locks = doc.sections.find((s) => s.heading === 'Locks and weirs')!;
    expect(doc.text.slice(locks.start, locks.end).trim()).toBe(
      'Locks and weirs\n\nThe lock at Eastweir halved the waiting time.',
    );
  });

  it('takes a heading measured a little apart (16 and 16.5, as recognised lines are) as one size: one wrapped heading, one level', async () => {
    const doc = await parsed(
      tinyPdf({
        pages: [
          [
            { text: '5.4 Level-3: Predictive Question focused RAG', y: 740, size: 16 },
            { text: 'System', y: 720, size: 16.5 },
            { text: 'In the L3 system there is an increased emphasis on knowledge-based', y: 690 },
            { text: 'prediction, which needs knowledge collection and organization.', y: 676 },
            { text: 'Forecasting rationale', y: 646, size: 16.5 },
            { text: 'The rationale is built from the organized knowledge.', y: 620 },
            { text: 'Creative questions', y: 590, size: 16 },
            { text: 'Multiple agents look at a creative question from several sides.', y: 564 },
          ],
        ],
      }),
    );
    expect(headings(doc)).toEqual([
      ['5.4 Level-3: Predictive Question focused RAG System', 2],
      ['Forecasting rationale', 1],
      ['Creative questions', 1],
    ]);
  });

  it('takes numbered headings ("4.2 Ownership") at body size, level from the number, not numbered list items', async () => {
    const doc = await parsed(
      tinyPdf({
        pages: [
          [
            { text: '4 Memory', y: 740, size: 16 },
            { text: 'Rust manages memory through a set of rules that the compiler', y: 710 },
            { text: 'checks before the program runs.', y: 696 },
            { text: '4.2 Ownership', y: 670 },
            { text: 'Each value has a single owner at any time in the program, and the', y: 644 },
            { text: 'value is dropped when its owner goes out of scope.', y: 630 },
            { text: '1. Install the toolchain', y: 600 },
            { text: '2. Build the crate', y: 586 },
            { text: '4.2.1 Moves', y: 560 },
            { text: 'Assigning a value moves it unless the type is Copy, so the first', y: 534 },
            { text: 'variable can no longer be used.', y: 520 },
          ],
        ],
      }),
    );
    expect(headings(doc)).toEqual([
      ['4 Memory', 1],
      ['4.2 Ownership', 2],
      ['4.2.1 Moves', 3],
    ]);
    expect(doc.text).toContain('1. Install the toolchain 2. Build the crate');
  });

  it('takes headings from the outline where the font says nothing, at the outline level', async () => {
    const body = (y: number, text: string): TinyLine => ({ text, y });
    const doc = await parsed(
      tinyPdf({
        pages: [
          [
            body(740, 'Storm Logbook'),
            body(720, 'The keeper wrote down every storm that reached the bay.'),
            body(690, 'Winter storms'),
            body(670, 'Winter brought the worst storms of the decade.'),
          ],
          [body(740, 'Spring gales'), body(720, 'Spring gales were short but sudden.')],
        ],
        outline: [
          {
            title: 'Storm Logbook',
            page: 1,
            top: 752,
            children: [
              { title: 'Winter storms', page: 1, top: 702 },
              { title: 'Spring gales', page: 2, top: 752 },
            ],
          },
        ],
      }),
    );
    expect(headings(doc)).toEqual([
      ['Storm Logbook', 1],
      ['Winter storms', 2],
      ['Spring gales', 2],
    ]);
  });
});

describe('PDF characters', () => {
  it('turns ligature glyphs (ﬁ ﬂ ﬀ ﬃ ﬄ) into letters', async () => {
    const doc = await parsed(
      tinyPdf({ pages: [[{ text: 'The ﬁrst ﬂow of the diﬀerent oﬃce was baﬄing.', y: 700 }]] }),
    );
    expect(doc.text).toBe('The first flow of the different office was baffling.');
    expect(pdfItemText('ﬅ and ﬆ')).toBe('st and st');
  });

  it('repairs UTF-8 written into a single-byte font ("lÃ©gÃ¨re" → "légère")', async () => {
    const doc = await parsed(
      tinyPdf({ pages: [[{ text: 'Une brise légère souffle à Évian.', y: 700, utf8Bytes: true }]] }),
    );
    expect(doc.text).toBe('Une brise légère souffle à Évian.');
  });

  it('leaves real Latin-1 text and other scripts alone', () => {
    expect(repairMojibake('São Paulo, Ãgua, Ã la carte')).toBe('São Paulo, Ãgua, Ã la carte');
    // The "lÃ aers": "à" whose no-break-space byte came back as a space.
    expect(repairMojibake('voilÃ  the layers')).toBe('voilà the layers');
    expect(repairMojibake('lÃ aers')).toBe('là aers');
    expect(repairMojibake('naÃ¯ve cafÃ©')).toBe('naïve café');
    expect(repairMojibake('Ã©tÃ© 中文')).toBe('Ã©tÃ© 中文');
    expect(pdfItemText('co\u00adoperate')).toBe('cooperate');
  });
});

describe('PDF words broken at a line end', () => {
  // A paragraph wrapped over two lines after "v-" or "algo-" (line spacing 14, one font size).
  const wrapped = (before: string, after: string, elsewhere: string): TinyLine[][] => [
    [
      { text: `Bind the field with ${before}`, y: 700 },
      { text: `${after} and the state follows the input.`, y: 686 },
      { text: elsewhere, y: 640 },
    ],
  ];

  it('a line of one long hyphenated run (a hostile PDF) is laid out in linear time, and a break after it still found', () => {
    // "a-a-a-…" of 400,000 characters: the break's word was looked for from every position of the line and of the
    // paragraph, time quadratic in the run (the first form of this reader took 260 s on this one); only the line's end
    // can hold a broken word. The suite's 60-s limit is far above the linear time (milliseconds) and far below the old.
    const run = `${'a-'.repeat(200_000)}a`;
    const line = (text: string, y: number) => ({ text, x: 72, y, size: 10, mono: false });
    const layout = layoutPdf(
      [[line(run, 700), line(`then the v-`, 686), line('model directive binds it.', 672)]],
      [],
      true,
    );
    expect(layout.text.endsWith('then the v-model directive binds it.')).toBe(true);
    expect(layout.text.length).toBeGreaterThan(run.length);
  });

  it('keeps the hyphen of a word the document writes with it, drops the one of a word it writes whole', async () => {
    const kept = await parsed(
      tinyPdf({ pages: wrapped('v-', 'model', 'Every v-model binding is two-way.') }),
    );
    expect(kept.text).toContain('Bind the field with v-model and the state');
    const joined = await parsed(
      tinyPdf({ pages: wrapped('algo-', 'rithm', 'The algorithm reads every node once.') }),
    );
    expect(joined.text).toContain('Bind the field with algorithm and the state');
  });

  it("with no other use of the word, keeps the hyphen in a browser's print and joins elsewhere", async () => {
    const pages = wrapped('time-to-', 'content', 'Nothing else is said here.');
    const chromium = await parsed(tinyPdf({ pages, producer: 'Skia/PDF m156' }));
    expect(chromium.text).toContain('with time-to-content and');
    const typeset = await parsed(tinyPdf({ pages }));
    expect(typeset.text).toContain('with time-tocontent and');
  });

  it("follows the document's other breaks when a word says nothing, and never joins before a capital", async () => {
    const pages: TinyLine[][] = [
      [
        { text: 'The store is hand-', y: 700 },
        { text: 'written, self-', y: 686 },
        { text: 'hosted and its driver is well-', y: 672 },
        { text: 'known; see the Vue-', y: 658 },
        { text: 'Router guide for the rest.', y: 644 },
        { text: 'A hand-written store beats a well-known one.', y: 600 },
      ],
    ];
    // "self-hosted" is written nowhere else: the two breaks that say (both kept) decide, in a PDF of no browser.
    const doc = await parsed(tinyPdf({ pages }));
    expect(doc.text).toContain(
      'The store is hand-written, self-hosted and its driver is well-known; see the Vue-Router guide',
    );
  });
});

describe('PDF pages', () => {
  it('gives each chunk the pages its text is on, and a paragraph over a page break both pages', async () => {
    // A chapter heading at the top of every page is a heading, not a running header.
    const pages: TinyLine[][] = [1, 2, 3].map((n) => [
      { text: `Chapter ${n}`, y: 740, size: 18 },
      { text: `Storm number ${n} reached the bay in the night and the keeper logged it.`, y: 650 },
      { text: `The harbour was closed for ${n} days after the storm had passed and`, y: 100 },
    ]);
    // The last line of page 1 goes on at the top of page 2.
    pages[1].unshift({ text: 'nobody sailed until the water was calm again.', y: 700 });
    const { documents } = await prepareFile('storms.pdf', tinyPdf({ pages }), { maxChunkTokens: 1200 });
    const [prepared] = documents;
    expect(prepared.doc.pageStarts).toHaveLength(3);
    const chapters = prepared.chunks.map((c) => [c.text.split('\n')[0], c.pageStart, c.pageEnd]);
    expect(chapters).toEqual([
      ['Chapter 1', 1, 2],
      ['Chapter 2', 2, 2],
      ['Chapter 3', 3, 3],
    ]);
    expect(prepared.chunks[0].text).toContain('passed and nobody sailed until the water was calm again.');
    for (const chunk of prepared.chunks) {
      expect(pageAt(prepared.doc.pageStarts!, chunk.start)).toBe(chunk.pageStart);
    }
  });

  it('leaves pages out for sources without them', async () => {
    const { documents } = await prepareFile(
      'notes.md',
      new TextEncoder().encode('# Notes\n\nNo pages here.'),
    );
    expect(documents[0].doc.pageStarts).toBeUndefined();
    expect(documents[0].chunks.every((c) => c.pageStart === undefined && c.pageEnd === undefined)).toBe(true);
  });

  it('labels pages as a reader writes them', () => {
    expect(pageLabel(12)).toBe('p. 12');
    expect(pageLabel(12, 12)).toBe('p. 12');
    expect(pageLabel(12, 13)).toBe('pp. 12–13');
    expect(pageLabel(undefined)).toBe('');
    // Page 2 has no text: it starts where page 3 does, and an offset there is on page 3.
    expect([0, 9, 10, 25].map((o) => pageAt([0, 10, 10, 20], o))).toEqual([1, 1, 3, 4]);
    expect(pageRange([0, 10, 20], 5, 20)).toEqual({ pageStart: 1, pageEnd: 2 });
  });
});

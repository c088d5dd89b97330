// The platform-neutral half of text recognition (src/core/parse/ocr.ts): which pages need it, the language, a
// picture's size read from its header before any decoder runs, and recognised lines turned into layout lines.
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  grayPnm,
  imageDimensions,
  languageOfText,
  ocrPageLines,
  recognisedPage,
  recognisePages,
  recognisedLanguageLabel,
  textIsUsable,
  type OcrEngine,
  type OcrPage,
} from '../../../src/core/parse/ocr.ts';
import { layoutPdf } from '../../../src/core/parse/pdfLayout.ts';
import { ParseError } from '../../../src/core/parse/types.ts';

/** A PNG's signature and IHDR chunk declaring this size (CRC left zero: only the header is read). */
function pngHeader(width: number, height: number): Uint8Array {
  const b = new Uint8Array(33);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const view = new DataView(b.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  b.set([8, 0, 0, 0, 0], 24);
  return b;
}

describe('textIsUsable', () => {
  it('takes a page of real text, refuses none, a few characters, and mojibake', () => {
    expect(textIsUsable('The lighthouse at Port Ellen was rebuilt in granite.')).toBe(true);
    expect(textIsUsable('知识图谱以显式语义组织信息，其核心知识单元为三元组。')).toBe(true);
    expect(textIsUsable('')).toBe(false);
    expect(textIsUsable('12')).toBe(false);
    expect(
      textIsUsable(
        '\uFFFD\uFFFD\u0001\u0002\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFDab',
      ),
    ).toBe(false);
  });
});

describe('languageOfText', () => {
  it('tells Chinese from English by script, and nothing from too little text', () => {
    expect(languageOfText('Retrieval-augmented generation with a concept graph.')).toBe('eng');
    expect(languageOfText('检索增强生成使大语言模型能够访问最新或领域特定的信息 (RAG)')).toBe('chi_sim');
    expect(languageOfText('RAG')).toBeUndefined();
  });
});

describe('imageDimensions', () => {
  it('reads PNG, JPEG and WebP sizes from their headers', () => {
    expect(imageDimensions('a.png', pngHeader(1240, 1754))).toEqual({ width: 1240, height: 1754 });
    // JPEG: SOI, an APP0 segment, then SOF0 with height 600 and width 800.
    const jpeg = new Uint8Array([
      0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0x02, 0x58, 0x03, 0x20, 1, 1, 0x11, 0,
    ]);
    expect(imageDimensions('a.jpg', jpeg)).toEqual({ width: 800, height: 600 });
    // WebP lossless (VP8L): 14-bit width − 1 and height − 1 after the signature byte 0x2f.
    const webp = new Uint8Array(30);
    webp.set(new TextEncoder().encode('RIFF'), 0);
    webp.set(new TextEncoder().encode('WEBPVP8L'), 8);
    webp[20] = 0x2f;
    new DataView(webp.buffer).setUint32(21, (640 - 1) | ((480 - 1) << 14), true);
    expect(imageDimensions('a.webp', webp)).toEqual({ width: 640, height: 480 });
  });

  it('refuses a decompression bomb by its declared size, and a file that is no image', () => {
    // 50,000 × 50,000 gray pixels in a few KB of deflate: refused before anything inflates it.
    const bomb = new Uint8Array([...pngHeader(50_000, 50_000), ...deflateSync(new Uint8Array(1 << 16))]);
    const started = performance.now();
    expect(() => imageDimensions('bomb.png', bomb)).toThrow(ParseError);
    expect(() => imageDimensions('bomb.png', bomb)).toThrow(/too large to recognise \(50000 × 50000 pixels/);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(() => imageDimensions('strip.png', pngHeader(30_000, 10))).toThrow(/per side/);
    expect(() => imageDimensions('zero.png', pngHeader(0, 10))).toThrow(/no pixels/);
    expect(() => imageDimensions('fake.png', new TextEncoder().encode('not a picture at all'))).toThrow(
      /not a readable image \(its header is missing or damaged\)/,
    );
  });
});

describe('ocrPageLines', () => {
  it('places lines in page units (y up), sizes them by row height, joins Han characters', () => {
    const page: OcrPage = {
      width: 1000,
      height: 2000,
      lines: [
        { text: 'Harbour Report', x0: 100, y0: 100, x1: 600, y1: 160, rowHeight: 50 },
        { text: '知 识 图 谱 , 三元组', x0: 100, y0: 300, x1: 600, y1: 330, rowHeight: 25 },
        { text: '   ', x0: 0, y0: 0, x1: 1, y1: 1, rowHeight: 1 },
      ],
    };
    const { lines, height } = ocrPageLines(page, 800);
    expect(height).toBe(800);
    expect(lines.map((l) => l.text)).toEqual(['Harbour Report', '知识图谱 , 三元组']);
    expect(lines[0]).toMatchObject({ x: 40, y: (2000 - 160) * 0.4, size: 20 });
    expect(lines[0].y).toBeGreaterThan(lines[1].y);
  });
});

describe('recognised headings', () => {
  it('joins a title wrapped over two lines whose rows measure 33 and 34 px, and keeps it as the title', () => {
    // The first lines of en-pike-5.4 of the scanned set (150 dpi A4) as Tesseract reads them: the title's second
    // line is a pixel taller, which alone made "System" a heading and the document's title.
    const row = (text: string, y0: number, y1: number, rowHeight: number, x1 = 1100) => ({
      text,
      x0: 132,
      y0,
      x1,
      y1,
      rowHeight,
    });
    const page: OcrPage = {
      width: 1240,
      height: 1754,
      lines: [
        row('5.4 Level-3: Predictive Question focused RAG', 165, 198, 33, 900),
        row('System', 219, 253, 34, 260),
        row('In the L3 system, there is an increased emphasis on knowledge-based', 291, 314, 23),
        row('prediction capability, which necessitates effective knowledge collection,', 325, 348, 23),
        row('organization, and the construction of forecasting rationale. To address', 361, 384, 21),
        row('leverage the task decomposition and coordination module to build forecasting', 397, 420, 23),
      ],
    };
    const layout = layoutPdf([ocrPageLines(page, 842).lines]);
    expect(layout.sections.map((s) => [s.heading, s.level])).toEqual([
      ['5.4 Level-3: Predictive Question focused RAG System', 2],
    ]);
    expect(layout.titleFromHeadings).toBe('5.4 Level-3: Predictive Question focused RAG System');
  });
});

describe('recognisedPage', () => {
  it("maps the words' pixels through where the picture lies on the page, to fractions of the page", () => {
    const page = {
      width: 1000,
      height: 2000,
      // The picture covers the page's right half, top to bottom.
      placement: { x0: 0.5, y0: 0, x1: 1, y1: 1 },
      lines: [
        {
          text: 'Port Ellen',
          x0: 100,
          y0: 200,
          x1: 600,
          y1: 260,
          rowHeight: 40,
          words: [
            { text: 'Port', x0: 100, y0: 200, x1: 300, y1: 260 },
            { text: ' ', x0: 300, y0: 200, x1: 320, y1: 260 },
            { text: 'Ellen', x0: 340, y0: 200, x1: 600, y1: 260 },
          ],
        },
        // A page cached before words were kept: its line is the box.
        { text: 'granite', x0: 0, y0: 1000, x1: 1000, y1: 1100, rowHeight: 60 },
      ],
    };
    expect(recognisedPage(2, page)).toEqual({
      page: 2,
      words: [
        { text: 'Port', x0: 0.55, y0: 0.1, x1: 0.65, y1: 0.13 },
        { text: 'Ellen', x0: 0.67, y0: 0.1, x1: 0.8, y1: 0.13 },
        { text: 'granite', x0: 0.5, y0: 0.5, x1: 1, y1: 0.55 },
      ],
    });
  });
});

describe('recognisePages', () => {
  const engine = (calls: string[]): OcrEngine => ({
    async recognize(image, language) {
      calls.push(image.length < 200 ? `${language} band` : language);
      // Latin text in either model: what an English page gives.
      return [{ text: 'The quays were counted in spring', x0: 0, y0: 0, x1: 10, y1: 10, rowHeight: 10 }];
    },
  });
  // A page 10 pixels wide and 100 high, each row's pixels the row's number.
  const pixels = Uint8Array.from({ length: 1000 }, (_, i) => Math.floor(i / 10));
  const picture = async () => ({ bytes: grayPnm(10, 100, pixels), width: 10, height: 100 });

  it('tells the language from the first page when the document has no text, and reports each page', async () => {
    const calls: string[] = [];
    const progress: string[] = [];
    const { language, languageFrom, results } = await recognisePages('k', [2, 3], picture, undefined, {
      engine: async () => engine(calls),
      onProgress: (p) => progress.push(`${p.page}/${p.pages} ${p.language ?? '?'}`),
    });
    expect(language).toBe('eng');
    expect(languageFrom).toBe('page');
    // The probe reads a band of page 2 with the Chinese model; Latin text comes out, so both pages are read in
    // English, each whole.
    expect(calls).toEqual(['chi_sim band', 'eng', 'eng']);
    expect(progress).toEqual(['1/2 ?', '1/2 eng', '2/2 eng']);
    expect([...results.keys()]).toEqual([2, 3]);
  });

  it('probes a band of the first page, the whole page when the band has too few letters, and decodes it once', async () => {
    const read: string[] = [];
    const decoded: number[] = [];
    const chinese: OcrEngine = {
      async recognize(image) {
        const band = image.length < 200;
        // The band: full width, rows 35 to 44 (from 35 % of the height, a tenth of it) after its 13-byte header.
        const size = new TextDecoder().decode(image.subarray(0, 13)).split('\n')[1];
        read.push(band ? `${size} from row ${image[13]} to ${image.at(-1)}` : 'whole');
        // A title page: the band holds two characters, the whole page a Chinese paragraph.
        const text = band ? '第一' : '知识图谱的构建与推理方法研究综述以及其在问答系统中的应用';
        return [{ text, x0: 0, y0: 0, x1: 10, y1: 10, rowHeight: 10 }];
      },
    };
    const { language, results } = await recognisePages(
      'k',
      [1, 2],
      async (n) => {
        decoded.push(n);
        return picture();
      },
      undefined,
      { engine: async () => chinese },
    );
    expect(language).toBe('chi_sim');
    // The whole first page decided, and its reading is kept: page 1 is not recognised again, page 2 is.
    expect(read).toEqual(['10 10 from row 35 to 44', 'whole', 'whole']);
    expect(results.get(1)?.lines[0].text).toMatch(/^知识图谱/);
    expect(decoded).toEqual([1, 2]);
  });

  it("reads every page in the language set, over the text's, without a probe; names where each came from", async () => {
    const calls: string[] = [];
    const set = await recognisePages('k', [1, 2], picture, 'eng', {
      engine: async () => engine(calls),
      language: 'chi_sim',
    });
    expect([set.language, set.languageFrom]).toEqual(['chi_sim', 'setting']);
    expect(calls).toEqual(['chi_sim', 'chi_sim']);
    const told = await recognisePages('k2', [1], picture, 'chi_sim', {
      engine: async () => engine([]),
      language: 'auto',
    });
    expect([told.language, told.languageFrom]).toEqual(['chi_sim', 'text']);
    expect(recognisedLanguageLabel('chi_sim', 'setting')).toBe('Chinese, as set');
    expect(recognisedLanguageLabel('eng', 'text')).toBe('English, told from its text');
    expect(recognisedLanguageLabel('eng', 'page')).toBe('English, told from its first page');
    expect(recognisedLanguageLabel('eng', undefined)).toBe('English');
    // A record from someone else's bundle: values this version does not know are not shown as they are.
    expect(recognisedLanguageLabel('fra' as 'eng', 'guess' as 'page')).toBe('an unknown language');
  });

  it('takes pages already in the store (a resumed file) without recognising them again', async () => {
    const stored = new Map<string, OcrPage>([
      [
        'k/eng/2',
        { width: 10, height: 10, lines: [{ text: 'kept', x0: 0, y0: 0, x1: 1, y1: 1, rowHeight: 1 }] },
      ],
    ]);
    const forgotten: string[] = [];
    const calls: string[] = [];
    const { results, resumed } = await recognisePages('k', [2, 3], picture, 'eng', {
      engine: async () => engine(calls),
      store: {
        get: async (key) => stored.get(key),
        put: async (key, page) => void stored.set(key, page),
        forget: async (prefix) => void forgotten.push(prefix),
      },
    });
    expect(calls).toEqual(['eng']);
    expect(results.get(2)?.lines[0].text).toBe('kept');
    // One page came from before the interruption (the Library says so).
    expect(resumed).toBe(1);
    expect(stored.has('k/eng/3')).toBe(true);
    expect(forgotten).toEqual(['k/']);
  });

  it('never loads the recogniser for pages without a picture', async () => {
    let loaded = false;
    const { results } = await recognisePages('k', [1], async () => undefined, 'eng', {
      engine: async () => {
        loaded = true;
        return engine([]);
      },
    });
    expect(loaded).toBe(false);
    expect(results.size).toBe(0);
  });
});

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ParseError, parseFile, type ParseResult } from '../../../src/core/parse/index.ts';

const fixture = (name: string): Uint8Array =>
  new Uint8Array(readFileSync(fileURLToPath(new URL(`../../fixtures/docs/${name}`, import.meta.url))));
const parseFixture = (name: string): Promise<ParseResult> => parseFile(name, fixture(name));

/** Headings and the text each section covers, to compare structure in one assertion. */
function outline(result: ParseResult): Array<[string, number, string]> {
  const doc = result.documents[0];
  return doc.sections.map((s) => [s.heading, s.level, doc.text.slice(s.start, s.end)]);
}

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ParseError);
    return (error as ParseError).reason;
  }
  throw new Error('expected a ParseError');
}

describe('parseFile: formats', () => {
  it('.txt: strips the BOM, normalizes CRLF, one implicit section, title from the file name', async () => {
    const result = await parseFixture('hello.txt');
    expect(result.errors).toEqual([]);
    const [doc] = result.documents;
    expect(doc.text).toBe(
      'Hello from a plain text file.\nDr. Smith wrote it in the U.S. last year.\n\nA second paragraph follows here.',
    );
    expect(doc).toMatchObject({ title: 'hello', mime: 'text/plain', sourceName: 'hello.txt', size: 113 });
    expect(doc.sections).toEqual([{ heading: '', level: 0, start: 0, end: doc.text.length }]);
  });

  it('.txt: a short first line set apart by a blank line is the title', async () => {
    const titled = await parseFile(
      'x.txt',
      new TextEncoder().encode('The Old Mill\n\nIt stood by the river.'),
    );
    expect(titled.documents[0].title).toBe('The Old Mill');
    const sentence = await parseFile('y.txt', new TextEncoder().encode('It rained.\n\nThen it stopped.'));
    expect(sentence.documents[0].title).toBe('y');
  });

  it('.txt: decodes UTF-16 with a byte-order mark (LE and BE)', async () => {
    const le = new Uint8Array([0xff, 0xfe, 0x48, 0, 0x69, 0, 0x20, 0, 0xe9, 0]);
    const be = new Uint8Array([0xfe, 0xff, 0, 0x48, 0, 0x69, 0, 0x20, 0, 0xe9]);
    expect((await parseFile('le.txt', le)).documents[0].text).toBe('Hi é');
    expect((await parseFile('be.txt', be)).documents[0].text).toBe('Hi é');
  });

  it('.md: headings (ATX and setext) become sections, markdown syntax is stripped, code kept', async () => {
    const result = await parseFixture('notes.md');
    expect(result.documents[0].title).toBe('Field Notes');
    expect(outline(result)).toEqual([
      [
        'Field Notes',
        1,
        'Field Notes\n\nNotes taken on a walk along the canal towpath. The herons were out early.\n\n',
      ],
      ['Birds', 2, 'Birds\n\n- Grey heron near the second lock\n- Two kingfishers\n\n'],
      ['Setext Heading', 2, 'Setext Heading\n\nCode is kept as text:\n\ncount = 3'],
    ]);
  });

  it('.html: title, h1–h6 sections, entities decoded, scripts and styles never in the text', async () => {
    const result = await parseFixture('page.html');
    const [doc] = result.documents;
    expect(doc.title).toBe('The Lighthouse Keeper');
    expect(doc.text).not.toContain('SECRET');
    expect(doc.text).not.toContain('color');
    expect(outline(result)).toEqual([
      [
        'The Lighthouse Keeper',
        1,
        'The Lighthouse Keeper\n\nEvery night the keeper climbed one hundred steps & lit the lamp.\n\n',
      ],
      [
        'Storms',
        2,
        'Storms\n\nIn winter storms the light could be seen from Port Ellen.\n\nFirst storm\nSecond storm',
      ],
    ]);
  });

  it('.pdf: text with paragraphs from line gaps, larger fonts as headings, title from metadata', async () => {
    const result = await parseFixture('report.pdf');
    const [doc] = result.documents;
    expect(doc.title).toBe('River Trade Report');
    expect(doc.mime).toBe('application/pdf');
    expect(outline(result)).toEqual([
      [
        'Quarterly Report on River Trade',
        1,
        'Quarterly Report on River Trade\n\n' +
          'The river port of Aldmoor handled more grain this quarter than in any quarter before. ' +
          'Barges arrived from the upper valley every week.\n\n' +
          'Dr. Helen Ward, the harbour master, credits the new lock at Eastweir. ' +
          'It opened in March and halved the waiting time for loaded barges.\n\n',
      ],
      ['Outlook', 2, 'Outlook\n\nTrade is expected to grow again next quarter if the water level holds.'],
    ]);
  });

  it('.docx: Word headings become sections through mammoth', async () => {
    const result = await parseFixture('memo.docx');
    expect(result.documents[0].title).toBe('Memo on the Library Move');
    expect(outline(result)).toEqual([
      [
        'Memo on the Library Move',
        1,
        'Memo on the Library Move\n\nThe city library will move to the old corn exchange in September.\n\n' +
          'Opening hours stay the same & members keep their cards.\n\n',
      ],
      ['Volunteers', 2, 'Volunteers\n\nVolunteers are needed to carry the rare maps on the first weekend.'],
    ]);
  });

  it('.jsonl: one document per line with the title as heading, bad lines reported by number', async () => {
    const result = await parseFixture('passages.jsonl');
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0].file).toBe('passages.jsonl');
    expect(result.errors[0].reason).toMatch(/^line 4: not valid JSON/);
    expect(result.documents.map((d) => [d.sourceName, d.externalId, d.title, d.text])).toEqual([
      [
        'passages.jsonl#1',
        'p1',
        'Ermengarde of Tours',
        'Ermengarde of Tours\n\nErmengarde of Tours was the wife of Lothair I.',
      ],
      [
        'passages.jsonl#2',
        'p2',
        'Lothair II',
        'Lothair II\n\nLothair II was a son of Lothair I and Ermengarde of Tours.',
      ],
      ['passages.jsonl#5', '3', 'passages.jsonl line 5', 'A passage without a title.'],
    ]);
    expect(result.documents[0].sections).toEqual([
      { heading: 'Ermengarde of Tours', level: 1, start: 0, end: 67 },
    ]);
    expect(result.documents[2].sections).toEqual([{ heading: '', level: 0, start: 0, end: 26 }]);
    expect(result.documents[0].size).toBe(
      new TextEncoder().encode(
        '{"id": "p1", "title": "Ermengarde of Tours", "text": "Ermengarde of Tours was the wife of Lothair I."}',
      ).length,
    );
  });

  it('.jsonl: lines with the wrong shape are reported, not fatal', async () => {
    const source = '[1,2]\n{"title": 5, "text": "x"}\n{"title": "t"}\n{"title": "ok", "text": "fine"}\n';
    const result = await parseFile('shapes.jsonl', new TextEncoder().encode(source));
    expect(result.errors.map((e) => e.reason)).toEqual([
      'line 1: expected an object {"title", "text"}',
      'line 2: "title" must be a string',
      'line 3: missing "text" string',
    ]);
    expect(result.documents.map((d) => d.text)).toEqual(['ok\n\nfine']);
  });
});

describe('parseFile: bad input', () => {
  it('reports empty, binary, corrupt and unsupported files with user-facing reasons', async () => {
    expect(await reasonOf(parseFixture('empty.txt'))).toBe('the file is empty');
    expect(await reasonOf(parseFixture('binary.txt'))).toBe('not a text file (binary content)');
    expect(await reasonOf(parseFixture('corrupt.pdf'))).toMatch(/^not a valid PDF \(.+\)$/);
    expect(await reasonOf(parseFixture('no-text.pdf'))).toBe(
      'no text found in the PDF (scanned pages without a text layer cannot be read)',
    );
    expect(await reasonOf(parseFile('notes.docx', fixture('hello.txt')))).toMatch(
      /^not a valid \.docx \(.+\)$/,
    );
    expect(await reasonOf(parseFile('photo.xyz', fixture('hello.txt')))).toBe(
      'unsupported file type .xyz (supported: .txt, .text, .md, .markdown, .html, .htm, .xhtml, .pdf, .docx, .jsonl, .ndjson, .png, .jpg, .jpeg, .webp)',
    );
    expect(await reasonOf(parseFile('blank.md', new TextEncoder().encode('  \n\n  ')))).toBe(
      'no text found in the file',
    );
  });

  it('treats mostly invalid UTF-8 with control bytes as binary but tolerates a few bad bytes', async () => {
    // Invalid UTF-8 with control bytes (like most binary formats) but no NUL byte.
    const mostlyBad = new Uint8Array(300).map((_, i) => [0xff, 0x01, 0x41][i % 3]);
    expect(await reasonOf(parseFile('data.txt', mostlyBad))).toBe('not a text file (binary content)');
    const fewBad = new TextEncoder().encode('a'.repeat(100) + '\u00e9');
    const bytes = new Uint8Array([...fewBad, 0xff]);
    expect((await parseFile('ok.txt', bytes)).documents[0].text).toBe('a'.repeat(100) + 'é\ufffd');
  });

  it('reads an old Latin-1 / Windows-1252 file as such instead of replacing its accents', async () => {
    // "Café crème — déjà vu" in Windows-1252: é = 0xE9, è = 0xE8, à = 0xE0, em dash = 0x97.
    const latin1 = new Uint8Array([
      ...new TextEncoder().encode('Caf'), 0xe9, ...new TextEncoder().encode(' cr'), 0xe8,
      ...new TextEncoder().encode('me '), 0x97, ...new TextEncoder().encode(' d'), 0xe9,
      ...new TextEncoder().encode('j'), 0xe0, ...new TextEncoder().encode(' vu'),
    ]); // prettier-ignore
    expect((await parseFile('old.txt', latin1)).documents[0].text).toBe('Café crème — déjà vu');
  });

  it('a ParseError names the file and the reason', () => {
    const error = new ParseError('a.pdf', 'not a valid PDF (x)');
    expect(error.message).toBe('parse: a.pdf: not a valid PDF (x)');
    expect([error.file, error.reason]).toEqual(['a.pdf', 'not a valid PDF (x)']);
  });
});

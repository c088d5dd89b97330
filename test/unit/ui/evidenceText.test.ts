// The evidence card's blocks: code set apart from prose, highlights placed by document offsets, the best one marked.
import { describe, expect, it } from 'vitest';
import { citationPieces, evidenceBlocks } from '../../../src/ui/evidenceText.ts';

describe('evidenceBlocks', () => {
  const text =
    'We can force it with the immediate: true option:\n\nwatch(\n  source,\n  { immediate: true }\n)\n\nThe end.';
  const base = 1000;

  it('keeps the text as written, sets code blocks apart and marks the best highlight', () => {
    const best = { start: base, end: base + text.indexOf(':\n') + 1 };
    const code = { start: base + text.indexOf('watch('), end: base + text.indexOf(')\n\n') + 1 };
    const blocks = evidenceBlocks(text, base, [best, code]);
    expect(blocks.map((b) => b.pieces.map((p) => p.text).join('') + b.after).join('')).toBe(text);
    expect(blocks.map((b) => b.code)).toEqual([false, true, false]);
    const marks = blocks.flatMap((b) => b.pieces.filter((p) => p.sentence));
    expect(marks.map((m) => [m.text, m.sentence?.best])).toEqual([
      ['We can force it with the immediate: true option:', true],
      ['watch(\n  source,\n  { immediate: true }\n)', false],
    ]);
    expect(marks[0].sentence).toMatchObject({ start: best.start, end: best.end });
  });

  it('keeps a code block with a blank line inside whole, between the prose around it', () => {
    // Issue 44: such a block was drawn as one grey box per paragraph of code.
    const withBlank =
      'It can return the error to the calling code.\n\nfn read_username() -> Result<String, io::Error> {\n' +
      '    let mut file = File::open("hello.txt")?;\n\n    let mut username = String::new();\n' +
      '    file.read_to_string(&mut username)?;\n    Ok(username)\n}\n\nThe question mark returns the Err value.';
    const blocks = evidenceBlocks(withBlank, 0, []);
    expect(blocks.map((b) => b.code)).toEqual([false, true, false]);
    expect(blocks.map((b) => b.pieces.map((p) => p.text).join('') + b.after).join('')).toBe(withBlank);
    expect(blocks[1].pieces.map((p) => p.text).join('')).toMatch(
      /^fn read_username[\s\S]*String::new\(\);[\s\S]*\}$/,
    );
  });

  it('drops highlights outside the passage', () => {
    const blocks = evidenceBlocks(text, base, [{ start: 10, end: 20 }]);
    expect(blocks.flatMap((b) => b.pieces).some((p) => p.sentence)).toBe(false);
  });
});

describe('citationPieces', () => {
  it('splits a written answer into its text and its [n] citations, with no empty piece between two citations', () => {
    expect(citationPieces('Paris [1][12], not Lyon [x] [3]')).toEqual([
      { text: 'Paris ' },
      { text: '[1]', n: 1 },
      { text: '[12]', n: 12 },
      { text: ', not Lyon [x] ' },
      { text: '[3]', n: 3 },
    ]);
    expect(citationPieces('')).toEqual([]);
  });
});

// Headings as words: ids, stray marks and break tags go; code written in a heading ("<slot>") stays.
import { describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../../src/core/parse/markdown.ts';
import { cleanHeadingText } from '../../../src/core/text/index.ts';

describe('cleanHeadingText', () => {
  it('drops VitePress ids, attribute blocks, lone emphasis marks and <br>', () => {
    expect(cleanHeadingText('Computed Properties {#computed-properties}')).toBe('Computed Properties');
    expect(cleanHeadingText('watchEffect() ** {#watcheffect}')).toBe('watchEffect()');
    expect(cleanHeadingText('Intro {#intro .lead}')).toBe('Intro');
    expect(cleanHeadingText('First line<br>second<br/>third')).toBe('First line second third');
    expect(cleanHeadingText('<slot>')).toBe('<slot>');
    expect(cleanHeadingText('a ** b')).toBe('a b');
    expect(cleanHeadingText('**bold**')).toBe('**bold**');
  });

  it('is applied to Markdown headings as they are parsed', () => {
    const { sections, title, text } = parseMarkdown(
      '# Watchers {#watchers}\n\n## `watchEffect()` \\*\\* {#watcheffect}\n\nText.\n\n## `<slot>` {#slot}\n\nMore.\n',
    );
    expect(title).toBe('Watchers');
    expect(sections.map((s) => s.heading)).toEqual(['Watchers', 'watchEffect()', '<slot>']);
    expect(text).not.toContain('{#');
  });
});

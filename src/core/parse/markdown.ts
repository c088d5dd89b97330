// Markdown → plain text with sections. A line-based reader for the common syntax (ATX and setext headings, code
// fences, lists, block quotes, tables, front matter) plus inline stripping (links keep their text, images their
// alt text, emphasis and code marks removed). Not a full CommonMark parser: it only needs readable text and headings.
import { DocumentBuilder } from './builder.ts';
import { decodeEntities } from './entities.ts';
import type { ParsedSection } from './types.ts';

const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*\S+/;
const TABLE_DELIMITER = /^ *\|? *:?-{2,}:? *(?:\| *:?-{2,}:? *)*\|? *$/;
const BULLET = /^([ \t]*)[-*+][ \t]+/;
const ORDERED = /^([ \t]*)(\d{1,9})[.)][ \t]+/;
const QUOTE = /^ {0,3}> ?/;

/** Inline Markdown → text. Order matters: code spans and escapes first (their content is literal). */
export function stripInline(line: string): string {
  const codeSpans: string[] = [];
  let text = line.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_m, _ticks: string, code: string) => {
    codeSpans.push(code.trim());
    return `\u0000${codeSpans.length - 1}\u0000`;
  });
  // Escaped characters are literal: park them like code spans so the emphasis rules below do not see them.
  text = text.replace(/\\([!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~])/g, (_m, char: string) => {
    codeSpans.push(char);
    return `\u0000${codeSpans.length - 1}\u0000`;
  });
  text = text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images → alt text
    .replace(/!\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)/g, '$1') // [text](url "title") → text
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1') // [text][ref] → text
    .replace(/<((?:https?|mailto|ftp):[^>\s]+)>/g, '$1') // autolinks
    .replace(/<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>/g, '') // inline HTML tags
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2')
    .replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?!\w)/g, '$1$2')
    .replace(/(^|[^\w])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1$2')
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1');
  text = decodeEntities(text);
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => codeSpans[Number(i)]);
}

function tableRow(line: string): string {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => stripInline(cell.trim()))
    .join(' | ');
}

/** Parses Markdown; the title is the first level-1 heading, else the first heading, else undefined. */
export function parseMarkdown(source: string): { text: string; sections: ParsedSection[]; title?: string } {
  const lines = source.split('\n');
  const out = new DocumentBuilder();
  let paragraph: string[] = [];
  const flush = (): void => {
    out.paragraph(paragraph.join('\n'));
    paragraph = [];
  };

  let i = 0;
  // YAML front matter is metadata, not text.
  if (lines[0]?.trim() === '---') {
    const close = lines.findIndex((line, n) => n > 0 && (line.trim() === '---' || line.trim() === '...'));
    if (close > 0) i = close + 1;
  }
  for (; i < lines.length; i++) {
    const line = lines[i];
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const marker = fence[1];
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i].trimStart().startsWith(marker); i++) code.push(lines[i]);
      out.paragraph(code.join('\n'));
      continue;
    }
    if (line.trim() === '') {
      flush();
      continue;
    }
    const atx = ATX_HEADING.exec(line);
    if (atx) {
      flush();
      out.heading(stripInline(atx[2] ?? ''), atx[1].length);
      continue;
    }
    const underline = SETEXT_UNDERLINE.exec(line);
    if (underline && paragraph.length > 0) {
      // The paragraph so far is the heading ("Title\n=====").
      const heading = paragraph.join(' ');
      paragraph = [];
      out.heading(heading, underline[1][0] === '=' ? 1 : 2);
      continue;
    }
    if (THEMATIC_BREAK.test(line)) {
      flush();
      continue;
    }
    if (LINK_DEFINITION.test(line) && paragraph.length === 0) continue;
    if (line.includes('|') && TABLE_DELIMITER.test(line)) continue;
    let content = line;
    while (QUOTE.test(content)) content = content.replace(QUOTE, '');
    const bullet = BULLET.exec(content);
    const ordered = ORDERED.exec(content);
    if (bullet) content = `${bullet[1]}- ${content.slice(bullet[0].length)}`;
    else if (ordered) content = `${ordered[1]}${ordered[2]}. ${content.slice(ordered[0].length)}`;
    if ((bullet || ordered) && paragraph.length > 0 && !isListLine(paragraph[paragraph.length - 1])) flush();
    const isRow = content.includes('|') && /^\s*\|/.test(content);
    const text = isRow ? tableRow(content) : stripInline(content.trim());
    if (text.length === 0) continue;
    const previous = paragraph[paragraph.length - 1];
    // A soft line break inside a paragraph is a space (as Markdown renders it); list items and table rows keep
    // their own lines, and so does a hard break (a line ending in two spaces or a backslash).
    const hardBreak = / {2,}$|\\$/.test(lines[i - 1] ?? '');
    if (hardBreak && previous?.endsWith('\\'))
      paragraph[paragraph.length - 1] = previous.slice(0, -1).trimEnd();
    if (previous !== undefined && !bullet && !ordered && !isRow && !hardBreak && !isTableRow(previous)) {
      paragraph[paragraph.length - 1] = `${previous} ${text.trimStart()}`;
    } else {
      paragraph.push((bullet?.[1] ?? ordered?.[1] ?? '') + text.trimStart());
    }
  }
  flush();
  const built = out.build();
  return { ...built, title: out.titleFromHeadings() };
}

function isTableRow(line: string): boolean {
  return line.includes(' | ');
}

function isListLine(line: string): boolean {
  return /^\s*(?:- |\d+\. )/.test(line);
}

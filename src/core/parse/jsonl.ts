// .jsonl passages (one {"title", "text", "id"?} object per line, the benchmark corpus format) → one document per
// line. A bad line is reported with its line number and skipped; the other lines still become documents.
import type { FileError } from '../types.ts';
import { DocumentBuilder } from './builder.ts';
import type { ParseResult } from './types.ts';
import { messageOf } from '../errors.ts';

const encoder = new TextEncoder();
/** Bad lines reported one by one; the rest are counted, so a file of a million bad lines gives a short report. */
export const MAX_LINE_ERRORS = 20;

function lineError(file: string, line: number, reason: string): FileError {
  return { file, reason: `line ${line}: ${reason}` };
}

/** Parses decoded .jsonl text. Document text = title + "\n\n" + text, the title being a level-1 section heading. */
export function parseJsonl(file: string, source: string): ParseResult {
  const result: ParseResult = { documents: [], errors: [] };
  let bad = 0;
  const errors = {
    push(error: FileError): void {
      bad += 1;
      if (bad <= MAX_LINE_ERRORS) result.errors.push(error);
    },
  };
  let lineStart = 0;
  for (let n = 1; lineStart <= source.length; n++) {
    const newline = source.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? source.length : newline;
    const line = source.slice(lineStart, lineEnd).trim();
    lineStart = lineEnd + 1;
    if (line.length === 0) continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      const detail = messageOf(error);
      errors.push(lineError(file, n, `not valid JSON (${detail})`));
      continue;
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      errors.push(lineError(file, n, 'expected an object {"title", "text"}'));
      continue;
    }
    const { title, text, id } = record as Record<string, unknown>;
    if (typeof text !== 'string') {
      errors.push(lineError(file, n, 'missing "text" string'));
      continue;
    }
    if (title !== undefined && title !== null && typeof title !== 'string') {
      errors.push(lineError(file, n, '"title" must be a string'));
      continue;
    }
    const out = new DocumentBuilder();
    const heading = (title ?? '').trim();
    if (heading) out.heading(heading, 1);
    out.paragraph(text);
    if (out.isEmpty()) {
      errors.push(lineError(file, n, 'empty title and text'));
      continue;
    }
    const { text: documentText, sections } = out.build();
    result.documents.push({
      title: heading || `${file} line ${n}`,
      text: documentText,
      mime: 'application/jsonl',
      sourceName: `${file}#${n}`,
      size: encoder.encode(line).length,
      externalId: typeof id === 'string' || typeof id === 'number' ? String(id) : undefined,
      sections,
    });
  }
  if (bad > MAX_LINE_ERRORS) {
    result.errors.push({
      file,
      reason: `and ${bad - MAX_LINE_ERRORS} more bad lines (${bad} in all; the first ${MAX_LINE_ERRORS} are listed)`,
    });
  }
  return result;
}

// Reads a QA set for the in-app evaluation: a .jsonl file in the ../shared/bench shape ({id?, question, answers
// (or answer), supporting?, type?} per line, as `cli bench` reads it) or a CSV with a header row naming the
// columns question, answer (or answers) and optionally supporting (or document), id and type. In CSV, several
// answers or supporting documents are separated by " | ". A malformed file is refused with its name, line and field.
import Papa from 'papaparse';
import type { QaItem, QaSet } from './evalProtocol.ts';

class QaSetError extends Error {}

function fail(file: string, line: number, message: string): never {
  throw new QaSetError(`QA set ${file} line ${line}: ${message}`);
}

function strings(value: unknown, file: string, line: number, field: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    fail(file, line, `"${field}" must be a list of strings`);
  }
  return (value as string[]).filter((s) => s.trim() !== '');
}

function fromJsonl(file: string, text: string): QaItem[] {
  const items: QaItem[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(raw);
    } catch (err) {
      fail(file, line, `not JSON (${(err as Error).message})`);
    }
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      fail(file, line, 'expected an object {"question", "answers"}');
    }
    const r = row as Record<string, unknown>;
    if (typeof r.question !== 'string' || r.question.trim() === '') fail(file, line, 'no "question" string');
    let answers: string[];
    if (r.answers !== undefined) answers = strings(r.answers, file, line, 'answers');
    else if (typeof r.answer === 'string') answers = [r.answer].filter((a) => a.trim() !== '');
    else if (r.answer !== undefined) fail(file, line, '"answer" must be a string');
    else answers = [];
    if (answers.length === 0) fail(file, line, 'no "answers" (a list of strings) or "answer"');
    const supporting = r.supporting === undefined ? [] : strings(r.supporting, file, line, 'supporting');
    if (r.type !== undefined && typeof r.type !== 'string') fail(file, line, '"type" must be a string');
    items.push({
      id: typeof r.id === 'string' ? r.id : `q${line}`,
      question: r.question,
      answers,
      supporting,
      ...(typeof r.type === 'string' && r.type !== '' ? { type: r.type } : {}),
      line,
    });
  });
  return items;
}

const COLUMNS: Record<string, 'question' | 'answers' | 'supporting' | 'id' | 'type'> = {
  question: 'question',
  answer: 'answers',
  answers: 'answers',
  supporting: 'supporting',
  'supporting document': 'supporting',
  document: 'supporting',
  id: 'id',
  type: 'type',
};

const split = (cell: string | undefined): string[] =>
  (cell ?? '')
    .split(' | ')
    .map((s) => s.trim())
    .filter(Boolean);

function fromCsv(file: string, text: string): QaItem[] {
  // Line of each record's start, from the parser's cursor (a quoted cell may span lines).
  const starts: number[] = [];
  let cursor = 0;
  let newlines = 0;
  const rows: string[][] = [];
  const errors: Papa.ParseError[] = [];
  Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), {
    skipEmptyLines: 'greedy',
    step: (result) => {
      const end = result.meta.cursor;
      // The record starts after the blank lines before it: count lines up to its first character.
      const before = text.slice(cursor, end);
      const lead = before.length - before.replace(/^[\r\n\s]+/, '').length;
      starts.push(newlines + countNewlines(before.slice(0, lead)) + 1);
      newlines += countNewlines(before);
      cursor = end;
      rows.push(result.data);
      errors.push(...result.errors.map((e) => ({ ...e, row: rows.length - 1 })));
    },
  });
  if (errors.length) {
    const e = errors[0];
    fail(file, starts[e.row ?? 0] ?? 1, `CSV ${e.message}`);
  }
  if (rows.length === 0) fail(file, 1, 'empty file (expected a header row: question,answer[,supporting])');
  const header = rows[0].map((h) => COLUMNS[h.trim().toLowerCase()]);
  const col = (name: string) => header.indexOf(name as (typeof header)[number]);
  if (col('question') < 0 || col('answers') < 0) {
    fail(
      file,
      starts[0],
      `the header must name the columns "question" and "answer" (got "${rows[0].join(',')}")`,
    );
  }
  return rows.slice(1).map((row, i) => {
    const line = starts[i + 1];
    const cell = (name: string) => (col(name) >= 0 ? row[col(name)] : undefined);
    const question = (cell('question') ?? '').trim();
    if (!question) fail(file, line, 'empty "question"');
    const answers = split(cell('answers'));
    if (answers.length === 0) fail(file, line, 'empty "answer"');
    const type = cell('type')?.trim();
    return {
      id: cell('id')?.trim() || `q${i + 1}`,
      question,
      answers,
      supporting: split(cell('supporting')),
      ...(type ? { type } : {}),
      line,
    };
  });
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}

/** Parses a QA set by its file name's extension (.jsonl / .json lines, or .csv). */
export function parseQaSet(file: string, text: string): QaSet {
  const lower = file.toLowerCase();
  let items: QaItem[];
  if (lower.endsWith('.csv')) items = fromCsv(file, text);
  else if (lower.endsWith('.jsonl') || lower.endsWith('.json') || lower.endsWith('.ndjson')) {
    items = fromJsonl(file, text);
  } else throw new QaSetError(`QA set ${file}: expected a .jsonl or .csv file`);
  if (items.length === 0) throw new QaSetError(`QA set ${file}: no questions in the file`);
  return { name: file, items };
}

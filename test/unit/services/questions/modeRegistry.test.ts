// The one list of question modes and the one reading of a mode string: what each kind of mode is, and the
// properties the query service (early evidence), the evaluation (excerpts) and the Ask view (LLM) read from it.
import { describe, expect, it } from 'vitest';
import {
  ASK_MODES,
  REASONING_MODES,
  modeFamily,
  needsLlm,
  parseQuestionMode,
} from '../../../../src/services/questions/modeRegistry.ts';
import { QUESTION_MODES } from '../../../../src/services/questions/modes.ts';
import { LIMIT_FIELDS } from '../../../../src/ui/reasoningLimits.ts';

describe('mode registry', () => {
  it('lists every mode once, by family, in the Ask view order', () => {
    expect(ASK_MODES).toEqual([
      'ppr',
      'concept',
      'dense',
      'bm25',
      'rrf:ppr+bm25',
      'hybrid',
      'kg',
      'atomic',
      'decompose',
      'logical',
    ]);
    const family = (f: string) => ASK_MODES.filter((m) => modeFamily(m) === f);
    expect(family('retrieval')).toEqual(['ppr', 'concept', 'dense', 'bm25', 'rrf:ppr+bm25']);
    expect(family('kg')).toEqual(['hybrid', 'kg']);
    expect(REASONING_MODES).toEqual(['decompose', 'logical']);
    expect(modeFamily('atomic')).toBe('atomic');
    expect(modeFamily('rrf:dense+bm25')).toBeUndefined();
  });

  it('has one handler per mode and one set of limits per reasoning mode', () => {
    expect(Object.keys(QUESTION_MODES).sort()).toEqual([...ASK_MODES].sort());
    expect(Object.keys(LIMIT_FIELDS).sort()).toEqual([...REASONING_MODES].sort());
  });

  it('reads a mode once: family, LLM, early lexical evidence, excerpts', () => {
    expect(parseQuestionMode('ppr')).toEqual({
      name: 'ppr',
      family: 'retrieval',
      needsLlm: false,
      lexical: true,
      excerpts: true,
      needs: ['walk'],
    });
    // A fusion needs its parts' needs and the fusion itself; a mode over a layer names it.
    expect(parseQuestionMode('rrf:dense+bm25').needs).toEqual(['fusion', 'vectors', 'bm25']);
    expect(parseQuestionMode('hybrid').needs).toEqual(['kg', 'walk', 'chunks']);
    // dense needs the question vector: no early evidence; a fusion with dense neither.
    expect(parseQuestionMode('dense')).toMatchObject({ lexical: false, excerpts: true });
    expect(parseQuestionMode('rrf:dense+bm25')).toMatchObject({ family: 'retrieval', lexical: false });
    expect(parseQuestionMode('rrf:concept+bm25')).toMatchObject({ family: 'retrieval', lexical: true });
    expect(parseQuestionMode('kg')).toMatchObject({ family: 'kg', lexical: false, excerpts: false });
    expect(parseQuestionMode('atomic')).toMatchObject({ needsLlm: false, lexical: false, excerpts: false });
    expect(parseQuestionMode('logical')).toMatchObject({ needsLlm: true, lexical: false, excerpts: false });
    expect(needsLlm('decompose')).toBe(true);
    expect(needsLlm('hybrid')).toBe(false);
  });

  it('takes `default` only where allowed, and names the modes when refusing', () => {
    expect(parseQuestionMode('default', { allowDefault: true }).name).toBe('ppr');
    expect(() => parseQuestionMode('default')).toThrow(/unknown mode "default"; one of ppr, concept/);
    expect(() => parseQuestionMode('pagerank', { allowDefault: true })).toThrow(
      /unknown mode "pagerank"; one of default \(ppr\), ppr, .*logical or rrf:<a>\+<b>/,
    );
    expect(() => parseQuestionMode('rrf:ppr+kg')).toThrow(/unknown mode "rrf:ppr\+kg"/);
  });
});

// Code identifiers as documentation writes them: kept whole and split into their parts.
import { describe, expect, it } from 'vitest';
import { codeIdentifiers } from '../../../src/core/text/identifiers.ts';

const wholes = (text: string) => codeIdentifiers(text).map((i) => i.whole);
const partsOf = (text: string, whole: string) => codeIdentifiers(text).find((i) => i.whole === whole)?.parts;

describe('codeIdentifiers', () => {
  it('keeps a dotted member path whole and splits it into members and camelCase humps', () => {
    const text = 'Open it with fs.createReadStream() and read it line by line.';
    expect(wholes(text)).toEqual(['fs.createreadstream']);
    expect(partsOf(text, 'fs.createreadstream')).toEqual([
      'fs',
      'createreadstream',
      'create',
      'read',
      'stream',
    ]);
  });

  it('finds camelCase and PascalCase names, flags, generic types, hyphenated directives and snake_case', () => {
    const text =
      'Use watchEffect inside <KeepAlive>, run node --experimental-vm-modules, return a Vec<T>, bind v-model, set MAX_RETRIES.';
    expect(wholes(text).sort()).toEqual(
      ['--experimental-vm-modules', 'keepalive', 'max_retries', 'v-model', 'vec<t>', 'watcheffect'].sort(),
    );
    expect(partsOf(text, 'watcheffect')).toEqual(['watch', 'effect']);
    expect(partsOf(text, '--experimental-vm-modules')).toEqual(['experimental', 'vm', 'modules']);
    expect(partsOf(text, 'vec<t>')).toEqual(['vec']);
  });

  it('reads abbreviations and a missing space after a full stop as prose, not code', () => {
    expect(wholes('Cities, e.g. Paris, are in the U.S. and the E.U.')).toEqual([]);
    expect(wholes('It ended there.Then it started again.')).toEqual([]);
    expect(wholes('Plain prose with no code at all.')).toEqual([]);
  });

  it('gives one identifier once, not again as its own camelCase part', () => {
    expect(wholes('app.config.errorHandler')).toEqual(['app.config.errorhandler']);
  });
});

// Character references are looked up among the named references' own keys: a name that is a property of
// Object.prototype ("&constructor;", "&__proto__;") is not a reference and stays as written, as browsers do.
import { describe, expect, it } from 'vitest';
import { decodeEntities } from '../../../src/core/parse/entities.ts';

describe('decodeEntities with prototype names', () => {
  it('leaves &constructor;, &toString;, &hasOwnProperty; and &__proto__; as written', () => {
    for (const ref of ['&constructor;', '&toString;', '&hasOwnProperty;', '&valueOf;', '&__proto__;']) {
      expect(decodeEntities(`a ${ref} b`)).toBe(`a ${ref} b`);
    }
  });

  it('still decodes real named references next to them', () => {
    expect(decodeEntities('&constructor; &amp; &eacute;')).toBe('&constructor; & é');
  });
});

// Costs in the currency the user set (issue 44: the cost had no currency): the settings name it, a code the
// runtime does not know is refused by name, and a cost is shown with its code and enough digits to be non-zero.
import { describe, expect, it } from 'vitest';
import { currencyOf, DEFAULT_LLM_SETTINGS, validateLlmSettings } from '../../../src/core/llm/index.ts';
import { formatCost } from '../../../src/ui/llm/api.ts';

const settings = { ...DEFAULT_LLM_SETTINGS, model: 'm' };

describe('the currency of LLM costs', () => {
  it('is the one set, USD for settings saved before there was one, and refuses what is not a code', () => {
    expect(currencyOf({ currency: 'eur' })).toBe('EUR');
    expect(currencyOf({})).toBe('USD');
    expect(validateLlmSettings({ ...settings, currency: 'CNY' })).toEqual([]);
    expect(validateLlmSettings({ ...settings, currency: undefined })).toEqual([]);
    expect(validateLlmSettings({ ...settings, currency: 'euro' }).join()).toMatch(/currency "euro"/);
  });

  it('shows a cost with its code and enough digits to be non-zero', () => {
    expect(formatCost(0.00123, 'EUR').replace(/\s/g, ' ')).toBe('EUR 0.0012');
    expect(formatCost(3.4, 'CNY').replace(/\s/g, ' ')).toBe('CNY 3.40');
    expect(formatCost(0, 'USD').replace(/\s/g, ' ')).toBe('USD 0.00');
  });
});

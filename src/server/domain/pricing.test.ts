import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES, parsePrices } from './pricing';

describe('prices by pricing key', () => {
  it('defaults to one credit for every key, the spec\'s service:visual included', () => {
    expect(parsePrices(undefined)).toEqual({ 'service:visual': 1, 'service:text': 1, 'service:everything': 1, 'service:embedding': 1, 'service:auto-label': 1 });
    expect(parsePrices('')).toEqual(DEFAULT_PRICES);
  });

  it('sets the keys named and keeps the others', () => {
    expect(parsePrices(' service:embedding=3 , service:visual = 2')).toEqual({ 'service:visual': 2, 'service:text': 1, 'service:everything': 1, 'service:embedding': 3, 'service:auto-label': 1 });
  });

  it('refuses an unknown key, a malformed pair or a price that is not a whole number of credits', () => {
    expect(() => parsePrices('service:video=1')).toThrow(/unknown pricing key/);
    expect(() => parsePrices('service:visual')).toThrow(/key=credits/);
    expect(() => parsePrices('service:visual=0')).toThrow(/≥ 1/);
    expect(() => parsePrices('service:visual=1.5')).toThrow(/whole number/);
  });
});

/**
 * What each metered call costs, in credits, by pricing key. The spec prices PVS under the key
 * `service:visual` (1 credit a call); text prompts, segment everything and server-made embeddings
 * have keys of their own so each can be priced apart. Configured with PRICES, e.g. `service:embedding=2`; a key left
 * out keeps its default.
 */
import { LIMITS } from '../../contract/limits';

export const PRICING_KEYS = {
  pvs: 'service:visual',
  segment: 'service:text',
  everything: 'service:everything',
  embeddings: 'service:embedding',
  /** One image of an auto-label job (issue 38), whatever its kind. */
  autoLabel: 'service:auto-label',
} as const;
export type PricingKey = (typeof PRICING_KEYS)[keyof typeof PRICING_KEYS];
export type Prices = Readonly<Record<PricingKey, number>>;

export const DEFAULT_PRICES: Prices = {
  'service:visual': LIMITS.creditsPerCall,
  'service:text': LIMITS.creditsPerCall,
  'service:everything': LIMITS.creditsPerCall,
  'service:embedding': LIMITS.creditsPerCall,
  'service:auto-label': LIMITS.creditsPerCall,
};

const KNOWN = new Set<string>(Object.values(PRICING_KEYS));

/** `key=credits` pairs separated by commas; an unknown key or a price that is not a whole number ≥ 1 fails at start. */
export function parsePrices(raw: string | undefined): Prices {
  const prices: Record<string, number> = { ...DEFAULT_PRICES };
  for (const part of (raw ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
    const match = /^([a-z0-9:_-]+)\s*=\s*(\S+)$/i.exec(part);
    if (!match) throw new Error(`PRICES: "${part}" is not key=credits`);
    const [, key, value] = match;
    if (!KNOWN.has(key)) throw new Error(`PRICES: unknown pricing key "${key}" (known: ${[...KNOWN].join(', ')})`);
    const credits = Number(value);
    if (!Number.isInteger(credits) || credits < 1) throw new Error(`PRICES: ${key} must be a whole number of credits ≥ 1, got "${value}"`);
    prices[key] = credits;
  }
  return prices as Prices;
}

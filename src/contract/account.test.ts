import { describe, expect, expectTypeOf, it } from 'vitest';
import { CREDIT_PACKAGES, CreditPackage, CreditPackageId, CreditPackageList, CreditPurchase, CreditPurchaseRequest } from './account';
import { buildOpenApiDocument } from './openapi';

const ids = CREDIT_PACKAGES.map((p) => p.id);

/** Every `enum` in a JSON Schema tree. */
function enumsIn(node: unknown): unknown[][] {
  if (Array.isArray(node)) return node.flatMap(enumsIn);
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) => (key === 'enum' && Array.isArray(value) ? [value] : enumsIn(value)));
}

// Adding a package is one entry in CREDIT_PACKAGES: every schema that names a package takes its
// ids from there, so none can be missed (a purchase of a missed one would fail validation).
describe('credit package ids are written once', () => {
  it('are the ids of CREDIT_PACKAGES, in its order', () => {
    expect(CreditPackageId.options).toEqual(ids);
    expectTypeOf<CreditPackageId>().toEqualTypeOf<(typeof CREDIT_PACKAGES)[number]['id']>();
  });

  it('is the one schema every package field uses', () => {
    expect(CreditPackage.shape.id).toBe(CreditPackageId);
    expect(CreditPurchaseRequest.shape.packageId).toBe(CreditPackageId);
    expect(CreditPurchase.shape.packageId).toBe(CreditPackageId);
  });

  it('accepts every package of the list wherever a package is named, and nothing else', () => {
    expect(CreditPackageList.parse({ packages: CREDIT_PACKAGES }).packages).toEqual(CREDIT_PACKAGES);
    for (const id of ids) {
      expect(CreditPurchaseRequest.parse({ packageId: id })).toEqual({ packageId: id });
      expect(CreditPurchase.safeParse({ id: 'p', packageId: id, credits: 1, status: 'paid', mode: 'demo', checkoutUrl: null }).success).toBe(true);
    }
    expect(CreditPurchaseRequest.safeParse({ packageId: 'platinum' }).success).toBe(false);
  });

  it('leaves no other copy of the ids in the API document', () => {
    const packageEnums = enumsIn(buildOpenApiDocument().components).filter((values) => values.some((v) => ids.includes(v as never)));
    expect(packageEnums.length).toBeGreaterThanOrEqual(3);
    for (const values of packageEnums) expect(values).toEqual(ids);
  });
});

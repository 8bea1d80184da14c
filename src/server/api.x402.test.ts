/**
 * Per-request payment (x402 v2) over real HTTP, a real database and the real engine, fully offline:
 * a local facilitator on 127.0.0.1 runs the x402 packages' real verification and settlement code
 * (@x402/core facilitator + @x402/evm exact scheme) against an in-memory stand-in for the chain,
 * and a locally generated wallet signs EIP-3009 payments with the x402 client packages. Every test
 * counts the facilitator's verify and settle calls and checks the money on the stand-in chain.
 */
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, x402HTTPClient } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { configFromEnv } from './config';
import { closeSharedEngine, creditsOf, DATABASES, expectProblem, NO_INFERENCE, sampleBase64, sharedEngine, signupUser, startTestServer, type TestServer } from '../../test/support/server/harness';
import { BASE_SEPOLIA, BASE_SEPOLIA_USDC, startLocalFacilitator, type LocalFacilitator } from '../../test/support/server/x402Facilitator';

const CAT = `data:image/png;base64,${sampleBase64('chelsea.png')}`;
const pvs = (x = 220, y = 160) => ({ image: CAT, points: [{ x, y, positive: true }], multimaskOutput: false });
const PRICE_ATOMIC = 10_000n; // $0.01 in USDC (6 decimals)

afterAll(async () => closeSharedEngine());

describe.each(DATABASES)('per-request payment, x402 (%s)', (dbKind) => {
  let facilitator: LocalFacilitator;
  let server: TestServer;
  let payTo: `0x${string}`;
  let wallet: PrivateKeyAccount;
  let client: x402HTTPClient;

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    server.fetch(path, { method: 'POST', headers, json: body });
  /** The requirements as a client learns them: from the 402's PAYMENT-REQUIRED header. */
  const requirementsFor = async (path: string, body: unknown): Promise<PaymentRequired> => {
    const response = await post(path, body);
    expect(response.status).toBe(402);
    return client.getPaymentRequiredResponse((name) => response.headers.get(name), await response.json());
  };
  const sign = (required: PaymentRequired) => client.createPaymentPayload(required);
  const headersOf = (payload: PaymentPayload) => client.encodePaymentSignatureHeader(payload);
  const counts = () => ({ ...facilitator.counts });
  const paidCallCount = async () =>
    Number((await server.services.db.kysely.selectFrom('paid_calls').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    facilitator = await startLocalFacilitator();
    payTo = privateKeyToAccount(generatePrivateKey()).address;
    server = await startTestServer({
      db: dbKind,
      backend: await sharedEngine(),
      config: {
        x402: {
          payTo,
          network: BASE_SEPOLIA,
          price: '$0.01',
          facilitatorUrl: facilitator.url,
          facilitatorTimeoutMs: 10_000,
          maxTimeoutSeconds: 300,
        },
      },
    });
  });
  beforeEach(() => {
    server.services.faults.rates = {};
    facilitator.unavailable = false;
    facilitator.settleUnavailable = false;
    facilitator.counts.verify = facilitator.counts.settle = facilitator.counts.settled = 0;
    // A fresh wallet with $1 of test USDC for every test.
    wallet = privateKeyToAccount(generatePrivateKey());
    facilitator.chain.mint(wallet.address, 1_000_000n);
    const core = new x402Client();
    registerExactEvmScheme(core, { signer: wallet });
    client = new x402HTTPClient(core);
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => {
    await server?.cleanup();
    await facilitator?.close();
  });

  it('answers 402 with the x402 v2 payment requirements when neither an API key nor a payment is sent', async () => {
    for (const [path, body] of [
      ['/api/v1/pvs', pvs()],
      ['/api/v1/segment', { image: CAT, prompts: ['cat'] }],
    ] as const) {
      const response = await post(path, body);
      const problem = await expectProblem(response, 402, 'payment-required');
      expect(response.headers.get('www-authenticate')).toBeNull();
      const header = response.headers.get('payment-required');
      expect(header).toBeTruthy();
      const required = decodePaymentRequiredHeader(header!);
      expect(required.x402Version).toBe(2);
      expect(required.resource.url).toBe(`${server.url}${path}`);
      expect(required.accepts).toEqual([
        {
          scheme: 'exact',
          network: BASE_SEPOLIA,
          amount: String(PRICE_ATOMIC),
          asset: BASE_SEPOLIA_USDC,
          payTo,
          maxTimeoutSeconds: 300,
          extra: expect.objectContaining({ name: 'USDC', version: '2' }),
        },
      ]);
      // The body carries the same object, for clients that read bodies.
      expect(problem.x402).toEqual(required);
    }
    expect(counts()).toEqual({ verify: 0, settle: 0, settled: 0 });
  });

  it('verifies a valid payment, runs the engine, settles once and releases the result with PAYMENT-RESPONSE', async () => {
    const payload = await sign(await requirementsFor('/api/v1/pvs', pvs()));
    const response = await post('/api/v1/pvs', pvs(), headersOf(payload));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.prompts[0].predictions[0].masks[0].length).toBeGreaterThan(3);
    const settlement = decodePaymentResponseHeader(response.headers.get('payment-response')!);
    expect(settlement).toMatchObject({ success: true, network: BASE_SEPOLIA, payer: wallet.address });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(counts()).toEqual({ verify: 1, settle: 1, settled: 1 });
    // The money moved exactly once, from the wallet to payTo; no credit ledger was touched.
    expect(facilitator.chain.balanceOf(wallet.address)).toBe(1_000_000n - PRICE_ATOMIC);
    const ledger = await server.services.db.kysely.selectFrom('ledger_entries').selectAll().execute();
    expect(ledger.filter((e) => e.kind === 'charge')).toEqual([]);
  });

  it('an empty result answers 422 and is never settled; the same payment then works for a retry', async () => {
    const payload = await sign(await requirementsFor('/api/v1/pvs', pvs()));
    server.services.faults.rates = { empty: 1 };
    const empty = await post('/api/v1/pvs', pvs(), headersOf(payload));
    const problem = await expectProblem(empty, 422, 'empty-result');
    expect(problem.settled).toBe(false);
    expect(empty.headers.get('payment-response')).toBeNull();
    expect(counts()).toEqual({ verify: 1, settle: 0, settled: 0 });
    expect(facilitator.chain.balanceOf(wallet.address)).toBe(1_000_000n);

    // Not settled means not spent: the same signed payment pays for the next, successful attempt.
    server.services.faults.rates = {};
    const retry = await post('/api/v1/pvs', pvs(), headersOf(payload));
    expect(retry.status).toBe(200);
    expect(counts()).toEqual({ verify: 2, settle: 1, settled: 1 });
  });

  it('an engine failure answers 500 and is never settled', async () => {
    const payload = await sign(await requirementsFor('/api/v1/pvs', pvs()));
    server.services.faults.rates = { engine: 1 };
    const failed = await post('/api/v1/pvs', pvs(), headersOf(payload));
    const problem = await expectProblem(failed, 500, 'engine-failure');
    expect(problem.settled).toBe(false);
    expect(counts()).toEqual({ verify: 1, settle: 0, settled: 0 });
    expect(facilitator.chain.balanceOf(wallet.address)).toBe(1_000_000n);
  });

  it('rejects a bad signature, a short amount, a wrong payTo, an empty wallet and a mismatched payment with 402, settling nothing', async () => {
    const required = await requirementsFor('/api/v1/pvs', pvs());
    const [accepted] = required.accepts;
    const expectRejected = async (payload: PaymentPayload, reason: string | RegExp) => {
      const response = await post('/api/v1/pvs', pvs(), headersOf(payload));
      const problem = await expectProblem(response, 402, 'payment-invalid');
      expect(problem.reason).toMatch(reason);
      expect(decodePaymentRequiredHeader(response.headers.get('payment-required')!).accepts).toEqual(required.accepts);
    };

    const good = await sign(required);
    const auth = good.payload.authorization as Record<string, string>;
    const signature = good.payload.signature as string;
    const forged = `${signature.slice(0, 10)}${signature[10] === '0' ? '1' : '0'}${signature.slice(11)}`;
    await expectRejected({ ...good, payload: { ...good.payload, signature: forged } }, /signature/);
    // A valid signature over other terms: the client signs them, then claims the real requirements.
    const short = await sign({ ...required, accepts: [{ ...accepted, amount: '1' }] });
    await expectRejected({ ...short, accepted }, 'invalid_exact_evm_payload_authorization_value_mismatch');
    const elsewhere = await sign({ ...required, accepts: [{ ...accepted, payTo: privateKeyToAccount(generatePrivateKey()).address }] });
    await expectRejected({ ...elsewhere, accepted }, 'invalid_exact_evm_recipient_mismatch');
    const poor = privateKeyToAccount(generatePrivateKey());
    const poorClient = new x402Client();
    registerExactEvmScheme(poorClient, { signer: poor });
    await expectRejected(await poorClient.createPaymentPayload(required), 'invalid_exact_evm_insufficient_balance');
    expect(counts()).toEqual({ verify: 4, settle: 0, settled: 0 });

    // Refused before the facilitator is asked: terms we do not accept, and a header that is no payment.
    await expectRejected({ ...short, accepted: { ...accepted, amount: '1' } }, 'no_matching_requirements');
    const garbage = await post('/api/v1/pvs', pvs(), { 'payment-signature': 'not a payment' });
    expect((await expectProblem(garbage, 402, 'payment-invalid')).reason).toBe('invalid_payload');
    expect(counts()).toEqual({ verify: 4, settle: 0, settled: 0 });
    expect(auth.from).toBe(wallet.address);
    expect(facilitator.chain.balanceOf(wallet.address)).toBe(1_000_000n);
    expect(facilitator.chain.balanceOf(payTo)).toBeGreaterThanOrEqual(0n);
  });

  it('a settlement the facilitator refuses answers 402 payment-settlement-failed and withholds the result', async () => {
    const payload = await sign(await requirementsFor('/api/v1/pvs', pvs()));
    facilitator.chain.revertNextTransfers = 1; // the transfer is mined but reverts
    const response = await post('/api/v1/pvs', pvs(), headersOf(payload));
    const text = await response.text();
    expect(text).not.toContain('prompts');
    const problem = JSON.parse(text);
    expect(response.status).toBe(402);
    expect(problem.type).toBe('/problems/payment-settlement-failed');
    expect(problem.reason).toBe('invalid_exact_evm_transaction_failed');
    expect(decodePaymentResponseHeader(response.headers.get('payment-response')!)).toMatchObject({ success: false });
    expect(counts()).toEqual({ verify: 1, settle: 1, settled: 0 });
    expect(facilitator.chain.balanceOf(wallet.address)).toBe(1_000_000n);
    // Nothing stored to replay: the same payment is a new attempt, which now settles.
    const retry = await post('/api/v1/pvs', pvs(), headersOf(payload));
    expect(retry.status).toBe(200);
    expect(counts()).toEqual({ verify: 2, settle: 2, settled: 1 });
  });

  it('an unreachable facilitator answers 502: before verification nothing runs, at settlement the result is withheld', async () => {
    const payload = await sign(await requirementsFor('/api/v1/pvs', pvs()));
    const callsBefore = await paidCallCount();
    facilitator.unavailable = true;
    await expectProblem(await post('/api/v1/pvs', pvs(), headersOf(payload)), 502, 'payment-facilitator-unavailable');
    expect(await paidCallCount()).toBe(callsBefore);
    facilitator.unavailable = false;
    facilitator.settleUnavailable = true;
    const response = await post('/api/v1/pvs', pvs(), headersOf(payload));
    const text = await response.text();
    expect(response.status).toBe(502);
    expect(JSON.parse(text).type).toBe('/problems/payment-facilitator-unavailable');
    expect(text).not.toContain('prompts');
    expect(response.headers.get('payment-response')).toBeNull();
    expect(counts()).toEqual({ verify: 2, settle: 1, settled: 0 });
  });

  it('a retry with the same Idempotency-Key and payment replays the stored result; settle is called exactly once', async () => {
    const key = { 'idempotency-key': 'paid-order-7' };
    const required = await requirementsFor('/api/v1/pvs', pvs());
    const payload = await sign(required);
    const first = await post('/api/v1/pvs', pvs(), { ...headersOf(payload), ...key });
    expect(first.status).toBe(200);
    const firstBody = await first.text();

    // The same request again (a dropped connection): stored result, no verify, no settle.
    const replay = await post('/api/v1/pvs', pvs(), { ...headersOf(payload), ...key });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('x-idempotent-replayed')).toBe('true');
    expect(replay.headers.get('x-service-original-request-id')).toBe(first.headers.get('x-service-request-id'));
    expect(replay.headers.get('payment-response')).toBe(first.headers.get('payment-response'));
    expect(await replay.text()).toBe(firstBody);
    expect(counts()).toEqual({ verify: 1, settle: 1, settled: 1 });

    // Same key with a fresh payment: the payer is verified, the stored result replayed, the new payment left unsettled.
    const again = await post('/api/v1/pvs', pvs(), { ...headersOf(await sign(required)), ...key });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstBody);
    expect(counts()).toEqual({ verify: 2, settle: 1, settled: 1 });
    expect(facilitator.chain.balanceOf(wallet.address)).toBe(1_000_000n - PRICE_ATOMIC);

    // Same key, another body → 409; a settled payment sent with another body → 402 payment_already_used.
    await expectProblem(await post('/api/v1/pvs', pvs(100, 100), { ...headersOf(await sign(required)), ...key }), 409, 'idempotency-key-reused');
    const reused = await post('/api/v1/pvs', pvs(100, 100), headersOf(payload));
    expect((await expectProblem(reused, 402, 'payment-invalid')).reason).toBe('payment_already_used');
    expect(counts()).toEqual({ verify: 3, settle: 1, settled: 1 });

    // Keys are per payer: another wallet's identical key is its own new, paid attempt.
    const other = privateKeyToAccount(generatePrivateKey());
    facilitator.chain.mint(other.address, 1_000_000n);
    const otherCore = new x402Client();
    registerExactEvmScheme(otherCore, { signer: other });
    const theirs = await post('/api/v1/pvs', pvs(), { ...client.encodePaymentSignatureHeader(await otherCore.createPaymentPayload(required)), ...key });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('x-idempotent-replayed')).toBeNull();
    expect(counts()).toEqual({ verify: 4, settle: 2, settled: 2 });
  });

  it('the same payment sent twice at once is settled once; its authorization alone never unlocks the stored result', async () => {
    const payload = await sign(await requirementsFor('/api/v1/pvs', pvs(230, 170)));
    const [a, b] = await Promise.all([post('/api/v1/pvs', pvs(230, 170), headersOf(payload)), post('/api/v1/pvs', pvs(230, 170), headersOf(payload))]);
    const statuses = [a.status, b.status].sort();
    // Either the second waits its turn (409 in progress) or arrives after the first is stored (replay).
    expect(statuses[0]).toBe(200);
    expect([200, 409]).toContain(statuses[1]);
    expect(counts().settle).toBe(1);
    expect(counts().settled).toBe(1);
    const after = await post('/api/v1/pvs', pvs(230, 170), headersOf(payload));
    expect(after.headers.get('x-idempotent-replayed')).toBe('true');

    // The settled authorization is public on chain: with another signature it gets no result.
    const signature = payload.payload.signature as string;
    const forged = { ...payload, payload: { ...payload.payload, signature: `${signature.slice(0, -2)}${signature.endsWith('1b') ? '1c' : '1b'}` } };
    const refused = await post('/api/v1/pvs', pvs(230, 170), headersOf(forged));
    expect((await expectProblem(refused, 402, 'payment-invalid')).reason).toBe('payment_already_used');
    expect(counts().settle).toBe(1);
  });

  it('API-key requests stay on credits, even with a PAYMENT-SIGNATURE header', async () => {
    const user = await signupUser(server);
    const payload = await sign(await requirementsFor('/api/v1/pvs', pvs()));
    const response = await post('/api/v1/pvs', pvs(), { ...user.bearer, ...headersOf(payload) });
    expect(response.status).toBe(200);
    expect(response.headers.get('payment-response')).toBeNull();
    expect(await creditsOf(server, user)).toBe(4);
    await expectProblem(await post('/api/v1/pvs', pvs(), { authorization: 'Bearer mwk_wrong' }), 401, 'unauthenticated');
    expect(counts()).toEqual({ verify: 0, settle: 0, settled: 0 });
  });

  it('documents per-request payment in the OpenAPI document', async () => {
    const doc = await (await server.fetch('/api/v1/openapi.json')).json();
    const pvsOp = doc.paths['/api/v1/pvs'].post;
    expect(pvsOp.security).toContainEqual({ x402Payment: [] });
    expect(doc.components.securitySchemes.x402Payment).toMatchObject({ type: 'apiKey', in: 'header', name: 'PAYMENT-SIGNATURE' });
    expect(pvsOp.parameters.map((p: { name: string }) => p.name)).toContain('PAYMENT-SIGNATURE');
    expect(pvsOp.responses['402'].headers).toHaveProperty('PAYMENT-REQUIRED');
    expect(pvsOp.responses['200'].headers).toHaveProperty('PAYMENT-RESPONSE');
    expect(pvsOp.responses['422'].description).toContain('/problems/empty-result');
    expect(pvsOp.responses['502'].description).toContain('/problems/payment-facilitator-unavailable');
    expect(doc.components.schemas.CreditPackageList.properties.perRequestPayment).toBeDefined();
  });

  it('advertises per-request payment on GET /api/v1/credit-packages', async () => {
    const body = await (await server.fetch('/api/v1/credit-packages')).json();
    expect(body.perRequestPayment).toEqual({
      protocol: 'x402',
      x402Version: 2,
      scheme: 'exact',
      network: BASE_SEPOLIA,
      price: '$0.01',
      asset: BASE_SEPOLIA_USDC,
      amount: String(PRICE_ATOMIC),
      payTo,
    });
  });
});

describe('per-request payment is off by default', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ db: 'sqlite', backend: NO_INFERENCE });
  });
  afterAll(async () => server?.cleanup());

  it('without X402_* settings a request without a key is a plain 401, payment header or not', async () => {
    const body = pvs();
    await expectProblem(await server.fetch('/api/v1/pvs', { method: 'POST', json: body }), 401, 'unauthenticated');
    const withPayment = await server.fetch('/api/v1/pvs', { method: 'POST', json: body, headers: { 'payment-signature': 'eyJ4NDAyVmVyc2lvbiI6Mn0=' } });
    const problem = await expectProblem(withPayment, 401, 'unauthenticated');
    expect(problem.x402).toBeUndefined();
    expect(withPayment.headers.get('payment-required')).toBeNull();
    const packages = await (await server.fetch('/api/v1/credit-packages')).json();
    expect(packages.perRequestPayment).toBeNull();
  });
});

describe('x402 configuration (environment)', () => {
  const payTo = '0x9ab300eD9C635CEB30C62E27ba56617f335A3163';
  it('is off without X402_PAY_TO, and refuses a half or malformed configuration at start', () => {
    expect(configFromEnv({}).x402).toBeUndefined();
    expect(() => configFromEnv({ X402_PAY_TO: payTo })).toThrow(/X402_NETWORK, X402_PRICE, X402_FACILITATOR_URL are not/);
    const full = { X402_PAY_TO: payTo, X402_NETWORK: 'eip155:84532', X402_PRICE: '$0.01', X402_FACILITATOR_URL: 'http://127.0.0.1:9/' };
    expect(configFromEnv(full).x402).toMatchObject({ payTo, network: 'eip155:84532', price: '$0.01', facilitatorUrl: 'http://127.0.0.1:9', maxTimeoutSeconds: 300 });
    expect(() => configFromEnv({ ...full, X402_PAY_TO: 'me' })).toThrow(/EVM address/);
    expect(() => configFromEnv({ ...full, X402_NETWORK: 'base' })).toThrow(/CAIP-2/);
    expect(() => configFromEnv({ ...full, X402_PRICE: 'ten cents' })).toThrow(/USD amount/);
    expect(() => configFromEnv({ ...full, X402_ASSET: payTo, X402_PRICE: '$0.01' })).toThrow(/atomic units/);
    expect(configFromEnv({ ...full, X402_ASSET: payTo, X402_ASSET_NAME: 'Token', X402_ASSET_VERSION: '1', X402_PRICE: '5000' }).x402?.asset).toEqual({
      address: payTo,
      name: 'Token',
      version: '1',
    });
  });
});

describe.each(DATABASES)('x402 rate limit on arrival (%s)', (dbKind) => {
  let facilitator: LocalFacilitator;
  let server: TestServer;
  beforeAll(async () => {
    facilitator = await startLocalFacilitator();
    server = await startTestServer({
      db: dbKind,
      // No engine: an admitted call stops at 503 service-busy, after its verification, never settled.
      backend: NO_INFERENCE,
      rateLimitPerSecond: 3,
      config: {
        x402: { payTo: privateKeyToAccount(generatePrivateKey()).address, network: BASE_SEPOLIA, price: '$0.01', facilitatorUrl: facilitator.url, facilitatorTimeoutMs: 10_000, maxTimeoutSeconds: 300 },
      },
    });
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => {
    await server?.cleanup();
    await facilitator?.close();
  });

  const payer = () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    facilitator.chain.mint(wallet.address, 1_000_000n);
    const core = new x402Client();
    registerExactEvmScheme(core, { signer: wallet });
    return new x402HTTPClient(core);
  };
  const post = (headers: Record<string, string> = {}) => server.fetch('/api/v1/pvs', { method: 'POST', headers, json: pvs() });
  const signedBy = async (client: x402HTTPClient) => {
    const unpaid = await post();
    const required = client.getPaymentRequiredResponse((name) => unpaid.headers.get(name), await unpaid.json());
    return client.encodePaymentSignatureHeader(await client.createPaymentPayload(required));
  };

  it('a burst from one payer gets its 429 before the facilitator is asked; another payer is not held back', async () => {
    const alice = payer();
    const bob = payer();
    const payments = [await signedBy(alice), await signedBy(alice), await signedBy(alice), await signedBy(alice)];
    const bobs = await signedBy(bob);
    facilitator.counts.verify = 0;
    server.clock.freeze();
    try {
      const statuses = [];
      for (const headers of payments) statuses.push((await post(headers)).status);
      expect(statuses).toEqual([503, 503, 503, 429]);
      expect(facilitator.counts.verify, 'the fourth payment is never verified').toBe(3);
      expect((await post(bobs)).status).toBe(503);
      expect(facilitator.counts.verify).toBe(4);
    } finally {
      server.clock.unfreeze();
    }
    expect(facilitator.counts.settle).toBe(0);
  });

  it('payments that name no payer are counted by client address', async () => {
    facilitator.counts.verify = 0;
    server.clock.freeze();
    try {
      const statuses = [];
      for (let i = 0; i < 4; i += 1) statuses.push((await post({ 'payment-signature': 'not a payment' })).status);
      expect(statuses).toEqual([402, 402, 402, 429]);
      server.clock.advance(1000);
      expect((await post({ 'payment-signature': 'not a payment' })).status).toBe(402);
    } finally {
      server.clock.unfreeze();
    }
    expect(facilitator.counts.verify).toBe(0);
  });
});

/**
 * Stripe mode: the real `stripe` package talks to a local stand-in that speaks Stripe's wire
 * format (form-encoded POST /v1/checkout/sessions → a checkout.session object), and webhooks are
 * signed with the real `stripe.webhooks.generateTestHeaderString`. Stripe itself is a third party
 * we cannot reach from tests; everything else is real.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { creditsOf, DATABASES, expectProblem, NO_INFERENCE, signupUser, startTestServer, type TestServer } from '../../test/support/server/harness';

const WEBHOOK_SECRET = 'whsec_test_standin_secret';

interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  form: URLSearchParams;
}

function startStripeStandIn() {
  const seen: SeenRequest[] = [];
  let failNext = false;
  let counter = 0;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const form = new URLSearchParams(raw);
      seen.push({ method: req.method!, path: req.url!, headers: req.headers, form });
      res.setHeader('content-type', 'application/json');
      res.setHeader('request-id', `req_standin_${++counter}`);
      if (failNext) {
        failNext = false;
        res.statusCode = 400;
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'stand-in refused the request' } }));
        return;
      }
      if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
        const id = `cs_test_${counter.toString().padStart(8, '0')}`;
        res.end(
          JSON.stringify({
            id,
            object: 'checkout.session',
            url: `https://checkout.stripe.com/c/pay/${id}`,
            mode: form.get('mode'),
            status: 'open',
            payment_status: 'unpaid',
            client_reference_id: form.get('client_reference_id'),
            metadata: {
              purchaseId: form.get('metadata[purchaseId]'),
              accountId: form.get('metadata[accountId]'),
              packageId: form.get('metadata[packageId]'),
            },
            amount_total: Number(form.get('line_items[0][price_data][unit_amount]')),
            currency: form.get('line_items[0][price_data][currency]'),
            livemode: false,
          }),
        );
        return;
      }
      res.statusCode = 404;
      res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: `no route ${req.url}` } }));
    });
  });
  return {
    seen,
    failNextRequest: () => (failNext = true),
    listen: () => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const signer = new Stripe('sk_test_signer_only');

function checkoutEvent(type: string, session: { id: string; payment_status: string }, eventId = `evt_${Math.random().toString(36).slice(2)}`) {
  return JSON.stringify({
    id: eventId,
    object: 'event',
    api_version: '2025-01-01',
    created: Math.floor(Date.now() / 1000),
    type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object: { object: 'checkout.session', status: 'complete', ...session } },
  });
}

describe.each(DATABASES)('Stripe Checkout and webhook (%s)', (dbKind) => {
  const standIn = startStripeStandIn();
  let server: TestServer;

  const deliver = (payload: string, secret = WEBHOOK_SECRET) =>
    server.fetch('/api/v1/stripe/webhook', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signer.webhooks.generateTestHeaderString({ payload, secret }) },
      body: payload,
    });

  beforeAll(async () => {
    const port = await standIn.listen();
    server = await startTestServer({
      db: dbKind,
      backend: NO_INFERENCE,
      config: {
        stripe: {
          secretKey: 'sk_test_standin',
          webhookSecret: WEBHOOK_SECRET,
          successUrl: 'http://localhost/?purchase=success&session_id={CHECKOUT_SESSION_ID}',
          cancelUrl: 'http://localhost/?purchase=cancelled',
          api: { host: '127.0.0.1', port, protocol: 'http' },
        },
      },
    });
  });
  afterEach(async () => server.checkLedger());
  afterAll(async () => {
    await server?.cleanup();
    await standIn.close();
  });

  it('creates a Checkout session with the package price and credits it once when the signed webhook says paid', async () => {
    const user = await signupUser(server);
    const packages = await (await server.fetch('/api/v1/credit-packages')).json();
    expect(packages.paymentMode).toBe('stripe');
    const response = await server.fetch('/api/v1/credit-purchases', { method: 'POST', headers: user.sessionHeaders, json: { packageId: 'standard' } });
    expect(response.status).toBe(201);
    const purchase = await response.json();
    expect(purchase).toMatchObject({ mode: 'stripe', status: 'pending', credits: 550, packageId: 'standard' });
    expect(purchase.checkoutUrl).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);

    const sent = standIn.seen.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk_test_standin');
    expect(sent.headers['idempotency-key']).toBe(`purchase-${purchase.id}`);
    expect(sent.form.get('mode')).toBe('payment');
    expect(sent.form.get('line_items[0][price_data][unit_amount]')).toBe('2999');
    expect(sent.form.get('line_items[0][price_data][currency]')).toBe('usd');
    expect(sent.form.get('client_reference_id')).toBe(purchase.id);
    expect(await creditsOf(server, user)).toBe(5);

    const sessionId = purchase.checkoutUrl.split('/').pop();
    const event = checkoutEvent('checkout.session.completed', { id: sessionId, payment_status: 'paid' }, 'evt_paid_1');
    expect((await deliver(event)).status).toBe(200);
    expect(await creditsOf(server, user)).toBe(555);
    // Stripe delivers at least once: the same event again, or another event for the same session, credits nothing.
    expect((await deliver(event)).status).toBe(200);
    expect((await deliver(checkoutEvent('checkout.session.async_payment_succeeded', { id: sessionId, payment_status: 'paid' }))).status).toBe(200);
    expect(await creditsOf(server, user)).toBe(555);
  });

  it('waits for an asynchronous payment: completed-but-unpaid credits nothing, async_payment_succeeded credits', async () => {
    const user = await signupUser(server);
    const purchase = await (
      await server.fetch('/api/v1/credit-purchases', { method: 'POST', headers: user.bearer, json: { packageId: 'lite' } })
    ).json();
    const sessionId = purchase.checkoutUrl.split('/').pop();
    await deliver(checkoutEvent('checkout.session.completed', { id: sessionId, payment_status: 'unpaid' }));
    expect(await creditsOf(server, user)).toBe(5);
    await deliver(checkoutEvent('checkout.session.async_payment_succeeded', { id: sessionId, payment_status: 'paid' }));
    expect(await creditsOf(server, user)).toBe(305);
  });

  it('refuses a webhook with a bad or missing signature (400) and credits nothing', async () => {
    const user = await signupUser(server);
    const purchase = await (
      await server.fetch('/api/v1/credit-purchases', { method: 'POST', headers: user.bearer, json: { packageId: 'pro' } })
    ).json();
    const event = checkoutEvent('checkout.session.completed', { id: purchase.checkoutUrl.split('/').pop(), payment_status: 'paid' });
    await expectProblem(await deliver(event, 'whsec_wrong'), 400, 'webhook-signature-invalid');
    const unsigned = await server.fetch('/api/v1/stripe/webhook', { method: 'POST', headers: { 'content-type': 'application/json' }, body: event });
    await expectProblem(unsigned, 400, 'webhook-signature-invalid');
    const tampered = await server.fetch('/api/v1/stripe/webhook', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signer.webhooks.generateTestHeaderString({ payload: event, secret: WEBHOOK_SECRET }) },
      body: event.replace('"paid"', '"paid" '),
    });
    await expectProblem(tampered, 400, 'webhook-signature-invalid');
    expect(await creditsOf(server, user)).toBe(5);
  });

  it('answers 503 payments-unavailable when Stripe refuses, storing no purchase', async () => {
    const user = await signupUser(server);
    standIn.failNextRequest();
    const response = await server.fetch('/api/v1/credit-purchases', { method: 'POST', headers: user.bearer, json: { packageId: 'lite' } });
    await expectProblem(response, 503, 'payments-unavailable');
    expect(await creditsOf(server, user)).toBe(5);
  });
});

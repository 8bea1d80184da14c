/**
 * Credit purchases. Two modes:
 *  - stripe: a real Stripe Checkout session (official `stripe` package); the credits arrive when
 *    Stripe's signed `checkout.session.completed` (or `…async_payment_succeeded`) webhook says the
 *    session is paid. Each session credits exactly once: the purchase moves pending → paid under a
 *    guarded UPDATE and the ledger's unique (purchase, id) entry backs that up.
 *  - demo: no payment provider configured. Clearly labelled `mode: "demo"`; completes at once.
 */
import Stripe from 'stripe';
import { CREDIT_PACKAGES, type CreditPackageId, type CreditPurchase } from '../../contract/account';
import type { Db } from '../db/connect';
import type { PurchasesTable } from '../db/schema';
import type { Clock } from './clock';
import { DomainError } from './errors';
import { newId } from './ids';
import { applyLedgerEntry, balanceOf } from './ledger';

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** Where Stripe sends the buyer back; `{CHECKOUT_SESSION_ID}` is filled in by Stripe. */
  successUrl: string;
  cancelUrl: string;
  /** For tests against a local stand-in that speaks Stripe's wire format. */
  api?: { host: string; port: number; protocol: 'http' | 'https' };
}

export class Payments {
  readonly stripe: Stripe | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly settings: StripeSettings | undefined,
    /** Without Stripe: may purchases complete without payment? (see demoPaymentsAllowed) */
    private readonly demoAllowed = true,
  ) {
    this.stripe = settings
      ? new Stripe(settings.secretKey, {
          maxNetworkRetries: 2,
          timeout: 20_000,
          telemetry: false,
          ...(settings.api ?? {}),
        })
      : undefined;
  }

  get mode(): 'stripe' | 'demo' | 'disabled' {
    return this.stripe ? 'stripe' : this.demoAllowed ? 'demo' : 'disabled';
  }

  async purchase(accountId: string, packageId: CreditPackageId): Promise<CreditPurchase> {
    const pkg = CREDIT_PACKAGES.find((p) => p.id === packageId);
    if (!pkg) throw new DomainError('validation-failed', `unknown package ${packageId}`);
    const id = newId('pur');
    const now = this.clock.now();

    if (!this.stripe || !this.settings) {
      if (!this.demoAllowed) throw new DomainError('demo-payments-disabled');
      await this.db.transaction(async (trx) => {
        await trx.insertInto('purchases').values(purchaseRow(id, accountId, pkg, now, { provider: 'demo', stripe_session_id: null, status: 'paid', paid_at: now })).execute();
        await applyLedgerEntry(trx, { accountId, amount: pkg.credits, kind: 'purchase', reference: id, now }, this.db.kysely);
      });
      return {
        id,
        packageId: pkg.id,
        credits: pkg.credits,
        status: 'paid',
        mode: 'demo',
        checkoutUrl: null,
        balance: await balanceOf(this.db.kysely, accountId),
      };
    }

    let session: Stripe.Checkout.Session;
    try {
      session = await this.stripe.checkout.sessions.create(
        {
          mode: 'payment',
          client_reference_id: id,
          metadata: { purchaseId: id, accountId, packageId: pkg.id },
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: pkg.currency,
                unit_amount: pkg.priceCents,
                product_data: { name: `Maskwright ${pkg.name}: ${pkg.credits} credits` },
              },
            },
          ],
          success_url: this.settings.successUrl,
          cancel_url: this.settings.cancelUrl,
        },
        { idempotencyKey: `purchase-${id}` },
      );
    } catch (error) {
      throw new DomainError('payments-unavailable', error instanceof Error ? error.message : String(error));
    }
    await this.db.kysely
      .insertInto('purchases')
      .values(purchaseRow(id, accountId, pkg, now, { provider: 'stripe', stripe_session_id: session.id, status: 'pending', paid_at: null }))
      .execute();
    return { id, packageId: pkg.id, credits: pkg.credits, status: 'pending', mode: 'stripe', checkoutUrl: session.url ?? null };
  }

  /**
   * Verifies and applies a Stripe webhook. Returns what happened, for the log.
   * Throws DomainError('webhook-signature-invalid') for a bad signature.
   */
  async handleWebhook(rawBody: Buffer, signature: string | undefined): Promise<string> {
    if (!this.stripe || !this.settings) throw new DomainError('not-found', 'Stripe is not configured');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signature ?? '', this.settings.webhookSecret);
    } catch (error) {
      throw new DomainError('webhook-signature-invalid', error instanceof Error ? error.message : String(error));
    }
    if (event.type !== 'checkout.session.completed' && event.type !== 'checkout.session.async_payment_succeeded') {
      return `ignored ${event.type}`;
    }
    const session = event.data.object as Stripe.Checkout.Session;
    if (session.payment_status !== 'paid') return `session ${session.id} not paid yet (${session.payment_status})`;
    const credited = await this.creditPaidSession(session.id);
    return credited ? `credited session ${session.id}` : `session ${session.id} already credited or unknown`;
  }

  /** Exactly once per session, however often Stripe delivers the event. */
  async creditPaidSession(sessionId: string): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const now = this.clock.now();
      const purchase = await trx
        .selectFrom('purchases')
        .selectAll()
        .where('stripe_session_id', '=', sessionId)
        .$if(this.db.dialect === 'postgres', (q) => q.forUpdate())
        .executeTakeFirst();
      if (!purchase || purchase.status === 'paid') return false;
      await trx.updateTable('purchases').set({ status: 'paid', paid_at: now }).where('id', '=', purchase.id).execute();
      return applyLedgerEntry(
        trx,
        { accountId: purchase.account_id, amount: purchase.credits, kind: 'purchase', reference: purchase.id, now },
        this.db.kysely,
      );
    });
  }
}

/** A purchase row of a package; how it is paid (demo at once, Stripe later) is the caller's part. */
function purchaseRow(
  id: string,
  accountId: string,
  pkg: (typeof CREDIT_PACKAGES)[number],
  now: number,
  payment: Pick<PurchasesTable, 'provider' | 'stripe_session_id' | 'status' | 'paid_at'>,
): PurchasesTable {
  return { id, account_id: accountId, package_id: pkg.id, credits: pkg.credits, amount_cents: pkg.priceCents, currency: pkg.currency, created_at: now, ...payment };
}

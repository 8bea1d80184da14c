/**
 * The zero-configuration demo (no Stripe: purchases complete at once, no money moves) is for a
 * person on their own machine. A server reachable from other machines would give credits away to
 * anyone, so there demo purchases are refused unless explicitly enabled (DEMO_PAYMENTS=on).
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::ffff:127.0.0.1';
}

export function demoPaymentsAllowed(host: string, explicitlyEnabled: boolean): boolean {
  return explicitlyEnabled || isLoopbackHost(host);
}

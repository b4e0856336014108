import type { Customer } from './events.js';

/** Longest name kept for display; a platform may send anything. */
const MAX_NAME = 120;

/** A name the customer gave (the platform's client name, or one set in the widget), tidied for display; null when none. */
export function givenName(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const name = raw.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return name ? name.slice(0, MAX_NAME) : null;
}

/**
 * How the dashboard names a customer: the name they gave, else "Visitor 4F2A" for a web chat visitor (the
 * first four hex digits of their visitor id: short, stable, and enough to tell today's visitors apart), else
 * "Client <platform client id>".
 */
export function customerDisplayName(connectorType: 'msgplatform' | 'webchat', customer: Customer, given: string | null = null): string {
  const name = given ?? givenName(customer.name);
  if (name) return name;
  const id = String(customer.clientId);
  if (connectorType === 'webchat') return `Visitor ${id.replace(/[^0-9a-f]/gi, '').slice(0, 4).toUpperCase() || id.slice(0, 4)}`;
  return `Client ${id}`;
}

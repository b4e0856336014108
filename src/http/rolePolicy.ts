import { roleSchema, type Role } from '../domain/accounts/team/events.js';

/**
 * Which roles may call which routes, in one table the authenticator applies to every protected route (so a
 * route added later inside a listed area is covered without remembering to check). Agents read and work
 * conversations; they do not manage integrations (and their webhook logs), LLM settings, API tokens,
 * billing/credits or the team. A route not listed here is open to every role.
 */
const MANAGERS: readonly Role[] = ['owner', 'admin'];

interface Rule {
  /** Route pattern as fastify registers it; a trailing `*` matches the prefix. */
  url: string;
  /** Methods the rule covers; all when absent. */
  methods?: readonly string[];
  roles: readonly Role[];
}

const WRITE = ['POST', 'PUT', 'PATCH', 'DELETE'];

export const ROLE_RULES: readonly Rule[] = [
  { url: '/api/integrations*', methods: WRITE, roles: MANAGERS },
  { url: '/api/webhook-logs*', roles: MANAGERS },
  { url: '/api/llm-config*', roles: MANAGERS },
  // Every role reads the business hours (they decide when the queue is "after hours"); managers set them.
  { url: '/api/settings/business-hours', methods: ['GET'], roles: roleSchema.options },
  { url: '/api/settings/*', roles: MANAGERS },
  { url: '/api/credits*', roles: MANAGERS },
  // An agent's behaviour is what customers get: changing, publishing or rolling it back is for managers;
  // every role reads it and uses the playground (POST /api/agents/:id/playground stays open).
  { url: '/api/agents', methods: ['POST'], roles: MANAGERS },
  { url: '/api/agents/:id', methods: WRITE, roles: MANAGERS },
  { url: '/api/agents/:id/versions*', methods: WRITE, roles: MANAGERS },
  { url: '/api/agents/:id/rollback', methods: WRITE, roles: MANAGERS },
  { url: '/api/agents/:id/test-runs', methods: ['POST'], roles: MANAGERS },
  { url: '/api/agents/:id/test-runs/estimate', methods: ['POST'], roles: MANAGERS },
  { url: '/api/agents/:id/experiments*', methods: WRITE, roles: MANAGERS },
  // A release check spends credits on a paid model (its replay).
  { url: '/api/agents/:id/release-checks', methods: ['POST'], roles: MANAGERS },
  { url: '/api/agents/:id/release-checks/estimate', methods: ['POST'], roles: MANAGERS },
  // Starting or stopping a replay spends credits; every role may read the comparisons.
  { url: '/api/replays*', methods: WRITE, roles: MANAGERS },
  // Support teams and their routes: owners and admins change them; every role reads them.
  { url: '/api/teams*', methods: WRITE, roles: MANAGERS },
  { url: '/api/team/invitations*', roles: MANAGERS },
  { url: '/api/team/:userId', methods: ['PATCH', 'DELETE'], roles: MANAGERS },
  // Outbound webhooks: owners and admins manage endpoints and their deliveries; every role may read them.
  { url: '/api/webhook-endpoints*', methods: WRITE, roles: MANAGERS },
  { url: '/api/webhook-settings*', methods: WRITE, roles: MANAGERS },
  // Actions reach the company's own systems with its secrets: owners and admins define and test them; every role reads them.
  { url: '/api/actions*', methods: WRITE, roles: MANAGERS },
  // Erasing a customer's personal data cannot be undone (GDPR erasure): owners and admins only.
  { url: '/api/customers/:id', methods: ['DELETE'], roles: MANAGERS },
  // An export holds everything about the customer at once (GDPR access request): owners and admins only.
  { url: '/api/customers/:id/export', roles: MANAGERS },
];

/** The roles allowed on a route, or null when every role is. */
export function rolesFor(method: string, url: string): readonly Role[] | null {
  for (const rule of ROLE_RULES) {
    const matches = rule.url.endsWith('*') ? url.startsWith(rule.url.slice(0, -1)) : url === rule.url;
    if (matches && (!rule.methods || rule.methods.includes(method))) return rule.roles;
  }
  return null;
}

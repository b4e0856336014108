import type { CustomerIdentity } from '../actions/definition.js';
import type { ConversationState } from './state.js';

/**
 * Who the customer verifiably is, for the identity parameters of actions: the messaging platform's client id
 * (the platform signs every webhook that carries it) and a web-chat visitor's identity only once the company's
 * site signed it. An anonymous visitor has none, so an action that needs identity cannot be reached.
 */
export function customerIdentityOf(state: Pick<ConversationState, 'connectorType' | 'customer' | 'verifiedVisitor'>): CustomerIdentity {
  const identity: CustomerIdentity = {};
  if (state.connectorType === 'msgplatform' && state.customer) identity['platform.clientId'] = String(state.customer.clientId);
  if (state.verifiedVisitor) {
    identity['webchat.userId'] = state.verifiedVisitor.userId;
    if (state.verifiedVisitor.email) identity['webchat.email'] = state.verifiedVisitor.email;
  }
  return identity;
}

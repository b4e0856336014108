/** What a visitor token proves: this browser is `visitorId` of `integrationId`, writing in `conversationId`. */
export interface VisitorClaims {
  integrationId: number;
  visitorId: string;
  conversationId: string;
  /**
   * The signed user the token was issued to, if any: their conversation continues only under their signature,
   * even before it has a first message that records whose it is.
   */
  userId?: string;
}

/** Signed visitor tokens of the web chat (the widget keeps one per integration in localStorage). */
export interface VisitorTokens {
  issue(claims: VisitorClaims): Promise<string>;
  /** Throws InvalidVisitorTokenError on any invalid token (signature, algorithm, issuer, audience, expiry, shape). */
  verify(token: string): Promise<VisitorClaims>;
}

export class InvalidVisitorTokenError extends Error {
  override readonly name = 'InvalidVisitorTokenError';
  constructor(reason: string) {
    super(`invalid visitor token: ${reason}`);
  }
}

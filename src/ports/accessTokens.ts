/** What a dashboard access token proves. */
export interface AccessClaims {
  userId: string;
  companyId: string;
  companyKey: number;
  sessionId: string;
}

export interface AccessTokens {
  /** expiresAt in seconds since the epoch. */
  issue(claims: AccessClaims): Promise<{ token: string; expiresAt: number }>;
  /** Throws on any invalid token (algorithm, issuer, audience, expiry, signature, shape). */
  verify(token: string): Promise<AccessClaims>;
}

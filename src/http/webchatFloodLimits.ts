import type { RateLimiter } from '../ports/rateLimiter.js';

/** Per minute; see docs/api/webchat.md. */
export interface WebchatFloodLimitsConfig {
  newVisitorsPerIp: number;
  newVisitorsPerIntegration: number;
  messagesPerIp: number;
  messagesPerIntegration: number;
}

export const FLOOD_WINDOW_MS = 60_000;

/** Why a new visitor or a message was refused: the text of the RATE_LIMITED frame. */
export type Refusal = string;

/**
 * The web chat's flood limits on top of the per-visitor message limit: new visitors (hello without a valid
 * visitor token) and messages, per client IP and per integration. The IP is checked first, so a flooding
 * address runs out of its own budget before it can spend the integration's, which the other visitors share.
 * Each check counts only when allowed (a refused hit leaves the counters as they were).
 */
export function webchatFloodLimits(limiter: RateLimiter, config: WebchatFloodLimitsConfig) {
  const rule = (limit: number) => ({ limit, windowMs: FLOOD_WINDOW_MS });
  return {
    async newVisitor(ip: string, integrationId: number): Promise<Refusal | null> {
      if (!(await limiter.take(`webchat.new-visitor.ip.${ip}`, rule(config.newVisitorsPerIp)))) {
        return `Too many new visitors from this address (at most ${config.newVisitorsPerIp} a minute); try again later`;
      }
      if (!(await limiter.take(`webchat.new-visitor.integration.${integrationId}`, rule(config.newVisitorsPerIntegration)))) {
        return 'Too many new visitors on this chat right now; try again later';
      }
      return null;
    },
    async message(ip: string, integrationId: number): Promise<Refusal | null> {
      if (!(await limiter.take(`webchat.message.ip.${ip}`, rule(config.messagesPerIp)))) {
        return `Too many messages from this address (at most ${config.messagesPerIp} a minute); wait a moment`;
      }
      if (!(await limiter.take(`webchat.message.integration.${integrationId}`, rule(config.messagesPerIntegration)))) {
        return 'Too many messages on this chat right now; wait a moment';
      }
      return null;
    },
  };
}

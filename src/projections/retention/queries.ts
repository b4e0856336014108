import type { Page, ReadStore } from '../../ports/readStore.js';
import { RETAINED_CONVERSATIONS, RETENTION_POLICIES, type RetainedConversationDoc, type RetentionPolicyDoc } from './retentionProjection.js';

/** Companies that have a retention period, a page at a time (by company id). */
export const retentionPolicies = (readStore: ReadStore, limit: number, cursor: string | null): Promise<Page<RetentionPolicyDoc>> =>
  readStore.find<RetentionPolicyDoc>(RETENTION_POLICIES, { where: { active: true }, limit, cursor });

/** The company's closed conversations, closed longest ago first. */
export const oldestClosedConversations = (readStore: ReadStore, companyId: string, limit: number): Promise<Page<RetainedConversationDoc>> =>
  readStore.find<RetainedConversationDoc>(RETAINED_CONVERSATIONS, { where: { companyId, closed: true }, orderBy: [{ field: 'closedAt', direction: 'asc' }], limit });

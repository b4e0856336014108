import { z } from 'zod';

/** Bus subject and job of the handoff summaries: one job per event that handed a conversation to people. */
export const SUMMARIZE_HANDOFF = 'handoffs.summarize';
export const summarizeHandoffJob = z.object({ conversationId: z.uuid(), companyId: z.uuid() });
export type SummarizeHandoffJob = z.infer<typeof summarizeHandoffJob>;

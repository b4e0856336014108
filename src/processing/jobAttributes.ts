/** What a job's span says about it (src/ports/tracing.ts): ids and the attempt, never the message's text. */
export const jobAttributes = (job: { companyId?: string | undefined; conversationId: string; messageId: string }, deliveryCount: number) => ({
  ...(job.companyId ? { 'mas.company_id': job.companyId } : {}),
  'mas.conversation_id': job.conversationId,
  'mas.message_id': job.messageId,
  'messaging.message.delivery_count': deliveryCount,
});

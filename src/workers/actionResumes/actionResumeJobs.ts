import { z } from 'zod';

/** Bus subject and job of an approve call a teammate decided: the agent makes it (or not) and tells the customer. */
export const RESUME_ACTION = 'actions.resume';
export const resumeActionJob = z.object({ conversationId: z.uuid(), companyId: z.uuid(), callId: z.uuid() });
export type ResumeActionJob = z.infer<typeof resumeActionJob>;

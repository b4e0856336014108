import { z } from 'zod';
import { RETENTION_LIMITS } from '../../domain/company/retention/events.js';
import { bearerSecurity as security, errorResponses } from './schemas.js';

const retentionView = z.object({
  retention: z.object({
    conversationDays: z.number().int().nullable().describe('days a closed conversation is kept before it and its customer are erased; null keeps them forever (default)'),
    updatedBy: z.string().nullable(),
    updatedAt: z.string().nullable(),
  }),
});

export const getRetentionSchema = {
  tags: ['settings'],
  security,
  summary: 'How long closed conversations are kept (owners and admins)',
  response: { 200: retentionView, ...errorResponses },
};

export const setRetentionSchema = {
  tags: ['settings'],
  security,
  summary: 'Sets how long closed conversations are kept (owners and admins)',
  description: `Conversations closed more than \`conversationDays\` days ago (${RETENTION_LIMITS.minDays}–${RETENTION_LIMITS.maxDays}) are erased, with their customer, by the same erasure as DELETE /api/customers/:id (CustomerErased by \`system:retention\`), on the processor's sweep. \`null\` keeps everything (the default). Another role: 403.`,
  body: z.strictObject({ conversationDays: z.number().int().min(RETENTION_LIMITS.minDays).max(RETENTION_LIMITS.maxDays).nullable() }),
  response: { 200: retentionView, ...errorResponses },
};

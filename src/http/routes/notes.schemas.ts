import { z } from 'zod';
import { NOTE_LIMITS } from '../../domain/conversations/events.js';
import { messageSchema } from './conversations.schemas.js';
import { bearerSecurity as security, errorResponses, idempotencyKeyHeaders } from './schemas.js';

export const addNoteSchema = {
  tags: ['conversations'],
  summary: 'Adds an internal note to the conversation (for the team only)',
  description:
    'An internal note in the conversation\'s timeline: never sent to the customer, and given to the AI agent only when the company turned that on (PUT /api/settings/notes). `@name` (a teammate\'s name, first name or email local part) mentions them: each mentioned teammate is notified in the dashboard. Any role may write one. An Idempotency-Key makes a retried request record nothing.',
  security,
  headers: idempotencyKeyHeaders,
  params: z.object({ id: z.string().max(64) }),
  body: z.strictObject({ text: z.string().trim().min(1).max(NOTE_LIMITS.text) }),
  response: { 201: z.object({ note: messageSchema }), ...errorResponses },
};

const noteSharingView = z.object({ notes: z.object({ shareWithAi: z.boolean().describe('whether the AI agents read internal notes as context (default false)') }) });

export const getNoteSharingSchema = { tags: ['settings'], security, summary: 'Whether AI agents read internal notes', response: { 200: noteSharingView, ...errorResponses } };

export const setNoteSharingSchema = {
  tags: ['settings'],
  security,
  summary: 'Lets AI agents read internal notes, or not (owners and admins)',
  body: z.strictObject({ shareWithAi: z.boolean() }),
  response: { 200: noteSharingView, ...errorResponses },
};

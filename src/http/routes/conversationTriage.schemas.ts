import { z } from 'zod';
import { priority } from '../../domain/conversations/triage.js';
import { conversationSchema } from './conversations.schemas.js';
import { bearerSecurity as security, errorResponses } from './schemas.js';

const params = z.object({ id: z.string().max(64) });
const one = z.object({ conversation: conversationSchema });

export const setPrioritySchema = {
  tags: ['conversations'],
  summary: "Sets the conversation's priority",
  description: 'urgent, high, normal or low (every conversation starts at normal); SLA targets key on it. Setting the priority it has changes nothing. Every role. Another company\'s conversation: 404.',
  security,
  params,
  body: z.strictObject({ priority }),
  response: { 200: one, ...errorResponses },
};

export const snoozeSchema = {
  tags: ['conversations'],
  summary: 'Snoozes the conversation until a time',
  description:
    'Takes the conversation out of Mine, Unassigned and Needs human (into Snoozed) until `until` (an ISO 8601 time, in the future and at most a year ahead: else 400); a new customer message, or unsnooze, brings it back sooner. A resolved conversation cannot be snoozed (409). Snoozing again moves the time. Every role.',
  security,
  params,
  body: z.strictObject({ until: z.iso.datetime({ offset: true }) }),
  response: { 200: one, ...errorResponses, 409: errorResponses[400] },
};

export const unsnoozeSchema = {
  tags: ['conversations'],
  summary: 'Ends the snooze now',
  description: 'Brings a snoozed conversation back to the open queues; on one that is not snoozed it changes nothing. Every role.',
  security,
  params,
  response: { 200: one, ...errorResponses },
};

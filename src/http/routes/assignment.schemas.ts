import { z } from 'zod';
import { availability } from '../../domain/accounts/availability/events.js';
import { MAX_CAPACITY } from '../../domain/company/autoAssignment/events.js';
import { bearerSecurity as security, errorResponses } from './schemas.js';

const availabilityView = z.object({ availability });
const autoAssignmentView = z.object({
  autoAssignment: z.object({
    enabled: z.boolean().describe('handed-off conversations are assigned automatically, round-robin among online teammates'),
    capacity: z.number().int().min(1).max(MAX_CAPACITY).describe('open conversations a teammate may own before automatic assignment skips them'),
  }),
});

export const setAvailabilitySchema = {
  tags: ['team'],
  security,
  description: 'The caller says whether they take conversations now (every role; their own availability only). Automatic assignment gives conversations to online teammates only.',
  body: z.strictObject({ availability }),
  response: { 200: availabilityView, ...errorResponses },
};

export const getAutoAssignmentSchema = { tags: ['settings'], security, response: { 200: autoAssignmentView, ...errorResponses } };

export const setAutoAssignmentSchema = {
  tags: ['settings'],
  security,
  description:
    'Owners and admins: turns automatic assignment of handed-off conversations on or off, and sets how many open conversations each teammate may own. A conversation nobody has room for waits in "Needs human" and is assigned as soon as someone frees up.',
  body: z.strictObject({ enabled: z.boolean(), capacity: z.number().int().min(1).max(MAX_CAPACITY) }),
  response: { 200: autoAssignmentView, ...errorResponses },
};

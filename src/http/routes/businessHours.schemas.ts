import { z } from 'zod';
import { businessHoursSchema, BUSINESS_HOURS_LIMITS } from '../../domain/company/businessHours/events.js';
import { bearerSecurity as security, errorResponses } from './schemas.js';

const view = businessHoursSchema.extend({
  timezone: z.string().describe('The company timezone (PUT /api/settings/timezone) the hours are read in'),
  openNow: z.boolean(),
  nextOpening: z.string().nullable().describe('When people are next there (now, while open); null when the schedule opens nowhere in the next 400 days'),
});
export type BusinessHoursView = z.infer<typeof view>;

export const getBusinessHoursSchema = {
  tags: ['settings'],
  security,
  description: 'The company business hours (every role may read them), whether it is open now and when it next opens.',
  response: { 200: view, ...errorResponses },
};

export const setBusinessHoursSchema = {
  tags: ['settings'],
  security,
  description:
    `Sets the weekly openings (per weekday, at most ${BUSINESS_HOURS_LIMITS.openingsPerDay} \`{from, to}\` of \`HH:MM\`, \`to\` up to 24:00) and up to ${BUSINESS_HOURS_LIMITS.holidays} holidays (\`YYYY-MM-DD\`, closed all day), ` +
    'in the company timezone. Outside them the AI still answers; a handoff tells the customer when people are back and waits in the queue as "after hours". Owners and admins.',
  body: z.strictObject({
    enabled: z.boolean(),
    weekly: z.strictObject(businessHoursSchema.shape.weekly.shape),
    holidays: businessHoursSchema.shape.holidays.default([]),
  }),
  response: { 200: view, ...errorResponses },
};

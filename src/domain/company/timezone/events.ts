import { z } from 'zod';

/**
 * The company's timezone (an IANA name such as `Europe/Berlin`), carried on the company stream next to the
 * company's other events. Analytics bucket each event into the local day of the timezone in force when it
 * happened, so a change applies from then on and a rebuild reproduces the same days.
 */
export const TIMEZONE_MAX_LENGTH = 64;

export const companyTimezoneEvents = {
  CompanyTimezoneSet: z.object({
    timezone: z.string().min(1).max(TIMEZONE_MAX_LENGTH),
    previousTimezone: z.string().min(1).max(TIMEZONE_MAX_LENGTH),
    by: z.string().max(100).nullable(),
    at: z.iso.datetime(),
  }),
};
type Events = typeof companyTimezoneEvents;
export type CompanyTimezoneEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];


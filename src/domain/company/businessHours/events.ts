import { z } from 'zod';

/**
 * The company's business hours: when people are there to take over from the AI, in the company's timezone
 * (the one CompanyTimezoneSet put in force). Carried on the company stream next to the timezone.
 */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Openings per day and holidays kept at most: a schedule stays small, and so does every check against it. */
export const BUSINESS_HOURS_LIMITS = { openingsPerDay: 4, holidays: 100, holidayName: 100 } as const;

/** `HH:MM` on a 24-hour clock; `24:00` closes at the end of the day. */
export const clockTime = z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'a time written HH:MM (00:00 to 24:00)');
export const openingSchema = z.object({ from: clockTime, to: clockTime });
export const weeklyHoursSchema = z.object(
  Object.fromEntries(WEEKDAYS.map((d) => [d, z.array(openingSchema).max(BUSINESS_HOURS_LIMITS.openingsPerDay)])) as Record<Weekday, z.ZodArray<typeof openingSchema>>,
);
export const holidaySchema = z.object({ date: z.iso.date(), name: z.string().max(BUSINESS_HOURS_LIMITS.holidayName).optional() });

export const businessHoursSchema = z.object({
  /** Off: always open (the AI and the queue behave as without business hours). */
  enabled: z.boolean(),
  weekly: weeklyHoursSchema,
  holidays: z.array(holidaySchema).max(BUSINESS_HOURS_LIMITS.holidays),
});

export const businessHoursEvents = {
  BusinessHoursSet: businessHoursSchema.extend({ by: z.string().max(100).nullable(), at: z.iso.datetime() }),
};
type Events = typeof businessHoursEvents;
export type BusinessHoursEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
export type BusinessHours = z.infer<typeof businessHoursSchema>;
export type WeeklyHours = z.infer<typeof weeklyHoursSchema>;
export type Opening = z.infer<typeof openingSchema>;
export type Holiday = z.infer<typeof holidaySchema>;

import { z } from 'zod';
import { PRIORITIES, type Priority } from '../../conversations/triage.js';

/**
 * The company's SLA policy: per conversation priority, how long people may take to answer first, to answer
 * again once the customer wrote back, and to resolve, in business minutes (counted only while the company's
 * business hours are open; without business hours, every minute counts). A target left null is not measured.
 * Its own stream per company, changed rarely.
 */
/** 30 days of business minutes at most: a due time is walked through the openings it crosses (about 90 working days). */
export const SLA_MAX_MINUTES = 60 * 24 * 30;
const minutes = z.number().int().min(1).max(SLA_MAX_MINUTES).nullable();

export const slaTargetsSchema = z.object({ firstResponseMinutes: minutes, nextResponseMinutes: minutes, resolutionMinutes: minutes });
export type SlaTargets = z.infer<typeof slaTargetsSchema>;
export const slaPolicySchema = z.object({
  /** Off: no clocks run and no breaches are counted. */
  enabled: z.boolean(),
  targets: z.object(Object.fromEntries(PRIORITIES.map((p) => [p, slaTargetsSchema])) as Record<Priority, typeof slaTargetsSchema>),
});
export type SlaPolicy = z.infer<typeof slaPolicySchema>;

export const slaPolicyEvents = {
  SlaPolicySet: slaPolicySchema.extend({ by: z.string().max(100), at: z.iso.datetime() }),
};
type Events = typeof slaPolicyEvents;
export type SlaPolicyEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

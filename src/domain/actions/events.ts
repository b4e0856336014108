import { z } from 'zod';
import { actionFields } from './definition.js';

/**
 * A company's actions. One stream per company (`actions-<companyId>`) holds them all, so the count is capped by
 * one decision; the set is small (ACTION_LIMITS.count) and edited by hand. Header values (API keys, tokens) are
 * sealed (AES-256-GCM, `v1:` envelope) before they enter an event: never in plain text, never returned.
 */

const at = z.iso.datetime();
const sealedHeader = z.object({ name: z.string().min(1).max(100), sealedValue: z.string().min(1).max(10_000) });
const by = z.string().max(100);

/** Stored fields: as edited, without defaults applied again on read (an older event keeps its meaning). */
const storedFields = actionFields.extend({ headers: z.array(sealedHeader).max(20) });

type WithoutDefaults<S extends z.ZodRawShape> = { [K in keyof S]: z.ZodOptional<S[K] extends z.ZodDefault<infer T> ? T : S[K]> };

/**
 * An update's changes: every field optional and none defaulted. `.partial()` would keep the defaults, so reading
 * `{ description }` back would also "change" the timeout, the mode's settings and the switch to their defaults.
 */
function changesOf<S extends z.ZodRawShape>(schema: z.ZodObject<S>): z.ZodObject<WithoutDefaults<S>> {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([key, field]) => [key, (field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : (field as z.ZodType)).optional()]),
  );
  return z.object(shape) as unknown as z.ZodObject<WithoutDefaults<S>>;
}

export const actionEvents = {
  ActionCreated: storedFields.extend({ actionId: z.uuid(), companyId: z.uuid(), by, at }),
  /** `changes.headers`, when present, replaces the whole list (a header left out is removed). */
  ActionUpdated: z.object({ actionId: z.uuid(), changes: changesOf(storedFields), by, at }),
  ActionDeleted: z.object({ actionId: z.uuid(), by, at }),
};
type Events = typeof actionEvents;
export type ActionEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];
export type ActionEventType = keyof Events;

export const actionsStream = (companyId: string) => `actions-${companyId}`;

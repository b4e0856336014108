import { z } from 'zod';

const ok = z.object({ ok: z.boolean() });
const readiness = ok.extend({ checks: z.record(z.string(), z.boolean()), metrics: z.record(z.string(), z.unknown()).optional() });

export const healthzSchema = { tags: ['health'], response: { 200: ok } };

export const readyzSchema = {
  tags: ['health'],
  response: {
    200: readiness,
    503: readiness,
  },
};

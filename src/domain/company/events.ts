import { z } from 'zod';

const stage = z.object({ id: z.uuid(), name: z.string().min(1).max(100), position: z.number().int().min(0) });

export const companyEvents = {
  CompanyRegistered: z.object({
    companyId: z.uuid(),
    companyKey: z.number().int().positive(),
    name: z.string().min(1).max(200),
    ownerUserId: z.uuid(),
    createdAt: z.iso.datetime(),
  }),
  PipelineCreated: z.object({ pipelineId: z.uuid(), stages: z.array(stage).min(1) }),
};
type Events = typeof companyEvents;
export type CompanyEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
export type PipelineStage = z.infer<typeof stage>;


import { z } from 'zod';
import { answerThresholdSchema, DEFAULT_ANSWER_THRESHOLD } from '../answers/evidence.js';

export const DEFAULT_AGENT_SYSTEM_PROMPT =
  'You are a helpful customer support agent. Answer politely and concisely, using the knowledge base when it is relevant. ' +
  'If you are not sure of the answer, say so rather than guessing.';
export const DEFAULT_AGENT_TEMPERATURE = 0.3;
export const DEFAULT_AGENT_HANDOFF_MESSAGE = 'Thanks for your message — a member of our team will get back to you shortly.';

export const AGENT_LIMITS = { name: 200, systemPrompt: 20_000, model: 200, handoffMessage: 2_000 } as const;
/** The longest a handed-off conversation may stay with people before a customer's message gives it back to the AI: 30 days. */
export const MAX_HAND_BACK_MINUTES = 43_200;

export const agentSettings = z.object({
  name: z.string().min(1).max(AGENT_LIMITS.name),
  systemPrompt: z.string().min(1).max(AGENT_LIMITS.systemPrompt),
  /** null: the model of the company's LLM configuration. */
  model: z.string().min(1).max(AGENT_LIMITS.model).nullable(),
  temperature: z.number().min(0).max(2),
  useKnowledgeBase: z.boolean(),
  active: z.boolean(),
  handoffMessage: z.string().min(1).max(AGENT_LIMITS.handoffMessage),
  /**
   * How much knowledge-base evidence the builtin provider needs to answer rather than hand off
   * (domain/answers/evidence.ts). Absent (agents created before the setting existed): DEFAULT_ANSWER_THRESHOLD.
   */
  answerThreshold: answerThresholdSchema.optional(),
  /**
   * A conversation handed to people (the AI handed off, or a teammate answered) goes back to the AI when the
   * customer writes at least this many minutes after the last handoff or teammate message. Absent or null: it
   * stays with people until someone resumes the AI (no handoff loops by default).
   */
  handBackAfterMinutes: z.number().int().min(1).max(MAX_HAND_BACK_MINUTES).nullable().optional(),
});
export type AgentSettings = z.infer<typeof agentSettings>;

/** What a new agent gets for every setting the client leaves out. */
export const agentDefaults: Omit<AgentSettings, 'name'> = {
  systemPrompt: DEFAULT_AGENT_SYSTEM_PROMPT,
  model: null,
  temperature: DEFAULT_AGENT_TEMPERATURE,
  useKnowledgeBase: true,
  active: true,
  handoffMessage: DEFAULT_AGENT_HANDOFF_MESSAGE,
  answerThreshold: DEFAULT_ANSWER_THRESHOLD,
};

export const agentEvents = {
  AgentCreated: agentSettings.extend({ agentId: z.uuid(), companyId: z.uuid(), at: z.iso.datetime() }),
  AgentUpdated: z.object({ changes: agentSettings.partial(), at: z.iso.datetime() }),
  AgentDeleted: z.object({ at: z.iso.datetime() }),
};
type Events = typeof agentEvents;
export type AgentEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

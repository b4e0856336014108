import { z } from 'zod';
import { ACTION_LIMITS } from '../actions/definition.js';
import { answerThresholdSchema, DEFAULT_ANSWER_THRESHOLD } from '../answers/evidence.js';
import { armShare, confidenceLevel, experimentArm, holdoutPercent } from './experiments.js';

export const DEFAULT_AGENT_SYSTEM_PROMPT =
  'You are a helpful customer support agent. Answer politely and concisely, using the knowledge base when it is relevant. ' +
  'If you are not sure of the answer, say so rather than guessing.';
export const DEFAULT_AGENT_TEMPERATURE = 0.3;
export const DEFAULT_AGENT_HANDOFF_MESSAGE = 'Thanks for your message — a member of our team will get back to you shortly.';

/** Added to a handoff outside business hours; `{{back}}` becomes when people are back (businessHours/schedule.ts). */
export const DEFAULT_AGENT_AFTER_HOURS_MESSAGE = 'Our team is away right now and will be back {{back}}.';

export const AGENT_LIMITS = { name: 200, systemPrompt: 20_000, model: 200, handoffMessage: 2_000, afterHoursMessage: 2_000, reason: 1_000 } as const;
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
   * Whether a grounded model (OpenAI-compatible provider) may answer without citing a knowledge-base passage
   * (small talk, general questions); otherwise such an answer is handed off. Absent: false.
   */
  generalAnswers: z.boolean().optional(),
  /** Absent (agents created before the setting existed): DEFAULT_AGENT_AFTER_HOURS_MESSAGE. */
  afterHoursMessage: z.string().min(1).max(AGENT_LIMITS.afterHoursMessage).optional(),
  /**
   * A conversation handed to people (the AI handed off, or a teammate answered) goes back to the AI when the
   * customer writes at least this many minutes after the last handoff or teammate message. Absent or null: it
   * stays with people until someone resumes the AI (no handoff loops by default).
   */
  handBackAfterMinutes: z.number().int().min(1).max(MAX_HAND_BACK_MINUTES).nullable().optional(),
  /**
   * The company's actions (domain/actions) this agent may call while it answers, by id. Absent or empty: it only
   * talks. The builtin provider never calls actions.
   */
  actionIds: z.array(z.uuid()).max(ACTION_LIMITS.perAgent).optional(),
});
export type AgentSettings = z.infer<typeof agentSettings>;

/**
 * The settings that are not behaviour: what the agent is called and whether it is switched on. Everything else
 * in agentSettings (and whatever it gains later) shapes the answers, so it is versioned: a setting added to
 * agentSettings is versioned without further change.
 */
export const AGENT_IDENTITY_FIELDS = ['name', 'active'] as const;
export const agentConfig = agentSettings.omit({ name: true, active: true });
/** One version's behaviour: what a published version answers customers with. */
export type AgentConfig = z.infer<typeof agentConfig>;
export const AGENT_CONFIG_FIELDS = Object.keys(agentConfig.shape) as (keyof AgentConfig)[];

/** What a new agent gets for every setting the client leaves out. */
export const agentDefaults: Omit<AgentSettings, 'name'> = {
  systemPrompt: DEFAULT_AGENT_SYSTEM_PROMPT,
  model: null,
  temperature: DEFAULT_AGENT_TEMPERATURE,
  useKnowledgeBase: true,
  active: true,
  handoffMessage: DEFAULT_AGENT_HANDOFF_MESSAGE,
  answerThreshold: DEFAULT_ANSWER_THRESHOLD,
  generalAnswers: false,
};

/** Failing cases named on a gate's refusal and recorded on an overriding publish (releaseGate.ts). */
export const RELEASE_FAILED_CASES_SHOWN = 50;
/** What a gated publish records: the check it relied on, and whether an owner overrode failing cases (and why). */
export const releaseChecksRecord = z.object({
  /** null: overridden without a check. */
  releaseCheckId: z.uuid().nullable(),
  failedCases: z.array(z.object({ caseId: z.uuid(), name: z.string().max(200) })).max(RELEASE_FAILED_CASES_SHOWN),
  overridden: z.boolean(),
  overrideReason: z.string().min(1).max(AGENT_LIMITS.reason).nullable(),
});
export type ReleaseChecksRecord = z.infer<typeof releaseChecksRecord>;

const version = z.number().int().min(1);
const at = z.iso.datetime();
/** `user:<id>`, or whoever else acted; null when not known. */
const by = z.string().max(100).nullable();

export const agentEvents = {
  /** Also version 1, published. */
  AgentCreated: agentSettings.extend({ agentId: z.uuid(), companyId: z.uuid(), at }),
  /**
   * Name or active switch. Events stored before versions existed may carry behaviour settings too: they
   * amend version 1 (an agent edited only that way has one version, its current configuration).
   */
  AgentUpdated: z.object({ changes: agentSettings.partial(), at }),
  AgentDeleted: z.object({ at }),
  /** An immutable version: its whole configuration, the version it was edited from and the fields that differ. */
  AgentVersionSaved: z.object({
    version,
    basedOn: version,
    config: agentConfig,
    changed: z.array(z.string().max(50)).max(50),
    by,
    at,
  }),
  /**
   * From now on customers are answered by `version`; it carries the configuration, so the agent's state
   * knows what answers without its history. A rollback (back to a version older than the one published)
   * says why.
   */
  AgentVersionPublished: z.object({
    version,
    previousVersion: version,
    config: agentConfig,
    rollback: z.boolean(),
    reason: z.string().min(1).max(AGENT_LIMITS.reason).nullable(),
    /**
     * The release gate's part (releaseGate.ts): the check the publish relied on, or an owner's override and
     * why. Absent: not gated (a rollback, an edit through PATCH of an agent without required cases, no required
     * case, or stored before the gate).
     */
    checks: releaseChecksRecord.optional(),
    by,
    at,
  }),
  /**
   * From now on the agent's conversations are split between two versions (each arm carries its configuration,
   * so the state knows what answers without the history), with `holdout` percent handed straight to people.
   * An arm newer than the published version, or older but never published, passed the release gate: its `checks` are what its publication
   * records if it wins.
   */
  AgentExperimentStarted: z.object({
    experimentId: z.uuid(),
    arms: z.tuple([
      z.object({ arm: z.literal('a'), version, share: armShare, config: agentConfig, checks: releaseChecksRecord.optional() }),
      z.object({ arm: z.literal('b'), version, share: armShare, config: agentConfig, checks: releaseChecksRecord.optional() }),
    ]),
    holdout: holdoutPercent,
    confidenceLevel,
    by,
    at,
  }),
  /** The experiment is over; the winner is published by the AgentVersionPublished that follows (unless it already was). */
  AgentExperimentEnded: z.object({
    experimentId: z.uuid(),
    winner: version,
    winnerArm: experimentArm,
    reason: z.string().min(1).max(AGENT_LIMITS.reason),
    by,
    at,
  }),
};
type Events = typeof agentEvents;
export type AgentEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

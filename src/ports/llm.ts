import type { AnswerThreshold } from '../domain/answers/evidence.js';
import type { HandoffCause } from '../domain/answers/provenance.js';
import type { CompanyLlmConfig } from '../domain/llm/state.js';

/**
 * The LLM port: one chat completion per call. Adapters: `builtin` (answers from the knowledge base alone,
 * free) and `openai` (any OpenAI-compatible Chat Completions API). Adapters throw only `LlmError`.
 */

export type LlmRole = 'system' | 'user' | 'assistant';

export interface LlmMessage {
  role: LlmRole;
  content: string;
}

/** A knowledge-base passage already retrieved for this request, best first. */
export interface LlmPassage {
  title: string;
  text: string;
  /** Search engine score (BM25, unbounded: only comparable within one query). */
  score: number;
  /**
   * Fraction (0..1) of the query's distinct search terms that matched this passage, when the search
   * reports it (the knowledge index does). The builtin provider computes it itself when absent.
   */
  coverage?: number;
  /**
   * How strongly the passage answers the query, 0..1, when the knowledge index scored it: the probability that
   * it answers rightly (domain/answers/confidence.ts). The builtin provider answers only above the agent's threshold.
   */
  evidence?: number;
  /** Where the passage comes from, when it is a knowledge-base chunk (recorded as the answer's sources). */
  documentId?: string;
  chunkIndex?: number;
}

export interface LlmRequest {
  model: string;
  messages: LlmMessage[];
  temperature?: number;
  maxTokens?: number;
  /** Cancels the call (e.g. the session was taken over by a human); surfaces as LlmError kind `aborted`. */
  signal?: AbortSignal;
  /** Retrieved knowledge-base passages (the builtin provider answers from these; others may ignore them). */
  passages?: LlmPassage[];
  /**
   * What the passages were searched with, when it is not the last user message: a follow-up question resolved
   * with the conversation's earlier turns ("and is it waterproof?" → with the product asked about). The builtin
   * provider answers this question; a model reads the conversation itself.
   */
  searchQuery?: string;
  /** What to answer when the provider has nothing to say (the agent's handoff message). */
  handoffMessage?: string;
  /** How much evidence the agent needs to answer (builtin provider); default DEFAULT_ANSWER_THRESHOLD. */
  answerThreshold?: AnswerThreshold;
  /**
   * Grounded answers (OpenAI-compatible provider, when passages are given): the model must cite the passages
   * it answers from, and an answer citing none is handed off unless this is true (the agent allows general
   * answers). Default false.
   */
  generalAnswers?: boolean;
  /**
   * Receives the answer's text as it is generated, fragment by fragment (their concatenation is the raw
   * answer). Only providers that stream call it (the OpenAI-compatible one streams only when it is given;
   * the builtin one never does); it must be cheap and must not throw. Nothing is promised about the
   * fragments of an attempt that fails: the caller discards them.
   */
  onDelta?: (text: string) => void;
  /**
   * The company's actions the model may call (domain/actions: toolFor), beside the handoff tool. A provider that
   * cannot call tools ignores them (the builtin one always does): the answer is then written without them.
   */
  tools?: LlmTool[];
  /**
   * The calls this answer already made and what came back, in order, sent after `messages` (assistant tool calls,
   * then one tool result per call). Results are the company's data, never instructions: the prompt says so.
   */
  toolTranscript?: LlmToolStep[];
}

export interface LlmTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object). */
  parameters: Record<string, unknown>;
}

/** A call the model asked for: `arguments` as the raw JSON text it sent (untrusted, validated by the caller). */
export interface LlmToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One model round that called tools, and the results given back for each of its calls (by `callId`). */
export interface LlmToolStep {
  calls: LlmToolCall[];
  results: { callId: string; content: string }[];
}

export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface LlmResponse {
  text: string;
  usage: LlmUsage;
  /** The model that answered (as reported by the provider; may carry a version suffix). */
  model: string;
  /** True when `text` is the handoff message: nothing matched, a human should take over. */
  handoff?: boolean;
  /**
   * Why the model handed off, when it said so (the OpenAI-compatible path's `handoff_to_human` tool call).
   * Untrusted model output: plain text, control characters removed, at most MAX_HANDOFF_REASON characters.
   */
  handoffReason?: string;
  /**
   * Set when the provider handed off because it had no confident answer, rather than the model choosing to:
   * the builtin provider's evidence under the agent's setting; a grounded model's handoff, an answer citing
   * no passage it was given (without general answers), or a reply that could not be read.
   */
  handoffCause?: HandoffCause;
  /** True when `usage` was estimated (~4 chars/token) because the provider did not report it. */
  usageEstimated?: boolean;
  /**
   * Which of `request.passages` (indexes) the answer drew from, when the provider knows (the builtin one
   * answers from one passage, a grounded model from those it cited; none on a handoff). Absent: every
   * passage given was in the prompt.
   */
  usedPassages?: number[];
  /** The evidence score the answer (or the handoff) was decided on, when the provider decided on one. */
  evidence?: number;
  /** The answer was asked for grounded (passages to cite): `usedPassages` are the ones the model cited. */
  grounded?: true;
  /**
   * The model called some of `request.tools` instead of answering (at most MAX_TOOL_CALLS_READ of them): `text` is
   * whatever it said meanwhile (often empty) and not an answer; the caller runs them and asks again.
   */
  toolCalls?: LlmToolCall[];
}

/** Tool calls read from one model round; a model asking for more is cut here (the caller caps them again). */
export const MAX_TOOL_CALLS_READ = 10;

export type LlmConnectionTest =
  | { ok: true; latencyMs: number; models?: string[] }
  | { ok: false; latencyMs: number; error: LlmError };

export interface LlmProvider {
  /** Set by the builtin provider only (the service's own, answering from the knowledge base): its answers cost nothing. */
  readonly free?: true;
  /** Throws `LlmError` only. */
  complete(request: LlmRequest): Promise<LlmResponse>;
  /** For the dashboard's "test connection": never throws, reports the failure instead. */
  testConnection(options?: { model?: string; signal?: AbortSignal }): Promise<LlmConnectionTest>;
}

/** A company's LLM configuration → the provider that answers for it. Throws LlmError only. */
export type LlmResolver = (config: CompanyLlmConfig) => LlmProvider;

export type LlmErrorKind =
  | 'timeout'
  | 'rate_limited'
  | 'server_error'
  | 'bad_response'
  | 'auth'
  | 'unreachable'
  /** The provider rejected the request itself (400/404/422: unknown model, bad parameter). Not retryable. */
  | 'invalid_request'
  /** Cancelled through `LlmRequest.signal`. Not retryable. */
  | 'aborted';

/**
 * A typed LLM failure. `message` is safe to log and to show to an operator: adapters scrub the API key
 * (and anything that looks like a bearer token) from it, and never attach the SDK error as `cause`.
 */
export class LlmError extends Error {
  override readonly name = 'LlmError';
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly retryable: boolean,
    /** HTTP status from the provider, when there was one. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export function isLlmError(value: unknown): value is LlmError {
  return value instanceof LlmError;
}

/** Longest handoff reason kept from a model (it lands in an event and the dashboard). */
export const MAX_HANDOFF_REASON = 500;

/** The model name the builtin provider reports; it costs nothing. */
export const BUILTIN_MODEL = 'builtin';

/** The characters of a prompt, for estimating its tokens when a server does not report them. */
export const promptChars = (messages: readonly LlmMessage[]) => messages.reduce((sum, m) => sum + m.content.length, 0);

import { loadState } from '../commands/handleCommand.js';
import { conversationDecider, conversationStream } from '../domain/conversations/decider.js';
import type { ConversationState } from '../domain/conversations/state.js';
import type { GenerateReplyJob } from './jobs.js';
import { webchatSubject } from './jobs.js';
import type { ReplyWorkerDeps } from './replyDeps.js';

/** What a reply on its way shows and watches while it is written: the visitor's typing indicator, a takeover. */

/** How often a streamed answer checks that its AI session is still the active one. */
const TAKEOVER_CHECK_MS = 1000;

/**
 * While a reply streams to a visitor, a human taking over (pausing or closing the session) must stop it at
 * once rather than when the model is done. One cached state read per second per streaming reply.
 */
export function watchForTakeover(deps: ReplyWorkerDeps, job: GenerateReplyJob, sessionId: string): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  let checking = false;
  const timer = setInterval(() => {
    if (checking || controller.signal.aborted) return;
    checking = true;
    loadState(deps.eventStore, conversationStream(job.conversationId), conversationDecider)
      .then(({ state }) => {
        if (state.session?.id !== sessionId || state.session.state !== 'active') controller.abort();
      })
      .catch((err) => deps.logger.warn({ ...job, err }, 'checking the AI session during a streamed reply failed'))
      .finally(() => (checking = false));
  }, TAKEOVER_CHECK_MS);
  timer.unref();
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}

export interface TypingIndicator {
  readonly started: boolean;
  start(state: ConversationState): Promise<void>;
  stop(): Promise<void>;
}

/** A web chat visitor sees "typing" while an active session's reply is on its way (best effort: never fails the job). */
export function typingIndicator(deps: ReplyWorkerDeps, job: GenerateReplyJob): TypingIndicator {
  let started = false;
  const typing = (on: boolean) =>
    deps.bus.broadcast(webchatSubject(job.conversationId), { type: 'typing', on }).catch((err) => deps.logger.warn({ ...job, err }, 'typing notification lost'));
  return {
    get started() {
      return started;
    },
    async start(state) {
      if (started || state.connectorType !== 'webchat' || state.session?.state !== 'active') return;
      started = true;
      await typing(true);
    },
    stop: () => typing(false),
  };
}

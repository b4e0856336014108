import type { Reactor } from '../reactor.js';
import { creditChargesReactor, playgroundChargesReactor } from './charges.js';
import { customerProfilesReactor } from './customerProfiles.js';
import { handoffSummaryJobsReactor } from './handoffSummaries.js';
import { assignmentNotificationsReactor } from './notifications.js';
import { outboundJobsReactor, replyJobsReactor } from './jobs.js';
import { replayCancelsReactor, replayJobsReactor } from './replays.js';

/**
 * Every reactor: stored events turned into effects, each at least once from its own checkpoint.
 *   MessageReceived ──reply-jobs──▶ GENERATE_REPLY (reply worker ──▶ AgentReplied)
 *   AgentReplied / OperatorMessageSent ──outbound-jobs──▶ SEND_MESSAGE (send worker ──▶ MessageDelivered | failed)
 *   AgentReplied ──credit-charges──▶ ConsumeCredits;  PlaygroundAnswered ──playground-charges──▶ ConsumeCredits
 *   ReplayRequested ──replay-jobs──▶ RUN_REPLAY (replay worker);  ReplayCancelled ──replay-cancels──▶ REPLAY_CANCELLED
 *   ConversationStarted / MessageReceived ──customer-profiles──▶ UpdateCustomerFromChannel
 *   a handoff (AgentReplied handoff, AiSessionPaused handoff, HumanRequested, DialogTransferred)
 *     ──handoff-summary-jobs──▶ SUMMARIZE_HANDOFF (summary worker ──▶ HandoffSummarized)
 *   ConversationAssigned ──assignment-notifications──▶ NOTIFY_ASSIGNED (notification worker ──▶ an email)
 */
export const allReactors: readonly Reactor[] = [
  replyJobsReactor,
  outboundJobsReactor,
  creditChargesReactor,
  playgroundChargesReactor,
  replayJobsReactor,
  replayCancelsReactor,
  customerProfilesReactor,
  handoffSummaryJobsReactor,
  assignmentNotificationsReactor,
];

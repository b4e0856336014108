import type { Reactor } from './reactor.js';
import { creditChargesReactor, playgroundChargesReactor } from '../workers/commandReactors/charges.js';
import { autoAssignmentReactor } from '../workers/commandReactors/autoAssignment.js';
import { teamRoutingReactor } from '../workers/commandReactors/teamRouting.js';
import { customerProfilesReactor } from '../workers/commandReactors/customerProfiles.js';
import { csatReactor } from '../workers/commandReactors/csat.js';
import { handoffSummaryJobsReactor } from '../workers/handoffSummaries/handoffSummaryReactor.js';
import { assignmentNotificationsReactor } from '../workers/notifications/notificationReactor.js';
import { outboundJobsReactor, replyJobsReactor } from '../workers/replies/replyReactors.js';
import { replayCancelsReactor, replayJobsReactor } from '../workers/replays/replayReactors.js';
import { agentTestRunsReactor } from '../workers/replays/agentTestRunReactor.js';
import { actionResumeJobsReactor } from '../workers/actionResumes/actionResumeReactor.js';
import { visitorVerifiedNoticesReactor } from '../workers/replies/webchatIdentityReactor.js';

/**
 * Every reactor: stored events turned into effects, each at least once from its own checkpoint.
 *   MessageReceived ──reply-jobs──▶ GENERATE_REPLY (reply worker ──▶ AgentReplied)
 *   AgentReplied / OperatorMessageSent ──outbound-jobs──▶ SEND_MESSAGE (send worker ──▶ MessageDelivered | failed)
 *   AgentReplied ──credit-charges──▶ ConsumeCredits;  PlaygroundAnswered ──playground-charges──▶ ConsumeCredits
 *   ReplayRequested ──replay-jobs──▶ RUN_REPLAY (replay worker);  ReplayCancelled ──replay-cancels──▶ REPLAY_CANCELLED
 *   AgentTestRunStarted ──agent-test-runs──▶ RUN_AGENT_TESTS (replay worker, in the replay slots)
 *   ConversationStarted / MessageReceived ──customer-profiles──▶ UpdateCustomerFromChannel
 *   handoff / unassign / close / availability / settings / joined ──auto-assignment──▶ AssignConversation (reason auto)
 *   AiSessionClosed ──csat-requests──▶ RequestCsat (CsatRequested on the platform ──outbound-jobs──▶ SEND_MESSAGE)
 *   a handoff (AgentReplied handoff, AiSessionPaused handoff, HumanRequested, DialogTransferred)
 *     ──handoff-summary-jobs──▶ SUMMARIZE_HANDOFF (summary worker ──▶ HandoffSummarized)
 *   ConversationAssigned ──assignment-notifications──▶ NOTIFY_ASSIGNED (notification worker ──▶ an email)
 *   ActionCallApproved / ActionCallRefused ──action-resume-jobs──▶ RESUME_ACTION (action-resume worker ──▶ the call, AgentReplied)
 *   CustomerIdentityVerified ──visitor-verified-notices──▶ webchat.<conversationId> (sockets of anyone else cut)
 */
export const allReactors: readonly Reactor[] = [
  replyJobsReactor,
  outboundJobsReactor,
  creditChargesReactor,
  playgroundChargesReactor,
  replayJobsReactor,
  replayCancelsReactor,
  agentTestRunsReactor,
  customerProfilesReactor,
  teamRoutingReactor,
  autoAssignmentReactor,
  csatReactor,
  handoffSummaryJobsReactor,
  assignmentNotificationsReactor,
  actionResumeJobsReactor,
  visitorVerifiedNoticesReactor,
];

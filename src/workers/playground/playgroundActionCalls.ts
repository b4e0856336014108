import { handleCommand } from '../../commands/handleCommand.js';
import type { CommandDeps } from '../../commands/deps.js';
import { redactArguments } from '../../domain/actions/definition.js';
import { playgroundActionCallDecider, playgroundActionCallStream, type PlaygroundActionCallCommand } from '../../domain/playground/actionCalls/decider.js';
import { resultText, type ActionExecutor } from '../answers/actionLoop.js';

/**
 * A live playground session's calls reach the company's endpoints, so they belong in the action log like a
 * customer's: each is recorded on its own stream (playgroundcall-<callId>) before the HTTP call and after it.
 * Nothing is written on a conversation; the action-calls read model lists them marked with their session.
 */
export function recordedPlaygroundExecutor(
  deps: Pick<CommandDeps, 'eventStore' | 'clock'>,
  where: { companyId: string; userId: string; sessionId: string; answerId: string },
  executor: ActionExecutor,
): ActionExecutor {
  const metadata = { companyId: where.companyId, actor: `user:${where.userId}` };
  const run = (callId: string, command: PlaygroundActionCallCommand) =>
    handleCommand(deps.eventStore, playgroundActionCallStream(callId), playgroundActionCallDecider, command, { metadata });
  const now = () => deps.clock.now().toISOString();
  return async (action, args, callId) => {
    await run(callId, {
      type: 'StartPlaygroundActionCall',
      callId,
      companyId: where.companyId,
      sessionId: where.sessionId,
      answerId: where.answerId,
      actionId: action.actionId,
      actionName: action.name,
      mode: action.mode,
      arguments: redactArguments(action, args),
      by: `user:${where.userId}`,
      now: now(),
    });
    const result = await executor(action, args, callId);
    const { status, durationMs } = result;
    const outcome = result.ok ? { ok: true, response: resultText(action, result), error: null } : { ok: false, response: null, error: result.error };
    await run(callId, { type: 'FinishPlaygroundActionCall', callId, status, durationMs, ...outcome, now: now() });
    return result;
  };
}

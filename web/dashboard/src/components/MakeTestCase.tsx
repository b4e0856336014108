import { caseFromConversation } from '../api/agentVersions.js';
import type { Message } from '../api/types.js';
import { navigate } from '../lib/router.js';
import { Button, InlineError } from './ui.js';
import { useSubmit } from './useSubmit.js';

/**
 * "Make a test case" for a conversation an agent answered: its customer turns become a case of that agent (the
 * answer a person gave, or the AI's accepted one, as the reference), and the agent's Tests tab opens on it.
 * Every role may (the API's rule); nothing shows where no agent answered.
 */
export function MakeTestCase({ conversationId, messages }: { conversationId: string; messages: Message[] }) {
  const agentId = [...messages].reverse().find((m) => m.author === 'agent' && m.agentId)?.agentId;
  const make = useSubmit();
  if (!agentId) return null;
  const onClick = () =>
    void make.run(
      async () => {
        const testCase = await caseFromConversation(agentId, conversationId);
        navigate(`/agents/${agentId}/tests?case=${encodeURIComponent(testCase.id)}`);
      },
      { leaves: true },
    );
  return (
    <>
      <Button onClick={onClick} busy={make.busy} data-testid="make-test-case" title="Make a test case of the agent from this conversation">
        Make a test case
      </Button>
      <InlineError error={make.error} />
    </>
  );
}

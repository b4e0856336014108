import { useEffect, useId, useState, type FormEvent } from 'react';
import { ApiError, describeError } from '../api/client.js';
import { TEST_MESSAGE_MAX_LENGTH, latestDocumentTitle, sendTestMessage } from '../api/endpoints.js';
import type { Integration } from '../api/types.js';
import { exampleQuestion } from '../lib/exampleQuestion.js';
import { navigate } from '../lib/router.js';
import { useToast } from './Toasts.js';
import { Badge, Button } from './ui.js';

/** Shown on an msgplatform integration without a platform API URL: its replies go nowhere, by design. */
export function SandboxBadge({ integration }: { integration: Integration }) {
  if (!integration.sandbox) return null;
  return (
    <Badge tone="warning" data-testid="sandbox-badge" title="Without a platform API URL, the agent's replies are recorded as delivered to the sandbox and not sent to any messenger. Set the API URL to go live.">
      Sandbox — replies are not sent anywhere
    </Badge>
  );
}

/** One request for every card of the page: the newest document's title, kept for half a minute. */
let exampleCache: { at: number; question: Promise<string | null> } | null = null;
function loadExample(): Promise<string | null> {
  if (!exampleCache || Date.now() - exampleCache.at > 30_000) {
    exampleCache = { at: Date.now(), question: latestDocumentTitle().then(exampleQuestion, () => null) };
  }
  return exampleCache.question;
}

function useExampleQuestion(): string | null {
  const [example, setExample] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void loadExample().then((question) => live && setExample(question));
    return () => {
      live = false;
    };
  }, []);
  return example;
}

/**
 * "Send a test message": the server signs it with the integration's webhook secret and posts it to the
 * integration's own webhook, exactly as the platform would; then the conversation opens, where the answer appears.
 * The box starts empty with an example drawn from the knowledge base (sent as is when the box stays empty), and
 * every send is a new test customer, so one test handed off to a human never leaves the next unanswered.
 */
export function TestMessageForm({ integration }: { integration: Integration }) {
  const toast = useToast();
  const [text, setText] = useState('');
  const example = useExampleQuestion();
  const toSend = text.trim() || example || '';
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSending(true);
    setError(null);
    try {
      const { conversationId } = await sendTestMessage(integration.id, toSend);
      navigate(`/conversations/${conversationId}`);
    } catch (caught) {
      const message =
        caught instanceof ApiError && caught.code === 'WEBHOOK_SECRET_NOT_CONFIGURED'
          ? 'Set a webhook secret on this integration first (Edit): the test message is signed with it.'
          : describeError(caught);
      setError(message);
      toast.error(message);
    } finally {
      setSending(false);
    }
  }

  return (
    <form className="test-message" onSubmit={submit} data-testid="test-message-form">
      <label className="copy-label" htmlFor={inputId}>
        Test message
      </label>
      <div className="test-message-row">
        <input
          id={inputId}
          className="input"
          value={text}
          maxLength={TEST_MESSAGE_MAX_LENGTH}
          placeholder={example ?? 'A question your knowledge base answers'}
          onChange={(event) => setText(event.target.value)}
          data-testid="test-message-input"
        />
        <Button type="submit" size="sm" variant="primary" busy={sending} disabled={toSend === ''}>
          Send a test message
        </Button>
      </div>
      <p className="small muted">
        Sent as a new test customer through this integration’s webhook; the conversation opens with the agent’s answer.
        {example && ' Left empty, the example from your knowledge base is sent.'}
      </p>
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

import { useId, useState, type FormEvent } from 'react';
import { ApiError, describeError } from '../api/client.js';
import { sendTestMessage } from '../api/endpoints.js';
import type { Integration } from '../api/types.js';
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

const DEFAULT_TEXT = 'Hi! What can you tell me about your service?';

/**
 * "Send a test message": the server signs it with the integration's webhook secret and posts it to the
 * integration's own webhook, exactly as the platform would; then the conversation opens, where the answer appears.
 */
export function TestMessageForm({ integration }: { integration: Integration }) {
  const toast = useToast();
  const [text, setText] = useState(DEFAULT_TEXT);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSending(true);
    setError(null);
    try {
      const { conversationId } = await sendTestMessage(integration.id, text.trim());
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
        <input id={inputId} className="input" value={text} maxLength={4000} onChange={(event) => setText(event.target.value)} />
        <Button type="submit" size="sm" variant="primary" busy={sending} disabled={text.trim() === ''}>
          Send a test message
        </Button>
      </div>
      <p className="small muted">Sent as a customer through this integration’s webhook; the conversation opens with the agent’s answer.</p>
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

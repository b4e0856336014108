import { useState } from 'react';
import { listAgents, listConversations, listDocuments, listIntegrations } from '../api/endpoints.js';
import { useAuth } from '../auth.js';
import { Link } from '../lib/router.js';
import { useAsync } from '../lib/useAsync.js';
import { Button } from './ui.js';
import './onboarding.css';

/**
 * The README's quick start as a checklist on the home page (Conversations), each step ticked from what the
 * company really has (its documents, agents, integrations, conversations), not from clicks: a step done through
 * the API or by a teammate is ticked too. Hidden once every step is done or when dismissed (per company, in this
 * browser: it is a guide, not a setting).
 */
interface Step {
  id: 'knowledge' | 'agent' | 'integration' | 'test-message' | 'go-live';
  title: string;
  detail: string;
  to: string;
  action: string;
  done: boolean;
}

const dismissedKey = (companyId: string | number) => `mas-onboarding-dismissed:${companyId}`;

function readDismissed(companyId: string | number): boolean {
  try {
    return localStorage.getItem(dismissedKey(companyId)) === '1';
  } catch {
    return false;
  }
}

export function OnboardingChecklist() {
  const { me } = useAuth();
  const companyId = me?.company.id;
  // Read on every render: the company is known only once /api/auth/me answered, after the first one.
  const [dismissedNow, setDismissed] = useState(false);
  const dismissed = dismissedNow || (companyId !== undefined && readDismissed(companyId));
  const state = useAsync(
    async (signal) => {
      if (!companyId || dismissed) return null;
      const [documents, agents, integrations, conversations] = await Promise.all([
        listDocuments({ signal }),
        listAgents({ signal }),
        listIntegrations({ signal }),
        listConversations({}, null, 1, { signal }),
      ]);
      return { documents: documents.length, agents: agents.length, integrations, conversations: conversations.items.length };
    },
    [companyId, dismissed],
  );
  if (!companyId || dismissed || !state.data) return null;
  const { documents, agents, integrations, conversations } = state.data;
  // Live: a channel real customers can reach (a platform with its API URL and registered webhook, or a web chat
  // allowed on a site), as opposed to the sandbox the quick start tests with.
  const live = integrations.some((i) => i.active && (i.connectorType === 'webchat' ? i.allowedOrigins.length > 0 : !i.sandbox && i.webhookRegistered));
  const steps: Step[] = [
    { id: 'knowledge', title: 'Add to the knowledge base', detail: 'A document the agent answers from.', to: '/knowledge-base', action: 'Add a document', done: documents > 0 },
    { id: 'agent', title: 'Create an agent', detail: 'It answers from the knowledge base.', to: '/agents/new', action: 'New agent', done: agents > 0 },
    { id: 'integration', title: 'Create an integration', detail: 'Without a platform API URL it is a sandbox: nothing leaves.', to: '/integrations/new', action: 'New integration', done: integrations.length > 0 },
    { id: 'test-message', title: 'Send a test message', detail: 'From the integration’s card; the answer shows here.', to: '/integrations', action: 'Open integrations', done: conversations > 0 },
    { id: 'go-live', title: 'Go live', detail: 'Set the platform API URL and register the webhook, or embed the web chat on your site.', to: '/integrations', action: 'Connect a channel', done: live },
  ];
  const doneCount = steps.filter((s) => s.done).length;
  if (doneCount === steps.length) return null;
  const dismiss = () => {
    try {
      localStorage.setItem(dismissedKey(companyId), '1');
    } catch {
      /* storage off: hidden for this page view only */
    }
    setDismissed(true);
  };
  return (
    <section className="card onboarding" aria-labelledby="onboarding-title" data-testid="onboarding">
      <div className="onboarding-head">
        <h2 id="onboarding-title" className="section-title">
          Get started <span className="muted small">· {doneCount} of {steps.length} done</span>
        </h2>
        <Button variant="ghost" size="sm" onClick={dismiss} data-testid="onboarding-dismiss">
          Dismiss
        </Button>
      </div>
      <ol className="onboarding-steps">
        {steps.map((s) => (
          <li key={s.id} className={s.done ? 'done' : ''} data-testid={`onboarding-${s.id}`} data-done={s.done ? 'true' : 'false'}>
            <span className="onboarding-mark" aria-hidden="true">
              {s.done ? '✓' : ''}
            </span>
            <span className="onboarding-text">
              <strong>{s.title}</strong>
              <span className="visually-hidden">{s.done ? ' (done)' : ' (to do)'}</span>
              <span className="muted small"> {s.detail}</span>
            </span>
            {!s.done && (
              <Link to={s.to} className="onboarding-link">
                {s.action}
              </Link>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

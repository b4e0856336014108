import { useState, type FormEvent } from 'react';
import { HAND_BACK_MAX_MINUTES, createAgent, deleteAgent, getAgent, getAnswerTrade, listAgents, updateAgent } from '../api/endpoints.js';
import { answerTradeSentence } from '../lib/answerTrade.js';
import type { Agent, AgentInput, AnswerThreshold } from '../api/types.js';
import { saveDraft, type AgentConfig } from '../api/agentVersions.js';
import { ApiError } from '../api/client.js';
import { useToast } from '../components/Toasts.js';
import { Badge, Button, ConfirmDialog, EmptyState, ErrorState, InlineError, PageHeader, SelectField, Skeleton, Switch, TextAreaField, TextField } from '../components/ui.js';
import { useConfirmedDelete, type ConfirmedDelete } from '../components/useConfirmedDelete.js';
import { useSubmit } from '../components/useSubmit.js';
import { Link, navigate } from '../lib/router.js';
import { useAsync } from '../lib/useAsync.js';
import { useAuth } from '../auth.js';
import { AgentExperimentTab } from './AgentExperiment.js';
import { listAllActions, type Action } from '../api/actions.js';
import { AgentReleaseTab } from './AgentRelease.js';
import { AgentTestsTab } from './AgentTests.js';
import { AgentVersionsTab } from './AgentVersions.js';

export function AgentsPage() {
  const toast = useToast();
  // Agents (the role) read agents and try them; owners and admins change what answers customers.
  const role = useAuth().me?.user.role;
  const manager = role === 'owner' || role === 'admin';
  const agents = useAsync((signal) => listAgents({ signal }), []);
  const deletion = useConfirmedDelete(async (agent: Agent) => {
    await deleteAgent(agent.id);
    agents.setData((list) => list?.filter((a) => a.id !== agent.id));
    toast.success(`Agent “${agent.name}” deleted`);
  });

  return (
    <>
      <PageHeader
        title="Agents"
        description="AI agents answer your customers. Attach an agent to an integration to put it to work."
        actions={
          manager ? (
            <Button variant="primary" onClick={() => navigate('/agents/new')}>
              New agent
            </Button>
          ) : undefined
        }
      />
      {agents.loading && !agents.data ? (
        <div className="card">
          <Skeleton rows={4} />
        </div>
      ) : agents.error && !agents.data ? (
        <ErrorState error={agents.error} onRetry={agents.reload} title="Could not load the agents" />
      ) : agents.data && agents.data.length === 0 ? (
        <EmptyState title="No agents yet — create one, then attach it to an integration">
          Click <strong>New agent</strong> to write its instructions. Without an agent, an integration receives messages but nobody answers.
        </EmptyState>
      ) : (
        <div className="card-grid">
          {agents.data?.map((agent) => (
            <article key={agent.id} className="card agent-card" data-testid={`agent-card-${agent.id}`}>
              <div className="card-head">
                <div className="card-title-block">
                  <h2 className="card-title">{agent.name}</h2>
                  <div className="card-meta">
                    <Badge tone={agent.active ? 'success' : 'neutral'}>{agent.active ? 'Active' : 'Inactive'}</Badge>
                    {agent.useKnowledgeBase && <Badge tone="info">Knowledge base</Badge>}
                  </div>
                </div>
              </div>
              <dl className="kv">
                <dt>Model</dt>
                <dd>{agent.model ? <code className="code-inline">{agent.model}</code> : <span className="muted">Company default</span>}</dd>
                <dt>Temperature</dt>
                <dd>{agent.temperature ?? <span className="muted">Default</span>}</dd>
              </dl>
              {agent.systemPrompt && <p className="prompt-preview">{agent.systemPrompt}</p>}
              <div className="card-foot">
                <Link to={`/agents/${encodeURIComponent(agent.id)}`} className="btn btn-secondary btn-sm">
                  {manager ? 'Edit' : 'View'}
                </Link>
                <Link to={`/agents/${encodeURIComponent(agent.id)}/playground`} className="btn btn-secondary btn-sm" data-testid="agent-try-it">
                  Try it
                </Link>
                {manager && (
                  <Button size="sm" variant="ghost" className="danger-text" onClick={() => deletion.ask(agent)}>
                    Delete
                  </Button>
                )}
              </div>
            </article>
          ))}
        </div>
      )}
      <DeleteAgentDialog deletion={deletion} />
    </>
  );
}

export type AgentTab = 'settings' | 'versions' | 'tests' | 'release' | 'experiment';

/**
 * Saves the form as PATCH does, unless the team relies on the release gate (a required test case: 409
 * RELEASE_CHECKS_REQUIRED): then the name and switch change in place, the behaviour becomes a draft, and the
 * Release tab is where it goes live. The draft's version when it went that way, else null.
 */
async function savedThroughGate(agent: Agent, input: AgentInput): Promise<number | null> {
  try {
    await updateAgent(agent.id, input);
    return null;
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'RELEASE_CHECKS_REQUIRED') throw err;
  }
  const { name, active, ...behaviour } = input;
  if (name !== agent.name || active !== agent.active) await updateAgent(agent.id, { name, active });
  return (await saveDraft(agent.id, behaviour as Partial<AgentConfig>)).version;
}

export function AgentFormPage({ id, tab = 'settings' }: { id: string | null; tab?: AgentTab }) {
  const existing = useAsync((signal) => (id === null ? Promise.resolve(null) : getAgent(id, { signal })), [id, tab]);
  const role = useAuth().me?.user.role;
  const readOnly = role !== undefined && role !== 'owner' && role !== 'admin';
  if (readOnly && id === null) {
    return (
      <EmptyState title="Not available for your role">
        Owners and admins create agents. <Link to="/agents">Back to agents</Link>.
      </EmptyState>
    );
  }
  return (
    <>
      <PageHeader
        title={id === null ? 'New agent' : readOnly ? 'Agent' : 'Edit agent'}
        description={
          <Link to="/agents" className="back-link">
            ← All agents
          </Link>
        }
      />
      {id !== null && <AgentTabs id={id} tab={tab} />}
      {id !== null && tab === 'versions' ? (
        <AgentVersionsTab agentId={id} />
      ) : id !== null && tab === 'tests' ? (
        <AgentTestsTab agentId={id} />
      ) : id !== null && tab === 'experiment' ? (
        <AgentExperimentTab agentId={id} />
      ) : id !== null && tab === 'release' ? (
        <AgentReleaseTab agentId={id} />
      ) : existing.loading && existing.data === undefined ? (
        <div className="card">
          <Skeleton rows={6} />
        </div>
      ) : existing.error ? (
        <ErrorState error={existing.error} onRetry={existing.reload} title="Could not load the agent" />
      ) : (
        <AgentForm key={existing.data?.id ?? 'new'} agent={existing.data ?? null} />
      )}
    </>
  );
}

function AgentForm({ agent }: { agent: Agent | null }) {
  const toast = useToast();
  // The agent role reads an agent (and tries it) but cannot change it: said before anyone types, as Settings does.
  const role = useAuth().me?.user.role;
  const readOnly = role !== undefined && role !== 'owner' && role !== 'admin';
  const [name, setName] = useState(agent?.name ?? '');
  const [systemPrompt, setSystemPrompt] = useState(agent?.systemPrompt ?? '');
  const [model, setModel] = useState(agent?.model ?? '');
  const [temperature, setTemperature] = useState(agent?.temperature === null || agent?.temperature === undefined ? '' : String(agent.temperature));
  const [useKnowledgeBase, setUseKnowledgeBase] = useState(agent?.useKnowledgeBase ?? true);
  const [active, setActive] = useState(agent?.active ?? true);
  const [handoffMessage, setHandoffMessage] = useState(agent?.handoffMessage ?? '');
  const [answerThreshold, setAnswerThreshold] = useState<AnswerThreshold>(agent?.answerThreshold ?? 'balanced');
  // Measured on the company's own documents; the form works without it (an older server, or not fitted yet).
  const trade = useAsync((signal) => getAnswerTrade({ signal }).catch(() => undefined), []);
  const tradeSentence = answerTradeSentence(trade.data, answerThreshold);
  const [generalAnswers, setGeneralAnswers] = useState(agent?.generalAnswers ?? false);
  const [afterHoursMessage, setAfterHoursMessage] = useState(agent?.afterHoursMessage ?? '');
  const [handBack, setHandBack] = useState(agent?.handBackAfterMinutes ? String(agent.handBackAfterMinutes) : '');
  const [actionIds, setActionIds] = useState<string[]>(agent?.actionIds ?? []);
  const actions = useAsync((signal) => listAllActions({ signal }), []);
  const save = useSubmit();
  const deletion = useConfirmedDelete(async (agent: Agent) => {
    await deleteAgent(agent.id);
    toast.success(`Agent “${agent.name}” deleted`);
    navigate('/agents');
  });

  const handBackValue = handBack.trim() === '' ? null : Number(handBack);
  const handBackError = handBackValue !== null && (!Number.isInteger(handBackValue) || handBackValue < 1 || handBackValue > HAND_BACK_MAX_MINUTES) ? `Use whole minutes from 1 to ${HAND_BACK_MAX_MINUTES} (30 days), or leave blank` : null;
  const temperatureValue = temperature.trim() === '' ? undefined : Number(temperature);
  const temperatureError =
    temperatureValue !== undefined && (!Number.isFinite(temperatureValue) || temperatureValue < 0 || temperatureValue > 2) ? 'Use a number from 0 to 2' : null;

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (temperatureError || handBackError) return;
    const input: AgentInput = { name: name.trim(), useKnowledgeBase, active, answerThreshold, generalAnswers };
    if (handBackValue !== null || agent?.handBackAfterMinutes) input.handBackAfterMinutes = handBackValue;
    // Optional texts: send what is filled in; on edit also send empties so a field can be cleared.
    if (systemPrompt.trim() || agent?.systemPrompt) input.systemPrompt = systemPrompt;
    if (model.trim() || agent?.model) input.model = model.trim();
    if (temperatureValue !== undefined) input.temperature = temperatureValue;
    if (handoffMessage.trim() || agent?.handoffMessage) input.handoffMessage = handoffMessage;
    if (afterHoursMessage.trim()) input.afterHoursMessage = afterHoursMessage;
    // An action deleted since it was picked is left out: the API accepts only the company's live actions.
    const liveIds = actions.data ? actionIds.filter((id) => actions.data!.some((a) => a.id === id)) : actionIds;
    if (liveIds.length > 0 || agent?.actionIds?.length) input.actionIds = liveIds;
    void save.run(
      async () => {
        if (agent) {
          const draft = await savedThroughGate(agent, input);
          if (draft !== null) {
            toast.success(`Saved as draft version ${draft}: check it and publish it to put it live`);
            return navigate(`/agents/${agent.id}/release`);
          }
          toast.success('Agent saved');
        } else {
          const created = await createAgent(input);
          toast.success(`Agent “${created.name}” created`);
        }
        navigate('/agents');
      },
      { leaves: true },
    );
  }

  return (
    <form className="card form form-card" onSubmit={onSubmit} aria-readonly={readOnly || undefined}>
      {readOnly && (
        <p className="notice" data-testid="agent-read-only">
          <strong>Read only for your role.</strong> Owners and admins change and delete agents; you can read this one and try it in the playground.
        </p>
      )}
      {/* A disabled fieldset disables every field in it, however deep. */}
      <fieldset className="plain-fieldset" disabled={readOnly}>
        <TextField label="Name" required maxLength={200} value={name} onValueChange={setName} placeholder="e.g. Sales assistant" />
        <TextAreaField
          label="System prompt"
          rows={8}
          value={systemPrompt}
          onValueChange={setSystemPrompt}
          placeholder="You are a friendly sales assistant for Acme. Answer briefly and suggest the right product…"
          hint="Instructions the AI follows in every reply."
        />
        <div className="form-row">
          <TextField
            label="Model"
            value={model}
            onValueChange={setModel}
            placeholder="e.g. gpt-4o-mini"
            hint="Leave blank to use the model from LLM settings."
          />
          <TextField
            label="Temperature"
            type="number"
            inputMode="decimal"
            min={0}
            max={2}
            step={0.1}
            value={temperature}
            onValueChange={setTemperature}
            error={temperatureError}
            hint="0 = focused, 2 = creative. Blank = default."
          />
        </div>
        <TextAreaField
          label="Handoff message"
          rows={2}
          value={handoffMessage}
          onValueChange={setHandoffMessage}
          placeholder="Let me connect you with a colleague who can help."
          hint="Sent when the agent cannot answer and hands the conversation to a human."
        />
        <TextAreaField
          label="After-hours message"
          rows={2}
          value={afterHoursMessage}
          onValueChange={setAfterHoursMessage}
          placeholder="Our team is away right now and will be back {{back}}."
          hint="Added to a handoff outside business hours (Settings). {{back}} becomes when your team is back, e.g. “Monday 12 January at 09:00 (Europe/Berlin)”."
          data-testid="agent-after-hours-message"
        />
        <TextField
          label="Give back to the AI after (minutes)"
          type="number"
          inputMode="numeric"
          min={1}
          max={HAND_BACK_MAX_MINUTES}
          value={handBack}
          onValueChange={setHandBack}
          error={handBackError}
          placeholder="Never"
          hint="After a handoff, the conversation stays with your team. Set minutes to let the AI answer again when the customer writes that long after the handoff or your team's last message. Blank: only when someone resumes the AI."
        />
        <Switch label="Use the knowledge base" checked={useKnowledgeBase} onChange={setUseKnowledgeBase} hint="Ground replies in your documents." />
        <SelectField
          label="When to answer"
          value={answerThreshold}
          onValueChange={(value) => setAnswerThreshold(value as AnswerThreshold)}
          hint={`How sure the built-in agent must be that your knowledge base answers a question before it replies; otherwise it hands off with the handoff message.${tradeSentence ? ` ${tradeSentence}` : ''}`}
        >
          <option value="strict">Strict: hands off more, fewest wrong answers</option>
          <option value="balanced">Balanced (default)</option>
          <option value="lenient">Lenient: answers more, more wrong answers</option>
        </SelectField>
        <Switch
          label="Allow general answers"
          checked={generalAnswers}
          onChange={setGeneralAnswers}
          hint="With your own model: answer without citing a knowledge-base passage (greetings, general questions). Off: such answers are handed off, so the model never answers about your company from its own knowledge."
        />
        <ActionPicker actions={actions} selected={actionIds} onChange={setActionIds} />
        <Switch label="Active" checked={active} onChange={setActive} hint="Inactive agents do not answer." />
      </fieldset>
      <InlineError error={save.error} />
      <div className="form-actions">
        {agent && !readOnly && (
          <Button variant="danger" className="push-left" onClick={() => deletion.ask(agent)}>
            Delete
          </Button>
        )}
        <Link to="/agents" className="btn btn-ghost">
          {readOnly ? 'Back to agents' : 'Cancel'}
        </Link>
        {!readOnly && (
          <Button type="submit" variant="primary" busy={save.busy}>
            Save
          </Button>
        )}
      </div>
      <DeleteAgentDialog deletion={deletion} />
    </form>
  );
}

/** The company's actions this agent may call, in the order picked. */
function ActionPicker({
  actions,
  selected,
  onChange,
}: {
  actions: { data: Action[] | null | undefined; loading: boolean; error: unknown; reload: () => void };
  selected: string[];
  onChange: (ids: string[]) => void;
}) {
  const byId = new Map<string, Action>((actions.data ?? []).map((a) => [a.id, a]));
  return (
    <fieldset className="fieldset" data-testid="agent-actions">
      <legend>Actions</legend>
      <p className="field-hint" data-testid="agent-actions-builtin-note">
        The built-in provider never calls actions: the agent calls them only with your own model (LLM settings).{' '}
        <Link to="/actions">Manage actions</Link>
      </p>
      {actions.loading && !actions.data ? (
        <Skeleton rows={2} label="Loading actions…" />
      ) : actions.error && !actions.data ? (
        <ErrorState error={actions.error} onRetry={actions.reload} title="Could not load the actions" />
      ) : actions.data && actions.data.length === 0 ? (
        <p className="muted">No actions defined yet.</p>
      ) : (
        actions.data?.map((action) => (
          <Switch
            key={action.id}
            label={`${action.name}${action.active ? '' : ' (off)'}`}
            checked={selected.includes(action.id)}
            onChange={(on) => onChange(on ? [...selected, action.id] : selected.filter((id) => id !== action.id))}
            hint={action.description}
          />
        ))
      )}
      {selected.some((id) => actions.data && !byId.has(id)) && <p className="field-hint">Deleted actions are left out when you save.</p>}
    </fieldset>
  );
}

/** Settings (the live agent), Versions (history, diff, publish, rollback), Tests (cases, runs), Release (the gate) and Experiment (arms, live metrics, end): one page, tabs in the URL. */
function AgentTabs({ id, tab }: { id: string; tab: AgentTab }) {
  const path = `/agents/${encodeURIComponent(id)}`;
  return (
    <nav className="tabs agent-tabs" aria-label="Agent views">
      <Link to={path} className="tab" aria-current={tab === 'settings' ? 'page' : undefined}>
        Settings
      </Link>
      <Link to={`${path}/versions`} className="tab" aria-current={tab === 'versions' ? 'page' : undefined} data-testid="agent-versions-tab">
        Versions
      </Link>
      <Link to={`${path}/tests`} className="tab" aria-current={tab === 'tests' ? 'page' : undefined} data-testid="agent-tests-tab">
        Tests
      </Link>
      <Link to={`${path}/release`} className="tab" aria-current={tab === 'release' ? 'page' : undefined} data-testid="agent-release-tab">
        Release
      </Link>
      <Link to={`${path}/experiment`} className="tab" aria-current={tab === 'experiment' ? 'page' : undefined} data-testid="agent-experiment-tab">
        Experiment
      </Link>
    </nav>
  );
}

/** The same question from the list and from the form. */
function DeleteAgentDialog({ deletion }: { deletion: ConfirmedDelete<Agent> }) {
  return (
    <ConfirmDialog
      {...deletion.dialog}
      title="Delete this agent?"
      message={<p>“{deletion.target?.name}” will stop answering. Integrations using it will have no agent until you choose another.</p>}
      confirmLabel="Delete"
    />
  );
}

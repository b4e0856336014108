import { useState, type FormEvent } from 'react';
import {
  createAction,
  deleteAction,
  getAction,
  IDENTITY_SOURCES,
  listAllActions,
  testAction,
  updateAction,
  type Action,
  type ActionInput,
  type ActionMethod,
  type ActionMode,
  type ActionParameter,
  type ActionTest,
  type IdentitySource,
  type ParameterType,
  type TeamRole,
} from '../api/actions.js';
import { useAuth } from '../auth.js';
import { CardSection } from '../components/CardSection.js';
import { DataTable } from '../components/DataTable.js';
import { useToast } from '../components/Toasts.js';
import { Badge, Button, ConfirmDialog, EmptyState, ErrorState, InlineError, ListState, PageHeader, SelectField, Skeleton, Switch, TextAreaField, TextField } from '../components/ui.js';
import { useConfirmedDelete } from '../components/useConfirmedDelete.js';
import { useSubmit } from '../components/useSubmit.js';
import { Link, navigate } from '../lib/router.js';
import { useAsync } from '../lib/useAsync.js';
import './actions.css';

const MODE_LABELS: Record<ActionMode, string> = {
  auto: 'Auto',
  confirm: 'Customer confirms',
  approve: 'Teammate approves',
};
const MODE_HINTS: Record<ActionMode, string> = {
  auto: 'Runs when the agent calls it: for read-only lookups.',
  confirm: 'The agent restates what it will do; only the customer’s explicit yes in their next message runs it.',
  approve: 'A teammate approves or refuses in the dashboard; the customer gets the holding reply meanwhile.',
};

const BUILTIN_NOTE = 'The built-in provider never calls actions: agents call them only with your own model (LLM settings).';

function useManager(): boolean {
  const role = useAuth().me?.user.role;
  return role === 'owner' || role === 'admin';
}

/** /actions (the list), /actions/new and /actions/<id> (the form, and the Test panel). */
export function ActionsPage({ id }: { id: string | null }) {
  if (id === null) return <ActionList />;
  return <ActionFormPage key={id} id={id === 'new' ? null : id} />;
}

function ActionList() {
  const manager = useManager();
  const role = useAuth().me?.user.role;
  const actions = useAsync((signal) => listAllActions({ signal }), []);
  return (
    <>
      <PageHeader
        title="Actions"
        description={
          <>
            Calls to your own systems an agent may make while it answers: look an order up, move a booking. {BUILTIN_NOTE}
          </>
        }
        actions={
          manager ? (
            <Button variant="primary" onClick={() => navigate('/actions/new')} data-testid="action-new">
              New action
            </Button>
          ) : undefined
        }
      />
      {role !== undefined && !manager && (
        <p className="notice notice-info" data-testid="actions-read-only">
          <strong>Read only for your role.</strong> Owners and admins define, change and test actions (they reach your own systems with the company’s secrets); you can read them.
        </p>
      )}
      <CardSection title="Your actions">
        <ListState
          list={actions}
          items={actions.data}
          loadingLabel="Loading actions…"
          errorTitle="Could not load the actions"
          empty={<EmptyState title="No actions yet — define one, test it, then pick it on an agent" />}
        >
          <DataTable columns={['Name', 'Mode', 'Request', 'Status']} actions>
            {actions.data?.map((action) => (
              <tr key={action.id} data-testid="action-row">
                <td className="nowrap">
                  <code className="code-inline">{action.name}</code>
                </td>
                <td className="nowrap">
                  <Badge tone={action.mode === 'auto' ? 'info' : 'warning'}>{MODE_LABELS[action.mode]}</Badge>
                </td>
                <td className="wrap">
                  <code className="code-inline">
                    {action.method} {action.urlTemplate}
                  </code>
                </td>
                <td className="nowrap">
                  <Badge tone={action.active ? 'success' : 'neutral'}>{action.active ? 'Active' : 'Off'}</Badge>
                </td>
                <td className="actions">
                  <Link to={`/actions/${encodeURIComponent(action.id)}`} className="btn btn-secondary btn-sm" aria-label={`Open ${action.name}`}>
                    {manager ? 'Edit' : 'View'}
                  </Link>
                </td>
              </tr>
            ))}
          </DataTable>
        </ListState>
      </CardSection>
    </>
  );
}

function ActionFormPage({ id }: { id: string | null }) {
  const existing = useAsync((signal) => (id === null ? Promise.resolve(null) : getAction(id, { signal })), [id]);
  const manager = useManager();
  // Said before anyone types (the form below is disabled for them), like Agents and Settings.
  const roleKnown = useAuth().me?.user.role !== undefined;
  return (
    <>
      <PageHeader
        title={id === null ? 'New action' : (existing.data?.name ?? 'Action')}
        description={
          <Link to="/actions" className="back-link">
            ← All actions
          </Link>
        }
      />
      {existing.loading && existing.data === undefined ? (
        <div className="card">
          <Skeleton rows={8} />
        </div>
      ) : existing.error ? (
        <ErrorState error={existing.error} onRetry={existing.reload} title="Could not load the action" />
      ) : (
        <div className="action-page">
          {!manager && roleKnown && (
            <p className="notice notice-info" data-testid="action-read-only">
              <strong>Read only for your role.</strong> Owners and admins change and test actions; you can read this one.
            </p>
          )}
          <ActionForm action={existing.data ?? null} readOnly={!manager} onSaved={(saved) => existing.setData(saved)} />
          {existing.data && manager && <ActionTestPanel key={existing.data.updatedAt} action={existing.data} />}
        </div>
      )}
    </>
  );
}

interface ParamRow {
  key: number;
  name: string;
  type: ParameterType;
  required: boolean;
  description: string;
  enumText: string;
  /** '' : the model fills it; otherwise the service fills it from the customer's verified identity. */
  identity: IdentitySource | '';
  /** What the editor does not show (minimum, pattern…), kept as it was. */
  rest: Omit<ActionParameter, 'type' | 'description' | 'enum'>;
}
interface HeaderRow {
  key: number;
  name: string;
  value: string;
  /** Saved before: an empty value keeps it. */
  saved: boolean;
}

let rowKey = 0;
const nextKey = () => ++rowKey;

function rowsOf(action: Action | null): ParamRow[] {
  if (!action) return [];
  return Object.entries(action.parameters.properties).map(([name, p]) => {
    const { type, description, enum: values, ...rest } = p;
    return {
      key: nextKey(),
      name,
      type,
      required: action.parameters.required.includes(name),
      description: description ?? '',
      enumText: values?.join(', ') ?? '',
      identity: action.identity[name] ?? '',
      rest,
    };
  });
}

function parametersOf(rows: ParamRow[]): Pick<ActionInput, 'parameters' | 'identity'> {
  const properties: Record<string, ActionParameter> = {};
  const identity: Record<string, IdentitySource> = {};
  for (const row of rows) {
    const name = row.name.trim();
    if (!name) continue;
    const values = row.enumText
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean)
      .map((v) => (row.type === 'number' || row.type === 'integer' ? Number(v) : v));
    properties[name] = { ...row.rest, type: row.type, ...(row.description.trim() ? { description: row.description.trim() } : {}), ...(values.length > 0 ? { enum: values } : {}) };
    if (row.identity) identity[name] = row.identity;
  }
  const required = rows.filter((r) => r.required && r.name.trim()).map((r) => r.name.trim());
  return { parameters: { type: 'object', properties, required }, identity };
}

const splitList = (text: string) =>
  text
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

function ActionForm({ action, readOnly, onSaved }: { action: Action | null; readOnly: boolean; onSaved: (a: Action) => void }) {
  const toast = useToast();
  const [name, setName] = useState(action?.name ?? '');
  const [description, setDescription] = useState(action?.description ?? '');
  const [params, setParams] = useState<ParamRow[]>(() => rowsOf(action));
  const [method, setMethod] = useState<ActionMethod>(action?.method ?? 'GET');
  const [urlTemplate, setUrlTemplate] = useState(action?.urlTemplate ?? '');
  const [headers, setHeaders] = useState<HeaderRow[]>(() => action?.headers.map((h) => ({ key: nextKey(), name: h.name, value: '', saved: true })) ?? []);
  const [timeoutMs, setTimeoutMs] = useState(String(action?.timeoutMs ?? 10_000));
  const [responseFields, setResponseFields] = useState(action?.responseFields.join(', ') ?? '');
  const [mode, setMode] = useState<ActionMode>(action?.mode ?? 'auto');
  const [sample, setSample] = useState(action ? JSON.stringify(action.sampleResponse, null, 2) : '{\n  "status": "shipped"\n}');
  const [approverRoles, setApproverRoles] = useState<TeamRole[]>(action?.approverRoles ?? []);
  const [holdingReply, setHoldingReply] = useState(action?.holdingReply ?? 'Thanks! A teammate needs to approve this; I will get back to you shortly.');
  const [approvalMinutes, setApprovalMinutes] = useState(String(action?.approvalTimeoutMinutes ?? 60));
  const [active, setActive] = useState(action?.active ?? true);
  const save = useSubmit();
  const deletion = useConfirmedDelete(async (target: Action) => {
    await deleteAction(target.id);
    toast.success(`Action “${target.name}” deleted`);
    navigate('/actions');
  });

  let sampleError: string | null = null;
  let sampleValue: ActionInput['sampleResponse'] = null;
  try {
    sampleValue = JSON.parse(sample) as ActionInput['sampleResponse'];
  } catch {
    sampleError = 'Not valid JSON';
  }

  const setParam = (key: number, change: Partial<ParamRow>) => setParams((rows) => rows.map((r) => (r.key === key ? { ...r, ...change } : r)));
  const setHeader = (key: number, change: Partial<HeaderRow>) => setHeaders((rows) => rows.map((r) => (r.key === key ? { ...r, ...change } : r)));

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (sampleError || readOnly) return;
    const input: ActionInput = {
      name: name.trim(),
      description: description.trim(),
      ...parametersOf(params),
      method,
      urlTemplate: urlTemplate.trim(),
      headers: headers.filter((h) => h.name.trim()).map((h) => (h.value === '' && h.saved ? { name: h.name.trim() } : { name: h.name.trim(), value: h.value })),
      timeoutMs: Number(timeoutMs),
      responseFields: splitList(responseFields),
      mode,
      sampleResponse: sampleValue,
      active,
    };
    if (mode === 'approve') Object.assign(input, { approverRoles: approverRoles.length > 0 ? approverRoles : null, holdingReply: holdingReply.trim(), approvalTimeoutMinutes: Number(approvalMinutes) });
    void save.run(async () => {
      if (action) {
        const saved = await updateAction(action.id, input);
        onSaved(saved);
        setHeaders(saved.headers.map((h) => ({ key: nextKey(), name: h.name, value: '', saved: true })));
        toast.success(`Action “${saved.name}” saved`);
      } else {
        const created = await createAction(input);
        toast.success(`Action “${created.name}” created`);
        navigate(`/actions/${encodeURIComponent(created.id)}`);
      }
    });
  }

  return (
    <form className="card form form-card action-form" onSubmit={onSubmit} data-testid="action-form">
      <fieldset disabled={readOnly} className="plain-fieldset">
        <div className="form-row">
          <TextField label="Name" required value={name} onValueChange={setName} placeholder="lookup_order" hint="What the model calls: letters, digits and _." data-testid="action-name" />
          <SelectField label="Mode" value={mode} onValueChange={(v) => setMode(v as ActionMode)} hint={MODE_HINTS[mode]} data-testid="action-mode">
            {(Object.keys(MODE_LABELS) as ActionMode[]).map((m) => (
              <option key={m} value={m}>
                {MODE_LABELS[m]}
              </option>
            ))}
          </SelectField>
        </div>
        <TextAreaField label="Description" required rows={2} value={description} onValueChange={setDescription} placeholder="Finds an order by its number and tells its status." hint="The model reads this to decide when to call it." data-testid="action-description" />

        <h3 className="subsection-title">Parameters</h3>
        <p className="field-hint">
          What the call needs. A parameter filled from the customer&apos;s identity is never shown to the model and cannot be set by it; an unverified visitor cannot reach it.
        </p>
        <div className="action-rows" data-testid="action-parameters">
          {params.map((row, i) => (
            <div className="action-row" key={row.key} data-testid="action-parameter-row">
              <TextField label="Name" value={row.name} onValueChange={(v) => setParam(row.key, { name: v })} data-testid={`param-name-${i}`} />
              <SelectField label="Type" value={row.type} onValueChange={(v) => setParam(row.key, { type: v as ParameterType })} data-testid={`param-type-${i}`}>
                <option value="string">string</option>
                <option value="number">number</option>
                <option value="integer">integer</option>
                <option value="boolean">boolean</option>
              </SelectField>
              <SelectField label="Filled by" value={row.identity} onValueChange={(v) => setParam(row.key, { identity: v as IdentitySource | '' })} data-testid={`param-identity-${i}`}>
                <option value="">The model</option>
                {IDENTITY_SOURCES.map((s) => (
                  <option key={s.value} value={s.value}>
                    {s.label}
                  </option>
                ))}
              </SelectField>
              <TextField label="Description" value={row.description} onValueChange={(v) => setParam(row.key, { description: v })} data-testid={`param-description-${i}`} />
              <TextField label="Allowed values" value={row.enumText} onValueChange={(v) => setParam(row.key, { enumText: v })} placeholder="any" hint="Comma-separated" data-testid={`param-enum-${i}`} />
              <Switch label="Required" checked={row.required} onChange={(v) => setParam(row.key, { required: v })} />
              <Button size="sm" variant="ghost" className="danger-text" onClick={() => setParams((rows) => rows.filter((r) => r.key !== row.key))} aria-label={`Remove parameter ${row.name || i + 1}`}>
                Remove
              </Button>
            </div>
          ))}
          <Button size="sm" onClick={() => setParams((rows) => [...rows, { key: nextKey(), name: '', type: 'string', required: true, description: '', enumText: '', identity: '', rest: {} }])} data-testid="param-add">
            Add parameter
          </Button>
        </div>

        <h3 className="subsection-title">Request</h3>
        <div className="form-row">
          <SelectField label="Method" value={method} onValueChange={(v) => setMethod(v as ActionMethod)} data-testid="action-method">
            {(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).map((m) => (
              <option key={m}>{m}</option>
            ))}
          </SelectField>
          <TextField label="Timeout (ms)" type="number" min={500} max={30_000} value={timeoutMs} onValueChange={setTimeoutMs} data-testid="action-timeout" />
        </div>
        <TextField
          label="URL template"
          required
          value={urlTemplate}
          onValueChange={setUrlTemplate}
          placeholder="https://shop.example.com/orders/{order_id}"
          hint="{name} is replaced by the parameter; other parameters go in the query (GET) or a JSON body. The address must be https and public."
          data-testid="action-url"
        />
        <div className="action-rows" data-testid="action-headers">
          {headers.map((row, i) => (
            <div className="action-row action-row-header" key={row.key}>
              <TextField label="Header" value={row.name} onValueChange={(v) => setHeader(row.key, { name: v })} placeholder="Authorization" data-testid={`header-name-${i}`} />
              <TextField
                label="Value"
                type="password"
                autoComplete="off"
                value={row.value}
                onValueChange={(v) => setHeader(row.key, { value: v })}
                placeholder={row.saved ? 'Saved — leave blank to keep' : 'Secret value'}
                hint="Write-only: encrypted, never shown again."
                data-testid={`header-value-${i}`}
              />
              <Button size="sm" variant="ghost" className="danger-text" onClick={() => setHeaders((rows) => rows.filter((r) => r.key !== row.key))} aria-label={`Remove header ${row.name || i + 1}`}>
                Remove
              </Button>
            </div>
          ))}
          <Button size="sm" onClick={() => setHeaders((rows) => [...rows, { key: nextKey(), name: '', value: '', saved: false }])} data-testid="header-add">
            Add header
          </Button>
        </div>

        <h3 className="subsection-title">Response</h3>
        <TextField
          label="Fields the model reads"
          value={responseFields}
          onValueChange={setResponseFields}
          placeholder="status, eta, items.0.name"
          hint="Comma-separated dot paths into the JSON answer; blank: all of it (capped in size)."
          data-testid="action-response-fields"
        />
        <TextAreaField
          label="Sample response (JSON)"
          rows={5}
          value={sample}
          onValueChange={setSample}
          error={sampleError}
          hint="What test runs, replays and a mocked playground use instead of calling your system."
          data-testid="action-sample"
        />

        {mode === 'approve' && (
          <div data-testid="action-approve-settings">
            <h3 className="subsection-title">Approval</h3>
            <fieldset className="plain-fieldset">
              <legend className="field-label">Who may approve</legend>
              <div className="action-roles">
                {(['owner', 'admin', 'agent'] as const).map((role) => (
                  <label key={role} className="checkbox-label">
                    <input
                      type="checkbox"
                      checked={approverRoles.includes(role)}
                      onChange={(e) => setApproverRoles((roles) => (e.target.checked ? [...roles, role] : roles.filter((r) => r !== role)))}
                    />{' '}
                    {role}
                  </label>
                ))}
              </div>
              <p className="field-hint">None ticked: any teammate.</p>
            </fieldset>
            <TextAreaField label="Holding reply" rows={2} value={holdingReply} onValueChange={setHoldingReply} hint="What the customer is told while a teammate decides." />
            <TextField label="Approval times out after (minutes)" type="number" min={1} value={approvalMinutes} onValueChange={setApprovalMinutes} hint="Then the conversation is handed to your team." />
          </div>
        )}
        <Switch label="Active" checked={active} onChange={setActive} hint="An inactive action is offered to no agent." />
      </fieldset>
      <InlineError error={save.error} />
      {!readOnly && (
        <div className="form-actions">
          {action && (
            <Button variant="danger" className="push-left" onClick={() => deletion.ask(action)}>
              Delete
            </Button>
          )}
          <Link to="/actions" className="btn btn-ghost">
            Cancel
          </Link>
          <Button type="submit" variant="primary" busy={save.busy} disabled={Boolean(sampleError)} data-testid="action-save">
            {action ? 'Save' : 'Create action'}
          </Button>
        </div>
      )}
      <ConfirmDialog {...deletion.dialog} title="Delete this action?" message={<p>Agents that list “{deletion.target?.name}” will no longer call it.</p>} confirmLabel="Delete" />
    </form>
  );
}

/** Calls the action for real once, with the parameters given (or a sample), and shows what came back. */
function ActionTestPanel({ action }: { action: Action }) {
  const identitySources = [...new Set(Object.values(action.identity))];
  const [paramsText, setParamsText] = useState('');
  const [identity, setIdentity] = useState<Partial<Record<IdentitySource, string>>>({});
  const [result, setResult] = useState<ActionTest | null>(null);
  const run = useSubmit();

  let paramsError: string | null = null;
  let parameters: Record<string, string | number | boolean> | undefined;
  if (paramsText.trim()) {
    try {
      parameters = JSON.parse(paramsText) as Record<string, string | number | boolean>;
    } catch {
      paramsError = 'Not valid JSON';
    }
  }

  function onTest(event: FormEvent) {
    event.preventDefault();
    if (paramsError) return;
    void run.run(async () => {
      setResult(null);
      const given = Object.fromEntries(Object.entries(identity).filter(([, v]) => v?.trim()));
      setResult(await testAction(action.id, { ...(parameters ? { parameters } : {}), ...(Object.keys(given).length > 0 ? { identity: given } : {}) }));
    });
  }

  return (
    <CardSection title="Test">
      <form className="form" onSubmit={onTest}>
        <p className="field-hint">Calls your system for real, once, and shows the raw answer and what the model would read. Nothing is sent to a customer.</p>
        <TextAreaField
          label="Parameters (JSON)"
          rows={3}
          value={paramsText}
          onValueChange={setParamsText}
          error={paramsError}
          placeholder="Blank: a sample built from the parameters"
          data-testid="action-test-parameters"
        />
        {identitySources.map((source) => (
          <TextField
            key={source}
            label={`Customer identity: ${IDENTITY_SOURCES.find((s) => s.value === source)?.label ?? source}`}
            value={identity[source] ?? ''}
            onValueChange={(v) => setIdentity((id) => ({ ...id, [source]: v }))}
            hint="The service fills this from the verified customer; give one to test with."
            data-testid={`action-test-identity-${source}`}
          />
        ))}
        <InlineError error={run.error} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={run.busy} data-testid="action-test">
            Test
          </Button>
        </div>
      </form>
      {result && (
        <div className="action-test-result" data-testid="action-test-result">
          <p>
            <Badge tone={result.ok ? 'success' : 'danger'}>{result.ok ? `HTTP ${result.status}` : 'Failed'}</Badge> {result.durationMs} ms ·{' '}
            <code className="code-inline">
              {result.request.method} {result.request.url}
            </code>
          </p>
          {result.error && <p className="field-error">{result.error}</p>}
          {result.raw !== null && (
            <>
              <h3 className="subsection-title">Raw response</h3>
              <pre className="action-pre" data-testid="action-test-raw">
                {result.raw}
              </pre>
            </>
          )}
          {result.mapped !== null && (
            <>
              <h3 className="subsection-title">What the model reads</h3>
              <pre className="action-pre" data-testid="action-test-mapped">
                {result.mapped}
              </pre>
            </>
          )}
        </div>
      )}
    </CardSection>
  );
}

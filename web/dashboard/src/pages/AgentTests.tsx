import { useEffect, useState, type FormEvent } from 'react';
import {
  createTestCase,
  deleteTestCase,
  estimateTestRun,
  getTestRun,
  listTestCases,
  listVersions,
  startTestRun,
  type TestCase,
  type TestExpectations,
  type TestRun,
  type TestRunEstimate,
} from '../api/agentVersions.js';
import { useAuth } from '../auth.js';
import { useToast } from '../components/Toasts.js';
import { Badge, Button, EmptyState, ErrorState, InlineError, SelectField, Skeleton, Switch, TextAreaField, TextField } from '../components/ui.js';
import { versionOptions } from '../components/versionOptions.js';
import { useSubmit } from '../components/useSubmit.js';
import { useAsync } from '../lib/useAsync.js';
import { useRoute } from '../lib/router.js';
import { formatMicros } from '../lib/format.js';

/** What a case expects, in words. */
function describeExpectations(e: TestExpectations): string {
  const parts: string[] = [];
  for (const m of e.contains ?? []) parts.push(`contains ${m.kind === 'regex' ? `/${m.value}/` : `“${m.value}”`}`);
  for (const m of e.notContains ?? []) parts.push(`does not contain ${m.kind === 'regex' ? `/${m.value}/` : `“${m.value}”`}`);
  if (e.handoff === true) parts.push('hands off');
  if (e.handoff === false) parts.push('answers without handing off');
  if (e.citesDocumentId) parts.push('cites a document');
  if (e.maxChars !== undefined) parts.push(`at most ${e.maxChars} characters`);
  if (e.judge) parts.push(`judged: “${e.judge}”`);
  return parts.join(' · ') || 'no expectations';
}

/**
 * The agent's Tests tab: its test cases (every role edits them) and a run with a chosen version on the builtin
 * provider (owners and admins), with each case's answer and checks.
 */
export function AgentTestsTab({ agentId }: { agentId: string }) {
  const { me } = useAuth();
  const manager = me?.user.role === 'owner' || me?.user.role === 'admin';
  const toast = useToast();
  const cases = useAsync((signal) => listTestCases(agentId, { signal }), [agentId]);
  const removal = useSubmit();
  // A case just made from a conversation (?case=<id>) is marked.
  const made = useRoute().query.get('case');

  if (cases.loading && !cases.data) return <Skeleton rows={4} label="Loading test cases…" />;
  if (cases.error && !cases.data) return <ErrorState error={cases.error} onRetry={cases.reload} title="Could not load the test cases" />;
  return (
    <div className="agent-versions">
      <section className="card" aria-labelledby="cases-title">
        <h2 id="cases-title" className="card-title">
          Test cases
        </h2>
        {cases.data?.length === 0 ? (
          <EmptyState title="No test cases yet">Add a customer message and what the answer must (not) do.</EmptyState>
        ) : (
          <ul className="version-list">
            {cases.data?.map((c: TestCase) => (
              <li key={c.id} className="version-row" data-testid="test-case" data-new={c.id === made ? 'true' : undefined}>
                <div className="version-head">
                  <strong>{c.name}</strong>
                  {c.id === made && <Badge tone="success">New</Badge>}
                  {c.required && <Badge tone="warning">Required</Badge>}
                  <span className="muted">
                    “{c.turns.join(' → ')}” · {describeExpectations(c.expect)}
                  </span>
                </div>
                <Button
                  size="sm"
                  variant="ghost"
                  className="danger-text"
                  onClick={() =>
                    void removal.run(async () => {
                      await deleteTestCase(agentId, c.id);
                      toast.success(`Test case “${c.name}” deleted`);
                      cases.reload();
                    })
                  }
                >
                  Delete
                </Button>
              </li>
            ))}
          </ul>
        )}
        <InlineError error={removal.error} />
      </section>
      <NewTestCase agentId={agentId} onSaved={cases.reload} />
      {manager && (cases.data?.length ?? 0) > 0 && <RunPanel agentId={agentId} />}
    </div>
  );
}

function NewTestCase({ agentId, onSaved }: { agentId: string; onSaved(): void }) {
  const toast = useToast();
  const save = useSubmit();
  const [name, setName] = useState('');
  const [turns, setTurns] = useState('');
  const [contains, setContains] = useState('');
  const [notContains, setNotContains] = useState('');
  const [handoff, setHandoff] = useState<'any' | 'yes' | 'no'>('any');
  const [maxChars, setMaxChars] = useState('');
  const [judge, setJudge] = useState('');
  const [required, setRequired] = useState(true);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const expect: TestExpectations = {};
    if (contains.trim()) expect.contains = [{ kind: 'text', value: contains.trim() }];
    if (notContains.trim()) expect.notContains = [{ kind: 'text', value: notContains.trim() }];
    if (handoff !== 'any') expect.handoff = handoff === 'yes';
    if (maxChars.trim()) expect.maxChars = Number(maxChars);
    if (judge.trim()) expect.judge = judge.trim();
    void save.run(async () => {
      await createTestCase(agentId, { name: name.trim(), turns: turns.split('\n').map((t) => t.trim()).filter(Boolean), expect, required });
      toast.success('Test case added');
      setName('');
      setTurns('');
      setContains('');
      setNotContains('');
      setJudge('');
      onSaved();
    });
  }

  return (
    <form className="card form" onSubmit={onSubmit} aria-labelledby="new-case-title">
      <h2 id="new-case-title" className="card-title">
        Add a test case
      </h2>
      <TextField label="Case name" required maxLength={200} value={name} onValueChange={setName} />
      <TextAreaField label="Customer messages" required rows={3} value={turns} onValueChange={setTurns} hint="One customer turn per line (at most 5)." />
      <div className="form-row">
        <TextField label="Answer must contain" value={contains} onValueChange={setContains} />
        <TextField label="Answer must not contain" value={notContains} onValueChange={setNotContains} />
      </div>
      <div className="form-row">
        <SelectField label="Handoff" value={handoff} onValueChange={(v) => setHandoff(v as 'any' | 'yes' | 'no')}>
          <option value="any">Either</option>
          <option value="yes">Must hand off</option>
          <option value="no">Must not hand off</option>
        </SelectField>
        <TextField label="At most characters" type="number" min={1} value={maxChars} onValueChange={setMaxChars} />
      </div>
      <TextField
        label="Judge criterion"
        maxLength={500}
        value={judge}
        onValueChange={setJudge}
        hint="In plain words, checked by your model and charged like an answer. The built-in provider cannot judge: such a case reads “not judged”."
      />
      <Switch label="Required" checked={required} onChange={setRequired} hint="A required case that fails should stop a release." />
      <InlineError error={save.error} />
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={save.busy}>
          Add test case
        </Button>
      </div>
    </form>
  );
}

function RunPanel({ agentId }: { agentId: string }) {
  const versions = useAsync((signal) => listVersions(agentId, {}, { signal }), [agentId]);
  const [version, setVersion] = useState<string>('');
  const [run, setRun] = useState<TestRun | null>(null);
  const [estimate, setEstimate] = useState<TestRunEstimate | null>(null);
  const start = useSubmit();
  useEffect(() => {
    if (!run || run.status !== 'running') return;
    const timer = setTimeout(() => void getTestRun(agentId, run.id).then(setRun, () => undefined), 500);
    return () => clearTimeout(timer);
  }, [agentId, run]);
  const chosen = version || String(versions.data?.draftVersion ?? 1);
  const runTests = () =>
    void start.run(async () => {
      // A paid model's answers cost credits: the estimate is shown and confirmed before anything starts.
      const e = estimate?.version === Number(chosen) ? estimate : await estimateTestRun(agentId, Number(chosen));
      if (e.costMicros > 0 && estimate !== e) return setEstimate(e);
      setRun(await startTestRun(agentId, Number(chosen), e));
      setEstimate(null);
    });
  return (
    <section className="card" aria-labelledby="run-title">
      <h2 id="run-title" className="card-title">
        Run the tests
      </h2>
      <p className="muted">Answers every case with the version’s model, never sent to anyone: free and repeatable on the built-in provider, charged on a paid model.</p>
      <div className="form-row">
        <SelectField label="With version" value={chosen} onValueChange={setVersion}>
          {versionOptions(versions.data?.versions ?? [])}
        </SelectField>
      </div>
      {estimate && (
        <p data-testid="test-run-estimate">
          Answering {estimate.messages} messages with {estimate.model} costs about {formatMicros(estimate.costMicros)}.
        </p>
      )}
      <Button variant="primary" busy={start.busy} onClick={runTests}>
        {estimate ? `Confirm and run (${formatMicros(estimate.costMicros)})` : 'Run tests'}
      </Button>
      <InlineError error={start.error} />
      {run && (
        <div data-testid="test-run" data-status={run.status}>
          <p>
            Version {run.version}: {run.status === 'running' ? 'running…' : `${run.passed} passed, ${run.failed} failed`}
            {run.stopped ? ` — stopped: ${run.stopped.message}` : ''}
            {run.requiredFailed > 0 ? ` (${run.requiredFailed} required failed)` : ''}
          </p>
          <ul className="version-list">
            {run.cases.map((c) => (
              <li key={c.caseId} className="version-row" data-testid="test-run-case" data-status={c.status}>
                <div className="version-head">
                  <strong>{c.name}</strong>
                  <Badge tone={c.status === 'passed' ? 'success' : c.status === 'failed' ? 'danger' : 'neutral'}>{c.status}</Badge>
                  {c.answer && <span className="muted">“{c.answer.text}”</span>}
                </div>
                <ul>
                  {c.results.map((r, i) => (
                    <li key={i}>
                      {r.verdict === 'not_judged' ? '–' : r.passed ? '✓' : '✗'} {r.check}: {r.expected}
                      {r.reason ? ` (${r.verdict === 'not_judged' ? 'not judged: ' : ''}${r.reason})` : ''}
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

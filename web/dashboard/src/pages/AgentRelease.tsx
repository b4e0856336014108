import { useEffect, useState } from 'react';
import {
  estimateReleaseCheck,
  getReleaseCheck,
  listVersions,
  publishChecked,
  startReleaseCheck,
  type ReleaseCheck,
  type ReleaseEstimate,
  type ReleaseTurn,
  type SideAnswer,
} from '../api/agentVersions.js';
import { useAuth } from '../auth.js';
import { useToast } from '../components/Toasts.js';
import { Badge, Button, EmptyState, InlineError, SelectField, Skeleton, TextAreaField } from '../components/ui.js';
import { useSubmit } from '../components/useSubmit.js';
import { formatMicros } from '../lib/format.js';
import { useAsync } from '../lib/useAsync.js';
import { versionOptions } from '../components/versionOptions.js';
import './agentVersions.css';

type Report = { check: ReleaseCheck; turns: ReleaseTurn[] };

/**
 * The agent's Release tab: check a version before it goes live (its test cases, and a replay over the agent's
 * most recent conversations), read the report side by side, and publish it when no required case fails; an
 * owner may publish anyway with a written reason. Owners and admins run and publish; every role reads.
 */
export function AgentReleaseTab({ agentId }: { agentId: string }) {
  const { me } = useAuth();
  const manager = me?.user.role === 'owner' || me?.user.role === 'admin';
  const versions = useAsync((signal) => listVersions(agentId, {}, { signal }), [agentId]);
  const [version, setVersion] = useState('');
  const [estimate, setEstimate] = useState<ReleaseEstimate | null>(null);
  const [report, setReport] = useState<Report | null>(null);
  const run = useSubmit();
  useEffect(() => {
    if (!report || report.check.status === 'finished') return;
    const timer = setTimeout(() => void getReleaseCheck(agentId, report.check.id).then(setReport, () => undefined), 500);
    return () => clearTimeout(timer);
  }, [agentId, report]);

  if (versions.loading && !versions.data) return <Skeleton rows={4} label="Loading versions…" />;
  const chosen = Number(version || versions.data?.draftVersion || 1);
  const published = versions.data?.publishedVersion ?? 1;

  const check = () =>
    void run.run(async () => {
      // A paid model's answers cost credits: the estimate is shown and confirmed before anything starts.
      const e = estimate?.version === chosen ? estimate : await estimateReleaseCheck(agentId, chosen);
      if (e.costMicros > 0 && estimate !== e) return setEstimate(e);
      const started = await startReleaseCheck(agentId, chosen, e);
      setEstimate(null);
      setReport({ check: started, turns: [] });
    });

  return (
    <div className="agent-versions">
      <section className="card" aria-labelledby="release-title">
        <h2 id="release-title" className="card-title">
          Check a version before it goes live
        </h2>
        <p className="muted">
          Runs the test cases with the version’s model and answers the agent’s 20 most recent conversations again with the version, next to what customers got. Customers
          are answered by version {published} until you publish.
        </p>
        <div className="form-row">
          <SelectField label="Version to check" value={String(chosen)} onValueChange={setVersion}>
            {versionOptions(versions.data?.versions ?? [])}
          </SelectField>
        </div>
        {estimate && (
          <p data-testid="release-estimate">
            Answering {estimate.suite.messages} test messages and replaying {estimate.messages} messages with {estimate.model} costs about {formatMicros(estimate.costMicros)}.
          </p>
        )}
        {manager && (
          <Button variant="primary" busy={run.busy} onClick={check}>
            {estimate ? `Confirm and run (${formatMicros(estimate.costMicros)})` : 'Run release checks'}
          </Button>
        )}
        <InlineError error={run.error} />
      </section>
      {report && <ReleaseReport agentId={agentId} report={report} publishedVersion={published} onPublished={versions.reload} />}
    </div>
  );
}

function ReleaseReport({ agentId, report, publishedVersion, onPublished }: { agentId: string; report: Report; publishedVersion: number; onPublished(): void }) {
  const { check, turns } = report;
  const suite = check.suite;
  return (
    <section className="card" aria-labelledby="report-title" data-testid="release-check" data-status={check.status} data-gate={check.gate.passed === null ? 'pending' : check.gate.passed ? 'passed' : 'failed'}>
      <h2 id="report-title" className="card-title">
        Version {check.version}:{' '}
        {check.status === 'running' ? 'checking…' : check.gate.passed ? 'ready to publish' : `${check.gate.failedCases.length} required case(s) fail`}
      </h2>
      <p>
        Tests: {suite.passed} passed, {suite.failed} failed
        {suite.requiredFailed > 0 ? ` (${suite.requiredFailed} required failed)` : ''} · {check.conversations} conversation(s) replayed
        {suite.stopped ? ` · stopped: ${suite.stopped.message}` : ''}
      </p>
      <p className="muted">
        Check <code data-testid="release-check-id">{check.id}</code> (an experiment with this version names it).
      </p>
      <ul className="version-list">
        {suite.cases.map((c) => (
          <li key={c.caseId} className="version-row" data-testid="release-case" data-status={c.status}>
            <div className="version-head">
              <strong>{c.name}</strong>
              {c.required && <Badge tone="warning">Required</Badge>}
              <Badge tone={c.status === 'passed' ? 'success' : c.status === 'failed' ? 'danger' : 'neutral'}>{c.status.replace('_', ' ')}</Badge>
              {c.answer && <span className="muted">“{c.answer.text}”</span>}
            </div>
          </li>
        ))}
      </ul>
      {turns.length > 0 && <SideBySide turns={turns} version={check.version} />}
      {check.status === 'finished' && check.version !== publishedVersion && <PublishPanel agentId={agentId} check={check} onPublished={onPublished} />}
    </section>
  );
}

const sideText = (a: SideAnswer) =>
  a.kind === 'operator' ? `Teammate: ${a.text}` : a.kind === 'unanswered' ? 'Not answered by the AI' : a.kind === 'none' ? 'Not answered yet' : a.kind === 'failed' ? 'The model failed' : (a.text ?? '');

function SideBySide({ turns, version }: { turns: ReleaseTurn[]; version: number }) {
  return (
    <table className="release-turns" data-testid="release-turns">
      <thead>
        <tr>
          <th scope="col">Customer</th>
          <th scope="col">Current answer</th>
          <th scope="col">Version {version}</th>
          <th scope="col">What changed</th>
        </tr>
      </thead>
      <tbody>
        {turns.map((t) => (
          <tr key={`${t.conversationId}:${t.turn}`} data-testid="release-turn">
            <td>{t.customerText}</td>
            <td>{sideText(t.current)}</td>
            <td>{sideText(t.draft)}</td>
            <td>{changesText(t)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function changesText({ changes: c }: ReleaseTurn): string {
  const parts: string[] = [];
  if (c.handoff === 'now_hands_off') parts.push('now hands off');
  if (c.handoff === 'no_longer_hands_off') parts.push('no longer hands off');
  if (c.sourcesAdded.length) parts.push(`+${c.sourcesAdded.length} source(s)`);
  if (c.sourcesRemoved.length) parts.push(`−${c.sourcesRemoved.length} source(s)`);
  if (c.lengthDelta !== 0) parts.push(`${c.lengthDelta > 0 ? '+' : ''}${c.lengthDelta} characters`);
  if (c.costDeltaMicros) parts.push(`cost ${formatMicros(c.costDeltaMicros, { sign: true })}`);
  return parts.join(' · ') || 'no change';
}

function PublishPanel({ agentId, check, onPublished }: { agentId: string; check: ReleaseCheck; onPublished(): void }) {
  const { me } = useAuth();
  const toast = useToast();
  const publish = useSubmit();
  const [reason, setReason] = useState('');
  const owner = me?.user.role === 'owner';
  const manager = owner || me?.user.role === 'admin';
  if (!manager) return null;
  const go = (override?: { reason: string }) =>
    void publish.run(async () => {
      await publishChecked(agentId, check.version, check.id, override);
      toast.success(`Version ${check.version} published`);
      onPublished();
    });
  if (check.gate.passed) {
    return (
      <div className="form-actions">
        <InlineError error={publish.error} />
        <Button variant="primary" busy={publish.busy} onClick={() => go()}>
          Publish version {check.version}
        </Button>
      </div>
    );
  }
  if (!owner) return <EmptyState title="Publishing is blocked">A required case fails. Fix the draft and check it again, or ask an owner to publish anyway.</EmptyState>;
  return (
    <div className="form">
      <TextAreaField label="Reason to publish anyway" rows={2} value={reason} onValueChange={setReason} hint="Recorded with the publication, next to the failing cases." />
      <InlineError error={publish.error} />
      <div className="form-actions">
        <Button variant="danger" busy={publish.busy} disabled={!reason.trim()} onClick={() => go({ reason: reason.trim() })}>
          Publish anyway
        </Button>
      </div>
    </div>
  );
}

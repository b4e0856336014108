import { useEffect, useState, type FormEvent } from 'react';
import { endExperiment, listExperiments, startExperiment, type ArmMetrics, type Experiment, type ExperimentRate } from '../api/agentExperiments.js';
import { listVersions } from '../api/agentVersions.js';
import { useAuth } from '../auth.js';
import { useToast } from '../components/Toasts.js';
import { Badge, Button, EmptyState, ErrorState, InlineError, SelectField, Skeleton, TextField, Time } from '../components/ui.js';
import { versionOptions } from '../components/versionOptions.js';
import { useSubmit } from '../components/useSubmit.js';
import { formatDuration, formatMicros, formatNumber } from '../lib/format.js';
import { useAsync } from '../lib/useAsync.js';

/** Live metrics refresh this often while an experiment runs. */
const REFRESH_MS = 3000;
const LEVELS = [0.8, 0.9, 0.95, 0.99];

const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);
/** "67% (21–94%)": the rate with its Wilson interval. */
const rateText = (r: ExperimentRate) => (r.rate === null ? '—' : `${pct(r.rate)} (${pct(r.low)}–${pct(r.high)})`);

/**
 * The agent's Experiment tab: start one (two versions, a split, a holdout), follow its live metrics per arm
 * with confidence intervals and the significance verdict, and end it by publishing the winner. Every role
 * reads it; owners and admins start and end.
 */
export function AgentExperimentTab({ agentId }: { agentId: string }) {
  const { me } = useAuth();
  const manager = me?.user.role === 'owner' || me?.user.role === 'admin';
  const experiments = useAsync((signal) => listExperiments(agentId, {}, { signal }), [agentId]);
  const running = experiments.data?.experiments.find((e) => e.status === 'running') ?? null;
  const { reload } = experiments;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [running?.id, reload]);

  if (experiments.loading && !experiments.data) return <Skeleton rows={4} label="Loading experiments…" />;
  if (experiments.error && !experiments.data) return <ErrorState error={experiments.error} onRetry={reload} title="Could not load the experiments" />;
  const ended = experiments.data?.experiments.filter((e) => e.status === 'ended') ?? [];
  return (
    <div className="agent-versions">
      {running ? (
        <RunningExperiment experiment={running} agentId={agentId} manager={manager} onEnded={reload} />
      ) : manager ? (
        <StartExperiment agentId={agentId} onStarted={reload} />
      ) : (
        <section className="card">
          <EmptyState title="No experiment running">Owners and admins can start one to compare two versions on real conversations.</EmptyState>
        </section>
      )}
      {ended.length > 0 && (
        <section className="card" aria-labelledby="past-experiments-title">
          <h2 id="past-experiments-title" className="card-title">
            Past experiments
          </h2>
          <ul className="version-list">
            {ended.map((e) => (
              <li key={e.id} className="version-row" data-testid="past-experiment">
                <div className="version-head">
                  <strong>
                    Version {e.arms[0]!.version} vs {e.arms[1]!.version}
                  </strong>
                  <Badge tone="success">Winner: version {e.winner}</Badge>
                  <span className="muted">
                    ended <Time iso={e.endedAt} /> — “{e.reason}”
                  </span>
                </div>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

function StartExperiment({ agentId, onStarted }: { agentId: string; onStarted(): void }) {
  const toast = useToast();
  const versions = useAsync((signal) => listVersions(agentId, {}, { signal }), [agentId]);
  const start = useSubmit();
  const [a, setA] = useState('');
  const [b, setB] = useState('');
  const [shareA, setShareA] = useState('50');
  const [holdout, setHoldout] = useState('0');
  const [level, setLevel] = useState('0.95');
  const [releaseCheckId, setReleaseCheckId] = useState('');
  const list = versions.data?.versions ?? [];
  const versionA = a || String(versions.data?.publishedVersion ?? '');
  const versionB = b || String(list.find((v) => v.version !== Number(versionA))?.version ?? '');

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const share = Number(shareA);
    void start.run(async () => {
      const check = releaseCheckId.trim() ? { releaseCheckId: releaseCheckId.trim() } : {};
      await startExperiment(agentId, { versions: [Number(versionA), Number(versionB)], split: [share, 100 - share], holdout: Number(holdout), confidenceLevel: Number(level), ...check });
      toast.success('Experiment started');
      onStarted();
    });
  }

  if (versions.loading && !versions.data) return <Skeleton rows={3} label="Loading versions…" />;
  if (list.length < 2) {
    return (
      <section className="card">
        <EmptyState title="An experiment needs two versions">Save a draft on the Versions tab, then compare it with the published one here.</EmptyState>
      </section>
    );
  }
  return (
    <form className="card form" onSubmit={onSubmit} aria-labelledby="start-experiment-title">
      <h2 id="start-experiment-title" className="card-title">
        Start an experiment
      </h2>
      <p className="muted">
        Two versions answer at once. Each conversation keeps the version it first got; a holdout share goes straight to your team as the baseline.
      </p>
      <div className="form-row">
        <SelectField label="Version A" value={versionA} onValueChange={setA}>
          {versionOptions(list)}
        </SelectField>
        <SelectField label="Version B" value={versionB} onValueChange={setB}>
          {versionOptions(list)}
        </SelectField>
      </div>
      <div className="form-row">
        <TextField label="Share of A (%)" type="number" min={1} max={99} required value={shareA} onValueChange={setShareA} hint={`B gets ${Math.max(0, 100 - Number(shareA) || 0)}% (90/10 is a canary).`} />
        <TextField label="Holdout (%)" type="number" min={0} max={50} required value={holdout} onValueChange={setHoldout} hint="Handed to people, not the AI." />
        <SelectField label="Confidence level" value={level} onValueChange={setLevel}>
          {LEVELS.map((l) => (
            <option key={l} value={l}>
              {l * 100}%
            </option>
          ))}
        </SelectField>
      </div>
      <TextField
        label="Release check (optional)"
        value={releaseCheckId}
        onValueChange={setReleaseCheckId}
        hint="A version newer than the published one goes to customers only once it passed the release gate: the id of its check, from the Release tab."
      />
      <InlineError error={start.error} />
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={start.busy}>
          Start experiment
        </Button>
      </div>
    </form>
  );
}

function MetricsRow({ label, share, m, testId }: { label: string; share: number; m: ArmMetrics; testId: string }) {
  return (
    <tr data-testid={testId}>
      <th scope="row">{label}</th>
      <td className="num">{share}%</td>
      <td className="num" data-testid="arm-conversations">
        {formatNumber(m.conversations)}
      </td>
      <td className="num" data-testid="arm-resolution">
        {rateText(m.aiResolution)}
      </td>
      <td className="num" data-testid="arm-handoff">
        {rateText(m.handoff)}
      </td>
      <td className="num">{formatDuration(m.firstResponse.p50Ms)}</td>
      <td className="num">{m.costPerConversationMicros === null ? '—' : formatMicros(m.costPerConversationMicros)}</td>
    </tr>
  );
}

function verdictText(e: Experiment): string {
  const level = `${e.confidenceLevel * 100}%`;
  const { verdict } = e;
  if (verdict.significant && verdict.better) {
    const arm = e.arms.find((x) => x.arm === verdict.better)!;
    return `Version ${arm.version} resolves more conversations: significant at ${level} (p = ${verdict.pValue?.toFixed(3)}).`;
  }
  return `Not significant yet at ${level}${verdict.pValue !== null ? ` (p = ${verdict.pValue.toFixed(3)})` : ''}: keep it running for more conversations.`;
}

function RunningExperiment({ experiment: e, agentId, manager, onEnded }: { experiment: Experiment; agentId: string; manager: boolean; onEnded(): void }) {
  const toast = useToast();
  const end = useSubmit();
  const [winner, setWinner] = useState(String(e.verdict.better ? e.arms.find((x) => x.arm === e.verdict.better)!.version : e.arms[0]!.version));
  const [reason, setReason] = useState('');
  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void end.run(async () => {
      const result = await endExperiment(agentId, e.id, Number(winner), reason.trim());
      toast.success(`Experiment ended: version ${result.publishedVersion} is published`);
      onEnded();
    });
  }
  return (
    <section className="card" aria-labelledby="experiment-title" data-testid="running-experiment">
      <h2 id="experiment-title" className="card-title">
        Experiment: version {e.arms[0]!.version} vs version {e.arms[1]!.version} <Badge tone="info">Running</Badge>
      </h2>
      <p className="muted">
        Started <Time iso={e.startedAt} />. Rates show their {e.confidenceLevel * 100}% confidence interval.
      </p>
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Arm</th>
              <th scope="col" className="num">Share</th>
              <th scope="col" className="num">Conversations</th>
              <th scope="col" className="num">AI resolution</th>
              <th scope="col" className="num">Handoff</th>
              <th scope="col" className="num">First response (median)</th>
              <th scope="col" className="num">Cost / conversation</th>
            </tr>
          </thead>
          <tbody>
            {e.arms.map((arm) => (
              <MetricsRow key={arm.arm} label={`${arm.arm.toUpperCase()} · version ${arm.version}`} share={arm.share} m={arm.metrics} testId={`arm-${arm.arm}`} />
            ))}
            {e.holdout.share > 0 && <MetricsRow label="Holdout · people" share={e.holdout.share} m={e.holdout.metrics} testId="arm-holdout" />}
          </tbody>
        </table>
      </div>
      <p data-testid="experiment-verdict">{verdictText(e)}</p>
      {manager && (
        <form className="form" onSubmit={onSubmit} aria-label="End the experiment">
          <div className="form-row">
            <SelectField label="Winner" value={winner} onValueChange={setWinner}>
              {e.arms.map((arm) => (
                <option key={arm.arm} value={arm.version}>
                  Version {arm.version} ({arm.arm.toUpperCase()})
                </option>
              ))}
            </SelectField>
            <TextField label="Why" required maxLength={1000} value={reason} onValueChange={setReason} hint="Recorded with the publication." />
          </div>
          <InlineError error={end.error} />
          <div className="form-actions">
            <Button type="submit" variant="primary" busy={end.busy}>
              End and publish the winner
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}

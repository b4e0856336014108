import { useEffect, useState, type FormEvent } from 'react';
import {
  diffVersions,
  listPublications,
  listVersions,
  publishVersion,
  rollbackTo,
  saveDraft,
  type AgentVersion,
  type Publication,
  type VersionDiff,
  type VersionPage,
} from '../api/agentVersions.js';
import { ApiError } from '../api/client.js';
import { useAuth } from '../auth.js';
import { Link } from '../lib/router.js';
import { useToast } from '../components/Toasts.js';
import { Badge, Button, EmptyState, ErrorState, InlineError, Modal, SelectField, Skeleton, TextAreaField, Time } from '../components/ui.js';
import { useSubmit } from '../components/useSubmit.js';
import { useAsync } from '../lib/useAsync.js';
import './agentVersions.css';

const FIELD_LABELS: Record<string, string> = {
  systemPrompt: 'System prompt',
  model: 'Model',
  temperature: 'Temperature',
  useKnowledgeBase: 'Knowledge base',
  handoffMessage: 'Handoff message',
  answerThreshold: 'When to answer',
};
const label = (field: string) => FIELD_LABELS[field] ?? field;
const shown = (value: unknown) => (value === null || value === undefined ? 'company default' : typeof value === 'string' ? value : JSON.stringify(value));

/**
 * The agent's Versions tab: its history (published and draft marked), a draft editor, a field-by-field diff of
 * any two versions, publish, and rollback with a reason. Every role reads; owners and admins change.
 */
export function AgentVersionsTab({ agentId }: { agentId: string }) {
  const { me } = useAuth();
  const manager = me?.user.role === 'owner' || me?.user.role === 'admin';
  const [pages, setPages] = useState<VersionPage[]>([]);
  const history = useAsync(async (signal) => {
    const [first, publications] = await Promise.all([listVersions(agentId, {}, { signal }), listPublications(agentId, { signal })]);
    setPages([first]);
    return { first, publications };
  }, [agentId]);
  const [rollback, setRollback] = useState<AgentVersion | null>(null);
  const [compare, setCompare] = useState<{ from: number; to: number } | null>(null);

  if (history.loading && !history.data) return <Skeleton rows={5} label="Loading versions…" />;
  if (history.error && !history.data) return <ErrorState error={history.error} onRetry={history.reload} title="Could not load the versions" />;
  if (!history.data) return null;
  const head = pages[0] ?? history.data.first;
  const versions = pages.flatMap((p) => p.versions);
  const nextCursor = pages[pages.length - 1]?.nextCursor ?? null;
  const draft = versions.find((v) => v.draft);

  async function loadMore() {
    if (!nextCursor) return;
    const page = await listVersions(agentId, { cursor: nextCursor });
    setPages((list) => [...list, page]);
  }

  return (
    <div className="agent-versions">
      <p className="muted" data-testid="versions-summary">
        Customers are answered by <strong>version {head.publishedVersion}</strong>. The draft is version {head.draftVersion}; {head.latestVersion} version
        {head.latestVersion === 1 ? '' : 's'} in all.
      </p>
      {manager && draft && <DraftEditor key={`${draft.version}`} agentId={agentId} draft={draft} onSaved={history.reload} />}
      <section className="card" aria-labelledby="versions-title">
        <h2 id="versions-title" className="card-title">
          History
        </h2>
        <ol className="version-list">
          {versions.map((v) => (
            <VersionRow
              key={v.version}
              version={v}
              published={head.publishedVersion}
              manager={manager}
              onCompare={() => setCompare({ from: head.publishedVersion, to: v.version })}
              onPublished={history.reload}
              onRollback={() => setRollback(v)}
              agentId={agentId}
            />
          ))}
        </ol>
        {nextCursor && (
          <Button size="sm" onClick={() => void loadMore()}>
            Load more
          </Button>
        )}
      </section>
      {head.latestVersion > 1 && (
        <DiffPanel agentId={agentId} latest={head.latestVersion} value={compare ?? { from: Math.max(1, head.latestVersion - 1), to: head.latestVersion }} onChange={setCompare} />
      )}
      <PublicationList publications={history.data.publications} />
      <RollbackDialog agentId={agentId} target={rollback} onClose={() => setRollback(null)} onDone={history.reload} />
    </div>
  );
}

function VersionRow(props: {
  agentId: string;
  version: AgentVersion;
  published: number;
  manager: boolean;
  onCompare(): void;
  onPublished(): void;
  onRollback(): void;
}) {
  const { version: v, published, manager } = props;
  const toast = useToast();
  const publish = useSubmit();
  return (
    <li className="version-row" data-testid="agent-version" data-version={v.version}>
      <div className="version-head">
        <strong>Version {v.version}</strong>
        {v.published && <Badge tone="success">Published</Badge>}
        {v.draft && !v.published && <Badge tone="info">Draft</Badge>}
        <span className="muted">
          <Time iso={v.createdAt} />
          {v.basedOn ? ` · from version ${v.basedOn}` : ' · first version'}
          {v.changed.length > 0 ? ` · changed ${v.changed.map(label).join(', ')}` : ''}
        </span>
      </div>
      <div className="version-actions">
        {!v.published && (
          <Button size="sm" variant="ghost" onClick={props.onCompare}>
            Compare with published
          </Button>
        )}
        {manager && v.version > published && (
          <Button
            size="sm"
            variant="primary"
            busy={publish.busy}
            onClick={() =>
              void publish.run(async () => {
                await publishVersion(props.agentId, v.version);
                toast.success(`Version ${v.version} published`);
                props.onPublished();
              })
            }
          >
            Publish
          </Button>
        )}
        {manager && v.version < published && (
          <Button size="sm" onClick={props.onRollback}>
            Roll back to this
          </Button>
        )}
      </div>
      <InlineError error={publish.error} />
      {publish.error instanceof ApiError && publish.error.code.startsWith('RELEASE_CHECKS') && (
        <Link to={`/agents/${encodeURIComponent(props.agentId)}/release`}>Check version {v.version} on the Release tab</Link>
      )}
    </li>
  );
}

function DraftEditor({ agentId, draft, onSaved }: { agentId: string; draft: AgentVersion; onSaved(): void }) {
  const toast = useToast();
  const save = useSubmit();
  const [systemPrompt, setSystemPrompt] = useState(draft.config.systemPrompt);
  const [handoffMessage, setHandoffMessage] = useState(draft.config.handoffMessage);
  const dirty = systemPrompt !== draft.config.systemPrompt || handoffMessage !== draft.config.handoffMessage;

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void save.run(async () => {
      const saved = await saveDraft(agentId, { systemPrompt, handoffMessage });
      toast.success(`Saved as version ${saved.version} (not published)`);
      onSaved();
    });
  }

  return (
    <form className="card form" onSubmit={onSubmit} aria-labelledby="draft-title">
      <h2 id="draft-title" className="card-title">
        Edit the draft (version {draft.version})
      </h2>
      <TextAreaField label="Draft system prompt" rows={6} value={systemPrompt} onValueChange={setSystemPrompt} maxLength={20_000} />
      <TextAreaField label="Draft handoff message" rows={2} value={handoffMessage} onValueChange={setHandoffMessage} maxLength={2_000} />
      <InlineError error={save.error} />
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={save.busy} disabled={!dirty}>
          Save as new version
        </Button>
      </div>
      <p className="muted">Saving records a new version; customers keep the published one until you publish it.</p>
    </form>
  );
}

function DiffPanel({ agentId, latest, value, onChange }: { agentId: string; latest: number; value: { from: number; to: number }; onChange(v: { from: number; to: number }): void }) {
  const [diff, setDiff] = useState<VersionDiff | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const controller = new AbortController();
    setError(null);
    diffVersions(agentId, value.from, value.to, { signal: controller.signal }).then(setDiff, (err: unknown) => {
      if (!controller.signal.aborted) setError(err);
    });
    return () => controller.abort();
  }, [agentId, value.from, value.to]);
  const numbers = Array.from({ length: latest }, (_, i) => latest - i);
  const pick = (which: 'from' | 'to') => (text: string) => onChange({ ...value, [which]: Number(text) });
  return (
    <section className="card" aria-labelledby="diff-title" data-testid="version-diff">
      <h2 id="diff-title" className="card-title">
        Compare versions
      </h2>
      <div className="form-row">
        <SelectField label="From version" value={String(value.from)} onValueChange={pick('from')}>
          {numbers.map((n) => (
            <option key={n} value={n}>
              Version {n}
            </option>
          ))}
        </SelectField>
        <SelectField label="To version" value={String(value.to)} onValueChange={pick('to')}>
          {numbers.map((n) => (
            <option key={n} value={n}>
              Version {n}
            </option>
          ))}
        </SelectField>
      </div>
      <InlineError error={error} />
      {diff && diff.from === value.from && diff.to === value.to && (
        <>
          {diff.fields.every((f) => !f.changed) ? (
            <p className="muted">These versions are the same.</p>
          ) : (
            <dl className="kv diff-fields">
              {diff.fields
                .filter((f) => f.changed && f.field !== 'systemPrompt')
                .map((f) => (
                  <div key={f.field} data-testid="diff-field" data-field={f.field}>
                    <dt>{label(f.field)}</dt>
                    <dd>
                      <del>{shown(f.from)}</del> → <ins>{shown(f.to)}</ins>
                    </dd>
                  </div>
                ))}
            </dl>
          )}
          <pre className="prompt-diff" aria-label="System prompt, line by line">
            {diff.systemPrompt.map((l, i) => (
              <div key={i} className={`diff-line diff-${l.op}`} data-op={l.op}>
                {l.op === 'added' ? '+ ' : l.op === 'removed' ? '- ' : '  '}
                {l.line}
              </div>
            ))}
          </pre>
        </>
      )}
    </section>
  );
}

function PublicationList({ publications }: { publications: Publication[] }) {
  return (
    <section className="card" aria-labelledby="publications-title">
      <h2 id="publications-title" className="card-title">
        Publishing history
      </h2>
      {publications.length === 0 ? (
        <EmptyState title="Nothing published since the first version" />
      ) : (
        <ul className="publication-list">
          {publications.map((p) => (
            <li key={`${p.at}-${p.version}`} data-testid="publication">
              <Time iso={p.at} /> · {p.rollback ? `Rolled back to version ${p.version}` : `Published version ${p.version}`} (was {p.previousVersion})
              {p.checks?.overridden ? <Badge tone="danger">over {p.checks.failedCases.length} failing case(s)</Badge> : p.checks ? <Badge tone="success">checked</Badge> : null}
              {p.reason ? <span className="muted"> — “{p.reason}”</span> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function RollbackDialog({ agentId, target, onClose, onDone }: { agentId: string; target: AgentVersion | null; onClose(): void; onDone(): void }) {
  const toast = useToast();
  const submit = useSubmit();
  const [reason, setReason] = useState('');
  useEffect(() => setReason(''), [target]);
  return (
    <Modal
      open={target !== null}
      onClose={onClose}
      title={`Roll back to version ${target?.version ?? ''}?`}
      size="sm"
      footer={
        <>
          <Button onClick={onClose} disabled={submit.busy}>
            Cancel
          </Button>
          <Button
            variant="danger"
            busy={submit.busy}
            disabled={reason.trim() === ''}
            onClick={() =>
              void submit.run(async () => {
                if (!target) return;
                await rollbackTo(agentId, target.version, reason.trim());
                toast.success(`Rolled back to version ${target.version}`);
                onClose();
                onDone();
              })
            }
          >
            Roll back
          </Button>
        </>
      }
    >
      <p>Customers are answered by this version from their next message on. The rollback is recorded with your name and reason.</p>
      <TextAreaField label="Reason" rows={3} required maxLength={1000} value={reason} onValueChange={setReason} />
      <InlineError error={submit.error} />
    </Modal>
  );
}

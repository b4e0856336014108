import { useEffect, useState, type FormEvent } from 'react';
import { getSlaPolicy, PRIORITIES, setSlaPolicy, type Priority, type SlaPolicy } from '../api/triage.js';
import { useAsync } from '../lib/useAsync.js';
import { CardSection } from './CardSection.js';
import { useToast } from './Toasts.js';
import { Button, ErrorState, InlineError, Skeleton } from './ui.js';
import { useSubmit } from './useSubmit.js';
import './supportTeams.css';

const FIELDS = [
  ['firstResponseMinutes', 'First response'],
  ['nextResponseMinutes', 'Next response'],
  ['resolutionMinutes', 'Resolution'],
] as const;
type Field = (typeof FIELDS)[number][0];
type Draft = Record<Priority, Record<Field, string>>;

const toDraft = (policy: SlaPolicy): Draft =>
  Object.fromEntries(PRIORITIES.map((p) => [p, Object.fromEntries(FIELDS.map(([f]) => [f, policy.targets[p][f] === null ? '' : String(policy.targets[p][f])]))])) as Draft;
const fromDraft = (draft: Draft): SlaPolicy['targets'] =>
  Object.fromEntries(PRIORITIES.map((p) => [p, Object.fromEntries(FIELDS.map(([f]) => [f, draft[p][f].trim() ? Number(draft[p][f]) : null]))])) as SlaPolicy['targets'];

/**
 * Settings → SLA: whether targets are measured, and per priority the first-response, next-response and resolution
 * targets in business minutes (empty: not measured). The server checks the numbers (1 to 30 days of minutes).
 */
export function SlaPolicySettings() {
  const toast = useToast();
  const policy = useAsync((signal) => getSlaPolicy({ signal }), []);
  const [enabled, setEnabled] = useState(false);
  const [draft, setDraft] = useState<Draft | null>(null);
  const save = useSubmit();
  useEffect(() => {
    if (policy.data) {
      setEnabled(policy.data.enabled);
      setDraft(toDraft(policy.data));
    }
  }, [policy.data]);

  function onSave(event: FormEvent) {
    event.preventDefault();
    if (!draft) return;
    void save.run(async () => {
      const saved = await setSlaPolicy({ enabled, targets: fromDraft(draft) });
      policy.setData(saved);
      toast.success(saved.enabled ? 'SLA targets saved' : 'SLA targets saved (not measured while off)');
    });
  }

  return (
    <CardSection title="SLA targets">
      <p className="muted small">Per priority, in business minutes (counted only while your business hours are open). Leave a box empty not to measure it.</p>
      {policy.error && !policy.data ? (
        <ErrorState error={policy.error} onRetry={policy.reload} title="Could not load the SLA policy" />
      ) : !draft ? (
        <Skeleton rows={4} label="Loading the SLA policy…" />
      ) : (
        <form onSubmit={onSave} data-testid="sla-form">
          <label className="bell-optin">
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} data-testid="sla-enabled" /> Measure SLA targets
          </label>
          <div className="sla-grid" role="group" aria-label="SLA targets per priority">
            {PRIORITIES.map((p) => (
              <fieldset key={p} className="sla-priority">
                <legend>{p[0]!.toUpperCase() + p.slice(1)}</legend>
                {FIELDS.map(([f, label]) => (
                  <label key={f} className="sla-field">
                    <span className="small">{label}</span>
                    <input
                      className="input"
                      inputMode="numeric"
                      pattern="[0-9]*"
                      maxLength={5}
                      value={draft[p][f]}
                      data-testid={`sla-${p}-${f}`}
                      aria-label={`${p} ${label} (minutes)`}
                      onChange={(e) => setDraft((d) => (d ? { ...d, [p]: { ...d[p], [f]: e.target.value } } : d))}
                    />
                  </label>
                ))}
              </fieldset>
            ))}
          </div>
          <Button type="submit" variant="primary" busy={save.busy}>
            Save SLA targets
          </Button>
          <InlineError error={save.error} />
        </form>
      )}
    </CardSection>
  );
}

import { useEffect, useState } from 'react';
import type { Conversation } from '../api/types.js';
import { PRIORITIES, setPriority, snoozeConversation, unsnoozeConversation, type Priority } from '../api/triage.js';
import { describeError } from '../api/client.js';
import { formatDateTimeLong } from '../lib/format.js';
import { useToast } from './Toasts.js';
import { Badge, Button, SelectField, type Tone } from './ui.js';
import './triage.css';

const PRIORITY_LABEL: Record<Priority, string> = { urgent: 'Urgent', high: 'High', normal: 'Normal', low: 'Low' };
const PRIORITY_TONE: Record<Priority, Tone> = { urgent: 'danger', high: 'warning', normal: 'neutral', low: 'neutral' };

/** The priority as a chip; normal (most conversations) shows none, so the rows stay quiet. */
export function PriorityBadge({ priority }: { priority: Priority }) {
  if (priority === 'normal') return null;
  return (
    <Badge tone={PRIORITY_TONE[priority]} data-testid="priority" title={`Priority: ${PRIORITY_LABEL[priority]}`}>
      {PRIORITY_LABEL[priority]}
    </Badge>
  );
}

/** The current time, again every `everyMs`: what a timer counts against. */
export function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** "2h 5m", "45m", "3d 4h": a duration at a glance. */
export function formatSpan(ms: number): string {
  const minutes = Math.max(1, Math.round(Math.abs(ms) / 60_000));
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h${minutes % 60 ? ` ${minutes % 60}m` : ''}`;
  return `${Math.floor(hours / 24)}d${hours % 24 ? ` ${hours % 24}h` : ''}`;
}

const SLA_LABEL = { firstResponse: 'First response', nextResponse: 'Next response', resolution: 'Resolution' } as const;

/** The running SLA clocks: "First response due in 3h 55m" or "overdue by 5m", the nearest first. */
export function SlaTimer({ sla, compact = false }: { sla: Conversation['sla']; compact?: boolean }) {
  const now = useNow();
  if (!sla) return null;
  const clocks = [
    ...(sla.response ? [{ kind: sla.response.kind, dueAt: sla.response.dueAt }] : []),
    ...(sla.resolution ? [{ kind: 'resolution' as const, dueAt: sla.resolution.dueAt }] : []),
  ];
  const shown = compact ? clocks.slice(0, 1) : clocks;
  return (
    <>
      {shown.map(({ kind, dueAt }) => {
        const left = Date.parse(dueAt) - now;
        const overdue = left < 0;
        return (
          <Badge key={kind} tone={overdue ? 'danger' : left < 30 * 60_000 ? 'warning' : 'info'} data-testid={`sla-${kind}`} title={`${SLA_LABEL[kind]} due ${formatDateTimeLong(dueAt)} (business hours)`}>
            {compact ? 'SLA' : SLA_LABEL[kind]} {overdue ? `overdue by ${formatSpan(left)}` : `due in ${formatSpan(left)}`}
          </Badge>
        );
      })}
    </>
  );
}

const SNOOZES: { value: string; label: string; until: (now: Date) => Date }[] = [
  { value: '1h', label: 'For 1 hour', until: (now) => new Date(now.getTime() + 3_600_000) },
  { value: '4h', label: 'For 4 hours', until: (now) => new Date(now.getTime() + 4 * 3_600_000) },
  {
    value: 'tomorrow',
    label: 'Until tomorrow 9:00',
    until: (now) => {
      const d = new Date(now);
      d.setDate(d.getDate() + 1);
      d.setHours(9, 0, 0, 0);
      return d;
    },
  },
  { value: 'week', label: 'For a week', until: (now) => new Date(now.getTime() + 7 * 86_400_000) },
];

/** Priority and snooze controls of the conversation header. */
export function TriageControls({ conversation, onChanged }: { conversation: Conversation; onChanged: (conversation: Conversation) => void }) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<Conversation>, done: string) => {
    setBusy(true);
    try {
      onChanged(await work());
      toast.success(done);
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setBusy(false);
    }
  };
  const closed = conversation.session?.state === 'closed';
  return (
    <div className="triage" role="group" aria-label="Triage">
      <SelectField
        label="Priority"
        className="triage-field"
        value={conversation.priority}
        disabled={busy}
        data-testid="priority-select"
        onValueChange={(v) => void run(() => setPriority(conversation.id, v as Priority), `Priority set to ${PRIORITY_LABEL[v as Priority].toLowerCase()}`)}
      >
        {PRIORITIES.map((p) => (
          <option key={p} value={p}>
            {PRIORITY_LABEL[p]}
          </option>
        ))}
      </SelectField>
      {conversation.snoozedUntil ? (
        <span className="triage-snoozed" data-testid="snoozed">
          <Badge tone="info" title={formatDateTimeLong(conversation.snoozedUntil)}>
            Snoozed until {formatDateTimeLong(conversation.snoozedUntil)}
          </Badge>
          <Button size="sm" disabled={busy} onClick={() => void run(() => unsnoozeConversation(conversation.id), 'Back in the open queues')} data-testid="unsnooze">
            Unsnooze
          </Button>
        </span>
      ) : (
        !closed && (
          <SelectField
            label="Snooze"
            className="triage-field"
            value=""
            disabled={busy}
            data-testid="snooze-select"
            onValueChange={(v) => {
              const choice = SNOOZES.find((s) => s.value === v);
              if (choice) void run(() => snoozeConversation(conversation.id, choice.until(new Date())), `Snoozed: ${choice.label.toLowerCase()}`);
            }}
          >
            <option value="">Not snoozed</option>
            {SNOOZES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </SelectField>
        )
      )}
      <SlaTimer sla={conversation.sla} />
    </div>
  );
}

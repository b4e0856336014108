import { useState, type FormEvent } from 'react';
import { getBusinessHours, setBusinessHours, WEEKDAYS, type BusinessHours, type BusinessHoursInput, type Opening, type Weekday } from '../api/businessHours.js';
import { CardSection } from '../components/CardSection.js';
import { useToast } from '../components/Toasts.js';
import { Badge, Button, ErrorState, InlineError, Skeleton, Switch, TextAreaField, TextField, Time } from '../components/ui.js';
import { useSubmit } from '../components/useSubmit.js';
import { useAsync } from '../lib/useAsync.js';

/** What the form edits: each day's openings as text ("09:00-12:00, 13:00-17:00"), holidays one a line. */
interface Draft {
  enabled: boolean;
  days: Record<Weekday, string>;
  holidays: string;
}

const dayText = (openings: Opening[]) => openings.map((o) => `${o.from}-${o.to}`).join(', ');
const draftOf = (h: BusinessHours): Draft => ({
  enabled: h.enabled,
  days: Object.fromEntries(WEEKDAYS.map((d) => [d, dayText(h.weekly[d])])) as Record<Weekday, string>,
  holidays: h.holidays.map((x) => (x.name ? `${x.date} ${x.name}` : x.date)).join('\n'),
});

/** The form's text as the API's shape; the server checks the times and overlaps and says what is wrong. */
function inputOf(draft: Draft): BusinessHoursInput {
  const weekly = Object.fromEntries(
    WEEKDAYS.map((d) => [
      d,
      draft.days[d]
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)
        .map((part) => {
          const [from = '', to = ''] = part.split(/\s*[-–]\s*/);
          return { from, to };
        }),
    ]),
  ) as Record<Weekday, Opening[]>;
  const holidays = draft.holidays
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [date = '', ...name] = line.split(/\s+/);
      return name.length ? { date, name: name.join(' ') } : { date };
    });
  return { enabled: draft.enabled, weekly, holidays };
}

const label = (d: Weekday) => d[0]!.toUpperCase() + d.slice(1);

/**
 * Settings → Business hours: when people are there. Outside them the AI still answers, a handoff tells the
 * customer when the team is back, and the conversation waits in "Needs human" marked "After hours".
 */
export function BusinessHoursSettings() {
  const toast = useToast();
  const current = useAsync((signal) => getBusinessHours({ signal }), []);
  const [draft, setDraft] = useState<Draft | null>(null);
  const save = useSubmit();
  const shown = draft ?? (current.data ? draftOf(current.data) : null);

  function onSave(event: FormEvent) {
    event.preventDefault();
    if (!shown) return;
    void save.run(async () => {
      const saved = await setBusinessHours(inputOf(shown));
      current.setData(saved);
      setDraft(null);
      toast.success(saved.enabled ? 'Business hours saved' : 'Business hours switched off');
    });
  }
  const edit = (change: Partial<Draft>) => shown && setDraft({ ...shown, ...change });

  return (
    <CardSection title="Business hours">
      <p className="muted small">
        In the company timezone{current.data ? ` (${current.data.timezone})` : ''}. Outside these hours the AI still answers; when it hands off it tells the
        customer when your team is back (each agent’s after-hours message), and the conversation waits in “Needs human” as “After hours”. One opening per
        range, e.g. <code className="code-inline">09:00-12:00, 13:00-17:00</code>; leave a day empty when closed.
      </p>
      {current.error && current.data === undefined ? (
        <ErrorState error={current.error} onRetry={current.reload} title="Could not load the business hours" />
      ) : !shown || !current.data ? (
        <Skeleton rows={4} />
      ) : (
        <form className="form" onSubmit={onSave} data-testid="business-hours-form">
          <p data-testid="business-hours-status">
            {current.data.openNow ? (
              <Badge tone="success">Open now</Badge>
            ) : (
              <>
                <Badge tone="warning">After hours</Badge>{' '}
                {current.data.nextOpening && (
                  <span className="muted small">
                    Back <Time iso={current.data.nextOpening} />
                  </span>
                )}
              </>
            )}
          </p>
          <Switch label="Use business hours" checked={shown.enabled} onChange={(enabled) => edit({ enabled })} />
          {WEEKDAYS.map((d) => (
            <TextField key={d} label={label(d)} value={shown.days[d]} onValueChange={(v) => edit({ days: { ...shown.days, [d]: v } })} placeholder="Closed" data-testid={`hours-${d}`} />
          ))}
          <TextAreaField
            label="Holidays"
            hint="One a line: a date and an optional name, e.g. 2026-12-25 Christmas. Closed all day."
            rows={3}
            value={shown.holidays}
            onValueChange={(holidays) => edit({ holidays })}
            data-testid="hours-holidays"
          />
          <div className="form-actions">
            <Button type="submit" variant="primary" busy={save.busy} disabled={draft === null}>
              Save business hours
            </Button>
          </div>
          <InlineError error={save.error} />
        </form>
      )}
    </CardSection>
  );
}

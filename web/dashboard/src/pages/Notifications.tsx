import { useState } from 'react';
import { getMyNotifications, setMyNotifications } from '../api/endpoints.js';
import type { NotificationChoices } from '../api/types.js';
import { CardSection } from '../components/CardSection.js';
import { useToast } from '../components/Toasts.js';
import { ErrorState, InlineError, PageHeader, Skeleton, Switch, TextField, Button } from '../components/ui.js';
import { useSubmit } from '../components/useSubmit.js';
import { useAsync } from '../lib/useAsync.js';

/** Every teammate's own email notifications: on assignment, and when a handoff waits longer than they choose. */
export function NotificationsPage() {
  const choices = useAsync((signal) => getMyNotifications({ signal }), []);
  return (
    <>
      <PageHeader title="Notifications" description="The emails you get about conversations. These are your own choices: each teammate sets theirs." />
      {choices.error ? (
        <ErrorState error={choices.error} onRetry={choices.reload} title="Could not load your notifications" />
      ) : choices.data ? (
        <NotificationsForm initial={choices.data} />
      ) : (
        <Skeleton rows={3} label="Loading your notifications…" />
      )}
    </>
  );
}

function NotificationsForm({ initial }: { initial: NotificationChoices }) {
  const toast = useToast();
  const save = useSubmit();
  const [assigned, setAssigned] = useState(initial.assigned);
  const [handoffWaiting, setHandoffWaiting] = useState(initial.handoffWaiting);
  const [minutes, setMinutes] = useState(String(initial.handoffWaitingMinutes));
  const minutesValue = Number(minutes);
  const minutesError = !Number.isInteger(minutesValue) || minutesValue < 1 || minutesValue > 1440 ? 'Use whole minutes from 1 to 1440' : null;

  return (
    <CardSection title="Email me">
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          if (minutesError) return;
          void save.run(async () => {
            await setMyNotifications({ assigned, handoffWaiting, handoffWaitingMinutes: minutesValue });
            toast.success('Notifications saved');
          });
        }}
      >
        {!initial.emailAvailable && (
          <p className="notice notice-warning" data-testid="email-unavailable">
            This service has no email set up (SMTP), so nothing is sent until an operator configures it.
          </p>
        )}
        <Switch label="When a conversation is assigned to me" checked={assigned} onChange={setAssigned} hint="Not when you take it yourself." />
        <Switch
          label="When a handed-off conversation waits for a person"
          checked={handoffWaiting}
          onChange={setHandoffWaiting}
          hint="For conversations assigned to you; owners and admins also hear of those nobody has taken."
        />
        <TextField
          label="After waiting (minutes)"
          type="number"
          inputMode="numeric"
          min={1}
          max={1440}
          value={minutes}
          onValueChange={setMinutes}
          error={minutesError}
          disabled={!handoffWaiting}
        />
        <InlineError error={save.error} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={save.busy}>
            Save
          </Button>
        </div>
      </form>
    </CardSection>
  );
}

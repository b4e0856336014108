import { useEffect, useState, type FormEvent } from 'react';
import { describeError } from '../api/client.js';
import { getAutoAssignment, setAutoAssignment, setMyAvailability } from '../api/endpoints.js';
import type { Availability, Teammate } from '../api/types.js';
import { CardSection } from '../components/CardSection.js';
import { useToast } from '../components/Toasts.js';
import { Badge, Button, ErrorState, InlineError, Skeleton, Switch, TextField } from '../components/ui.js';
import { useSubmit } from '../components/useSubmit.js';
import { useAsync } from '../lib/useAsync.js';

export const AVAILABILITY_LABEL: Record<Availability, string> = { online: 'Online', away: 'Away' };

/** "Online · 2 open": a teammate's availability and load, as the team list and the picker show it. */
export function AvailabilityBadge({ teammate }: { teammate: Pick<Teammate, 'availability' | 'openAssigned'> }) {
  const availability = teammate.availability ?? 'online';
  return (
    <Badge tone={availability === 'online' ? 'success' : 'neutral'} data-testid="availability" data-availability={availability}>
      {AVAILABILITY_LABEL[availability]}
      {teammate.openAssigned !== undefined ? ` · ${teammate.openAssigned} open` : ''}
    </Badge>
  );
}

/** The signed-in teammate's own switch: online (takes conversations) or away. */
export function MyAvailability({ current, onChanged }: { current: Availability | undefined; onChanged: (availability: Availability) => void }) {
  const toast = useToast();
  const [busy, setBusy] = useState<Availability | null>(null);
  async function choose(availability: Availability) {
    if (availability === current) return;
    setBusy(availability);
    try {
      onChanged(await setMyAvailability(availability));
      toast.success(availability === 'online' ? 'You are online: automatic assignment may give you conversations' : 'You are away: automatic assignment skips you');
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setBusy(null);
    }
  }
  return (
    <div className="my-availability" role="group" aria-label="Your availability">
      <span className="muted small">Your availability</span>
      {(['online', 'away'] as const).map((a) => (
        <Button key={a} size="sm" variant={current === a ? 'primary' : 'secondary'} aria-pressed={current === a} busy={busy === a} disabled={busy !== null || current === undefined} onClick={() => void choose(a)} data-testid={`availability-${a}`}>
          {AVAILABILITY_LABEL[a]}
        </Button>
      ))}
    </div>
  );
}

/** Owners and admins: automatic assignment of handed-off conversations, round-robin with a capacity. */
export function AutoAssignmentSettings() {
  const toast = useToast();
  const settings = useAsync((signal) => getAutoAssignment({ signal }), []);
  const [enabled, setEnabled] = useState(false);
  const [capacity, setCapacity] = useState('3');
  const save = useSubmit();
  useEffect(() => {
    if (!settings.data) return;
    setEnabled(settings.data.enabled);
    setCapacity(String(settings.data.capacity));
  }, [settings.data]);

  const parsed = Number(capacity);
  const valid = Number.isInteger(parsed) && parsed >= 1 && parsed <= 100;
  const changed = settings.data && (enabled !== settings.data.enabled || parsed !== settings.data.capacity);
  function onSave(event: FormEvent) {
    event.preventDefault();
    if (!valid) return;
    void save.run(async () => {
      settings.setData(await setAutoAssignment({ enabled, capacity: parsed }));
      toast.success(enabled ? `Automatic assignment is on: up to ${parsed} open conversation${parsed === 1 ? '' : 's'} each` : 'Automatic assignment is off');
    });
  }

  return (
    <CardSection title="Automatic assignment">
      {settings.loading && !settings.data ? (
        <Skeleton rows={2} label="Loading the assignment settings…" />
      ) : settings.error && !settings.data ? (
        <ErrorState error={settings.error} onRetry={settings.reload} title="Could not load the assignment settings" />
      ) : (
        <form className="auto-assignment-form" onSubmit={onSave} data-testid="auto-assignment-form">
          <Switch
            label="Assign handed-off conversations automatically"
            checked={enabled}
            onChange={setEnabled}
            hint="Round-robin among online teammates. When everyone is full, the conversation waits in “Needs human” and goes to the first teammate who frees up (closing or unassigning a conversation frees a place)."
          />
          <TextField
            label="Open conversations per teammate"
            type="number"
            min={1}
            max={100}
            step={1}
            required
            value={capacity}
            onValueChange={setCapacity}
            error={valid ? undefined : 'A whole number from 1 to 100'}
          />
          <Button type="submit" variant="primary" busy={save.busy} disabled={!valid || !changed}>
            Save
          </Button>
          <InlineError error={save.error} />
        </form>
      )}
    </CardSection>
  );
}

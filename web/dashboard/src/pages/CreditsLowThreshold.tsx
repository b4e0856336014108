import { useState, type FormEvent } from 'react';
import { getCreditsLowThreshold, setCreditsLowThreshold } from '../api/webhookEndpoints.js';
import { CardSection } from '../components/CardSection.js';
import { useToast } from '../components/Toasts.js';
import { Button, ErrorState, InlineError, Skeleton, TextField } from '../components/ui.js';
import { useSubmit } from '../components/useSubmit.js';
import { formatMicros } from '../lib/format.js';
import { useAsync } from '../lib/useAsync.js';
import { dollarsToMicros } from '../lib/webhookEvents.js';

/** The balance under which the company's endpoints get `credits.low` (once each time it falls below). */
export function CreditsLowThreshold({ manage }: { manage: boolean }) {
  const toast = useToast();
  const current = useAsync((signal) => getCreditsLowThreshold({ signal }), []);
  const [typed, setTyped] = useState<string | null>(null);
  const save = useSubmit();
  const shown = typed ?? (current.data === undefined ? '' : (current.data / 1_000_000).toString());

  function onSave(event: FormEvent) {
    event.preventDefault();
    const micros = dollarsToMicros(shown);
    if (micros === null) return save.setError('Enter an amount in dollars, e.g. 5 or 0.50.');
    void save.run(async () => {
      current.setData(await setCreditsLowThreshold(micros));
      setTyped(null);
      toast.success(`credits.low below ${formatMicros(micros)}`);
    });
  }

  return (
    <CardSection title="When credits run low">
      {current.loading && current.data === undefined ? (
        <Skeleton rows={1} />
      ) : current.error && current.data === undefined ? (
        <ErrorState error={current.error} onRetry={current.reload} title="Could not load the threshold" />
      ) : manage ? (
        <form className="inline-form" onSubmit={onSave}>
          <TextField
            label="Send credits.low below (USD)"
            inputMode="decimal"
            value={shown}
            onValueChange={setTyped}
            hint="0 sends only credits.exhausted."
            data-testid="credits-low-threshold"
          />
          <Button type="submit" busy={save.busy} disabled={typed === null}>
            Save threshold
          </Button>
        </form>
      ) : (
        <p>
          Endpoints get <code className="code-inline">credits.low</code> when the balance falls below {formatMicros(current.data)}.
        </p>
      )}
      <InlineError error={save.error} />
    </CardSection>
  );
}

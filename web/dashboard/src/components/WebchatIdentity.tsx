// Web chat identity verification: the secret the company's site signs its visitors with (generated here, shown
// once) and whether a signature is checked. docs/api/webchat.md#identity-verification has the site's side.
import { useState } from 'react';
import { describeError } from '../api/client.js';
import { rotateIdentitySecret } from '../api/endpoints.js';
import type { IdentityVerification, Integration } from '../api/types.js';
import { ShownOnceDialog } from './ShownOnceDialog.js';
import { useToast } from './Toasts.js';
import { Button, SelectField } from './ui.js';

const MODES: Record<IdentityVerification, string> = {
  off: 'Off: visitors are anonymous',
  optional: 'Optional: trust a valid signature, ignore a wrong one',
  required: 'Required: only signed-in visitors can chat',
};

export function WebchatIdentity({
  integration,
  mode,
  onModeChange,
}: {
  integration: Integration;
  mode: IdentityVerification;
  onModeChange: (mode: IdentityVerification) => void;
}) {
  const toast = useToast();
  const [hasSecret, setHasSecret] = useState(integration.hasIdentitySecret ?? false);
  const [shown, setShown] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function generate() {
    setBusy(true);
    try {
      const result = await rotateIdentitySecret(integration.id);
      setHasSecret(true);
      setShown(result.identitySecret);
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="webchat-identity" data-testid="webchat-identity">
      <SelectField
        label="Identity verification"
        value={mode}
        onValueChange={(value) => onModeChange(value as IdentityVerification)}
        disabled={!hasSecret}
        hint={
          hasSecret
            ? 'Your site signs each signed-in visitor (HMAC-SHA256 of the user id, and email) so actions can trust who asks.'
            : 'Generate the identity secret first; your server signs each signed-in visitor with it.'
        }
        data-testid="identity-verification"
      >
        {(Object.keys(MODES) as IdentityVerification[]).map((m) => (
          <option key={m} value={m}>
            {MODES[m]}
          </option>
        ))}
      </SelectField>
      <div className="button-row">
        <Button busy={busy} onClick={() => void generate()} data-testid="generate-identity-secret">
          {hasSecret ? 'Rotate identity secret' : 'Generate identity secret'}
        </Button>
      </div>
      <ShownOnceDialog
        value={shown}
        onClose={() => setShown(null)}
        title="Your web chat identity secret"
        warning="Copy this secret to your server now. It won’t be shown again; rotating it makes the old one stop working at once."
        what="Identity secret"
        valueTestId="identity-secret-value"
      >
        <p className="small">
          Your server passes <code className="code-inline">data-user-id</code>, <code className="code-inline">data-user-email</code> and{' '}
          <code className="code-inline">data-user-hash</code> = hex HMAC-SHA256(secret, user id + “\n” + email) to the widget. Never put the secret in the page.
        </p>
      </ShownOnceDialog>
    </div>
  );
}

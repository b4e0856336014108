import { useEffect, useState } from 'react';
import { describeError } from '../api/client.js';
import { getNoteSharing, setNoteSharing } from '../api/notes.js';
import { CardSection } from './CardSection.js';
import { useToast } from './Toasts.js';

/** Settings → Internal notes: whether the AI agents read the team's notes (off by default; owners and admins). */
export function NoteSharingSettings() {
  const toast = useToast();
  const [shared, setShared] = useState<boolean | null>(null);
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    getNoteSharing().then((n) => setShared(n.shareWithAi), () => setShared(null));
  }, []);

  async function change(on: boolean) {
    // Shown at once, put back if the server refuses.
    setShared(on);
    setSaving(true);
    try {
      setShared((await setNoteSharing(on)).shareWithAi);
      toast.success(on ? 'AI agents now read internal notes' : 'Internal notes stay with the team');
    } catch (error) {
      setShared(!on);
      toast.error(describeError(error));
    } finally {
      setSaving(false);
    }
  }

  return (
    <CardSection title="Internal notes">
      <label className="bell-optin">
        <input type="checkbox" checked={shared ?? false} disabled={shared === null || saving} onChange={(e) => void change(e.target.checked)} /> Let the AI agents read internal notes as
        context
      </label>
      <p className="field-hint">Off: notes are for your team only. Notes are never sent to the customer either way.</p>
    </CardSection>
  );
}

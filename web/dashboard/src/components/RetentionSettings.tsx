import { useEffect, useState, type FormEvent } from 'react';
import { describeError } from '../api/client.js';
import { getRetention, setRetention } from '../api/support.js';
import { useAuth } from '../auth.js';
import { CardSection } from './CardSection.js';
import { useToast } from './Toasts.js';
import { Button } from './ui.js';

/**
 * Settings → Data retention (owners and admins): how many days closed conversations are kept before they and
 * their customer are erased for good (the same erasure as the customer panel's). Empty keeps everything.
 */
export function RetentionSettings() {
  const { me } = useAuth();
  const toast = useToast();
  const [days, setDays] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const role = me?.user.role;
  const manager = role === 'owner' || role === 'admin';
  useEffect(() => {
    if (!manager) return;
    getRetention().then((r) => setDays(r.conversationDays === null ? '' : String(r.conversationDays)), () => setDays(null));
  }, [manager]);
  if (!manager) return null;

  async function save(event: FormEvent) {
    event.preventDefault();
    const value = days?.trim() ?? '';
    const parsed = value === '' ? null : Number(value);
    if (parsed !== null && (!Number.isInteger(parsed) || parsed < 1 || parsed > 3650)) {
      toast.error('Days: a whole number from 1 to 3650, or empty to keep everything');
      return;
    }
    setSaving(true);
    try {
      const saved = await setRetention(parsed);
      setDays(saved.conversationDays === null ? '' : String(saved.conversationDays));
      toast.success(saved.conversationDays === null ? 'Conversations are kept forever' : `Conversations closed more than ${saved.conversationDays} days ago will be erased`);
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setSaving(false);
    }
  }

  return (
    <CardSection title="Data retention">
      <form onSubmit={(e) => void save(e)}>
        <label>
          Erase conversations closed more than this many days ago
          <input type="number" min={1} max={3650} placeholder="Keep forever" value={days ?? ''} disabled={days === null || saving} onChange={(e) => setDays(e.target.value)} data-testid="retention-days" />
        </label>
        <p className="field-hint">Each such conversation and its customer's personal data are erased for good, as with "Erase personal data". Counts and analytics stay. Empty: keep everything.</p>
        <Button type="submit" size="sm" busy={saving} disabled={days === null} data-testid="retention-save">
          Save
        </Button>
      </form>
    </CardSection>
  );
}

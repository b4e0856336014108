import { useState } from 'react';
import { describeError } from '../api/client.js';
import { setConversationTeam, type SupportTeam } from '../api/supportTeams.js';
import type { Conversation } from '../api/types.js';
import { useToast } from './Toasts.js';
import { SelectField } from './ui.js';

/** The conversation header's Team select (shown once the company has teams): moves it to a team, or to none. */
export function ConversationTeamControl({ conversation, teams, onChanged }: { conversation: Conversation; teams: SupportTeam[]; onChanged: (conversation: Conversation) => void }) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  async function change(teamId: string) {
    setBusy(true);
    try {
      onChanged(await setConversationTeam(conversation.id, teamId || null));
      toast.success(teamId ? `Moved to the team ${teams.find((t) => t.id === teamId)?.name ?? ''}` : 'No longer for a team');
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="triage" role="group" aria-label="Team">
      <SelectField label="Team" className="triage-field" value={conversation.teamId ?? ''} disabled={busy} data-testid="team-select" onValueChange={(v) => void change(v)}>
        <option value="">No team</option>
        {teams.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </SelectField>
    </div>
  );
}

// An action call that waits: for a teammate's approval (Approve / Refuse with a reason) or for the customer's
// yes (shown, not decided here). What will be called, with the arguments as recorded (identity values redacted).
import { useId, useState, type FormEvent } from 'react';
import { describeError } from '../api/client.js';
import { approveActionCall, refuseActionCall } from '../api/endpoints.js';
import type { Conversation, PendingAction } from '../api/types.js';
import { useAuth } from '../auth.js';
import { Button, Time } from './ui.js';
import { useToast } from './Toasts.js';
import './pendingAction.css';

const argumentText = (value: string | number | boolean) => (typeof value === 'string' ? value : JSON.stringify(value));

export function PendingActionCard({ conversationId, pending, onDecided }: { conversationId: string; pending: PendingAction; onDecided: (conversation: Conversation) => void }) {
  const toast = useToast();
  const role = useAuth().me?.user.role;
  const reasonId = useId();
  const [busy, setBusy] = useState<'approve' | 'refuse' | null>(null);
  const [refusing, setRefusing] = useState(false);
  const [reason, setReason] = useState('');
  const approval = pending.mode === 'approve';
  const mayDecide = !pending.approverRoles || (role !== undefined && pending.approverRoles.includes(role));

  async function decide(decision: 'approve' | 'refuse', event?: FormEvent) {
    event?.preventDefault();
    setBusy(decision);
    try {
      onDecided(decision === 'approve' ? await approveActionCall(conversationId, pending.callId) : await refuseActionCall(conversationId, pending.callId, reason));
      toast.success(decision === 'approve' ? `Approved: the agent calls ${pending.actionName}` : `Refused: ${pending.actionName} is not called`);
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setBusy(null);
    }
  }

  const args = Object.entries(pending.arguments);
  return (
    <section className="pending-action" data-testid="pending-action" aria-label={approval ? 'Waiting for approval' : 'Waiting for the customer to confirm'}>
      <h3 className="section-title">
        {approval ? 'Waiting for approval' : 'Waiting for the customer to confirm'}{' '}
        <span className="muted small">
          · until <Time iso={pending.expiresAt} />
        </span>
      </h3>
      <p>
        The agent wants to call <code data-testid="pending-action-name">{pending.actionName}</code>
        {args.length === 0 ? ' without arguments.' : ' with:'}
      </p>
      {args.length > 0 && (
        <dl data-testid="pending-action-arguments">
          {args.map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>{argumentText(value)}</dd>
            </div>
          ))}
        </dl>
      )}
      {approval && pending.holdingReply && <p className="muted small">The customer was told: “{pending.holdingReply}”</p>}
      {!approval && pending.prompt && <p className="muted small">The customer was asked: “{pending.prompt}”</p>}
      {approval && !mayDecide && <p className="muted small">Only {pending.approverRoles?.join(' or ')} teammates may decide this call.</p>}
      {approval && mayDecide && !refusing && (
        <div className="button-row">
          <Button variant="primary" busy={busy === 'approve'} disabled={busy !== null} onClick={() => void decide('approve')} data-testid="approve-action">
            Approve
          </Button>
          <Button busy={false} disabled={busy !== null} onClick={() => setRefusing(true)} data-testid="refuse-action">
            Refuse…
          </Button>
        </div>
      )}
      {approval && mayDecide && refusing && (
        <form className="refuse-form" onSubmit={(event) => void decide('refuse', event)}>
          <label htmlFor={reasonId}>Reason (optional, the agent reads it)</label>
          <input id={reasonId} value={reason} maxLength={500} onChange={(event) => setReason(event.target.value)} data-testid="refuse-reason" />
          <div className="button-row">
            <Button type="submit" variant="danger" busy={busy === 'refuse'} disabled={busy !== null} data-testid="confirm-refuse">
              Refuse
            </Button>
            <Button disabled={busy !== null} onClick={() => setRefusing(false)}>
              Cancel
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}

import { useState } from 'react';
import { describeError } from '../api/client.js';
import { assignConversation, resolveConversation } from '../api/endpoints.js';
import type { Conversation, Teammate } from '../api/types.js';
import { INBOX_SHORTCUTS } from '../lib/shortcuts.js';
import { teammateName } from '../lib/team.js';
import { AssignDialog } from './AssignDialog.js';
import { useToast } from './Toasts.js';
import { Button, ConfirmDialog, Modal } from './ui.js';
import './inbox.css';

const conversations = (n: number) => `${n} conversation${n === 1 ? '' : 's'}`;

/** Runs `action` on each conversation in turn (the server serialises each one's stream anyway); what failed. */
async function eachOf(ids: string[], action: (id: string) => Promise<Conversation>, done: (c: Conversation) => void): Promise<unknown[]> {
  const failures: unknown[] = [];
  for (const id of ids) {
    try {
      done(await action(id));
    } catch (error) {
      failures.push(error);
    }
  }
  return failures;
}

/**
 * What to do with the selected rows: assign them all to one teammate, or close them all. Shown while at least
 * one row is selected.
 */
export function BulkBar({
  selected,
  loaded,
  onSelectAll,
  onClear,
  onChange,
}: {
  selected: Conversation[];
  loaded: number;
  onSelectAll: () => void;
  onClear: () => void;
  onChange: (conversation: Conversation) => void;
}) {
  const toast = useToast();
  const [picking, setPicking] = useState(false);
  const [confirmClose, setConfirmClose] = useState(false);
  const [busy, setBusy] = useState<'assign' | 'close' | null>(null);
  const n = selected.length;
  const open = selected.filter((c) => c.session?.state !== 'closed');

  async function run(kind: 'assign' | 'close', ids: string[], action: (id: string) => Promise<Conversation>, success: string) {
    setBusy(kind);
    const failures = await eachOf(ids, action, onChange);
    setBusy(null);
    setPicking(false);
    setConfirmClose(false);
    if (failures.length === 0) {
      toast.success(success);
      onClear();
    } else toast.error(`${failures.length} of ${ids.length} failed: ${describeError(failures[0])}`);
  }
  const assignAll = (teammate: Teammate) =>
    void run(
      'assign',
      selected.map((c) => c.id),
      (id) => assignConversation(id, teammate.id),
      `${conversations(n)} assigned to ${teammateName(teammate)}`,
    );
  const closeAll = () =>
    void run(
      'close',
      open.map((c) => c.id),
      (id) => resolveConversation(id, ''),
      `${conversations(open.length)} closed`,
    );

  return (
    <div className="bulk-bar" role="toolbar" aria-label="Selected conversations" data-testid="bulk-bar">
      <span className="bulk-count" data-testid="bulk-count">
        {n} selected
      </span>
      <Button size="sm" onClick={() => setPicking(true)} busy={busy === 'assign'} disabled={busy !== null} data-testid="bulk-assign">
        Assign…
      </Button>
      <Button size="sm" variant="danger" onClick={() => setConfirmClose(true)} busy={busy === 'close'} disabled={busy !== null || open.length === 0} data-testid="bulk-close">
        Close
      </Button>
      {n < loaded && (
        <Button size="sm" variant="ghost" onClick={onSelectAll} disabled={busy !== null}>
          Select all {loaded}
        </Button>
      )}
      <Button size="sm" variant="ghost" onClick={onClear} disabled={busy !== null}>
        Clear
      </Button>
      <AssignDialog open={picking} title={`Assign ${conversations(n)}`} busy={busy === 'assign'} onPick={assignAll} onClose={() => setPicking(false)} />
      <ConfirmDialog
        open={confirmClose}
        title={`Close ${conversations(open.length)}?`}
        message={<p>Their AI sessions end and the AI stops answering these customers. Each can be reopened later, and a new customer message starts a new session.</p>}
        confirmLabel={`Close ${conversations(open.length)}`}
        busy={busy === 'close'}
        onConfirm={closeAll}
        onCancel={() => setConfirmClose(false)}
      />
    </div>
  );
}

/** The inbox's keyboard shortcuts, behind "?" (and the header's button). */
export function ShortcutHelp({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Modal open={open} onClose={onClose} title="Keyboard shortcuts" size="sm" footer={<Button onClick={onClose}>Done</Button>}>
      <dl className="shortcut-list" data-testid="shortcut-help">
        {INBOX_SHORTCUTS.map(({ key, does }) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{does}</dd>
          </div>
        ))}
      </dl>
      <p className="muted small">Shortcuts work when the cursor is not in a text field.</p>
    </Modal>
  );
}

import { useState, type FormEvent } from 'react';
import { CANNED_TEXT_MAX, createCannedReply, deleteCannedReply, listAllCannedReplies, updateCannedReply, type CannedReply } from '../api/support.js';
import { CardSection } from '../components/CardSection.js';
import { useToast } from '../components/Toasts.js';
import { DataTable, RowDangerButton } from '../components/DataTable.js';
import { Button, ConfirmDialog, EmptyState, InlineError, ListState, PageHeader, TextAreaField, TextField } from '../components/ui.js';
import { useConfirmedDelete } from '../components/useConfirmedDelete.js';
import { useSubmit } from '../components/useSubmit.js';
import { useAsync } from '../lib/useAsync.js';

/** The company's canned replies: what `/shortcut` inserts in a conversation's reply box. */
export function CannedRepliesPage() {
  const toast = useToast();
  const replies = useAsync((signal) => listAllCannedReplies({ signal }), []);
  const [editing, setEditing] = useState<CannedReply | null>(null);
  const deletion = useConfirmedDelete(async (reply: CannedReply) => {
    await deleteCannedReply(reply.id);
    replies.setData((list) => list?.filter((r) => r.id !== reply.id));
    toast.success(`/${reply.shortcut} deleted`);
  });
  const sorted = (list: CannedReply[]) => [...list].sort((a, b) => a.shortcut.localeCompare(b.shortcut));

  return (
    <>
      <PageHeader title="Canned replies" description="Ready-made answers: type / and the shortcut in a conversation's reply box to insert one." />
      <div className="two-col">
        <CardSection title="Replies">
          <ListState list={replies} items={replies.data} loadingLabel="Loading canned replies…" skeletonRows={4} errorTitle="Could not load the canned replies" empty={<EmptyState title="No canned replies yet — add greetings, opening hours or return instructions" />}>
            <DataTable columns={['Shortcut', 'Title', 'Text']} actions>
              {replies.data?.map((reply) => (
                <tr key={reply.id} data-testid="canned-reply-row">
                  <td className="nowrap">
                    <code className="code-inline">/{reply.shortcut}</code>
                  </td>
                  <td className="wrap">{reply.title}</td>
                  <td className="wrap">{reply.text}</td>
                  <td className="actions">
                    <Button size="sm" variant="ghost" onClick={() => setEditing(reply)} aria-label={`Edit /${reply.shortcut}`}>
                      Edit
                    </Button>
                    <RowDangerButton onClick={() => deletion.ask(reply)} label={`Delete /${reply.shortcut}`}>
                      Delete
                    </RowDangerButton>
                  </td>
                </tr>
              ))}
            </DataTable>
          </ListState>
        </CardSection>
        <CannedReplyForm
          key={editing?.id ?? 'new'}
          editing={editing}
          onCancel={() => setEditing(null)}
          onSaved={(saved) => {
            replies.setData((list) => sorted([...(list ?? []).filter((r) => r.id !== saved.id), saved]));
            setEditing(null);
          }}
        />
      </div>
      <ConfirmDialog {...deletion.dialog} title="Delete this canned reply?" message={<p>/{deletion.target?.shortcut} will no longer be offered in the reply box.</p>} confirmLabel="Delete" />
    </>
  );
}

function CannedReplyForm({ editing, onSaved, onCancel }: { editing: CannedReply | null; onSaved: (r: CannedReply) => void; onCancel: () => void }) {
  const toast = useToast();
  const [shortcut, setShortcut] = useState(editing?.shortcut ?? '');
  const [title, setTitle] = useState(editing?.title ?? '');
  const [text, setText] = useState(editing?.text ?? '');
  const save = useSubmit();

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void save.run(async () => {
      const input = { shortcut: shortcut.trim(), title: title.trim(), text: text.trim() };
      const saved = editing ? await updateCannedReply(editing.id, input) : await createCannedReply(input);
      onSaved(saved);
      toast.success(`/${saved.shortcut} saved`);
      if (!editing) {
        setShortcut('');
        setTitle('');
        setText('');
      }
    });
  }

  return (
    <CardSection title={editing ? `Edit /${editing.shortcut}` : 'Add a canned reply'}>
      <form className="form" onSubmit={onSubmit}>
        <TextField label="Shortcut" required value={shortcut} onValueChange={setShortcut} placeholder="e.g. hours" hint="Lower-case letters, digits, - and _; typed after /" data-testid="canned-shortcut" />
        <TextField label="Title" required value={title} onValueChange={setTitle} placeholder="e.g. Opening hours" data-testid="canned-title" />
        <TextAreaField label="Text" required rows={5} value={text} onValueChange={setText} maxLength={CANNED_TEXT_MAX} placeholder="The reply, as the customer will read it" data-testid="canned-text" />
        <InlineError error={save.error} />
        <div className="form-actions">
          {editing && (
            <Button type="button" onClick={onCancel}>
              Cancel
            </Button>
          )}
          <Button type="submit" variant="primary" busy={save.busy} disabled={!shortcut.trim() || !title.trim() || !text.trim()} data-testid="canned-save">
            {editing ? 'Save' : 'Add reply'}
          </Button>
        </div>
      </form>
    </CardSection>
  );
}

import { useId, useRef, useState, type FormEvent } from 'react';
import { describeError, newIdempotencyKey } from '../api/client.js';
import { addNote } from '../api/notes.js';
import { useToast } from './Toasts.js';
import { Button } from './ui.js';

/** The internal-note composer under the reply box: for the team only, @name mentions a teammate. */
export function NoteBox({ conversationId, onAdded }: { conversationId: string; onAdded: () => void }) {
  const toast = useToast();
  const [text, setText] = useState('');
  const [saving, setSaving] = useState(false);
  const id = useId();
  // The text last tried and its key: trying the same note again after a failure records it once.
  const attempt = useRef<{ text: string; key: string } | null>(null);

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    const value = text.trim();
    if (!value || saving) return;
    setSaving(true);
    try {
      if (attempt.current?.text !== value) attempt.current = { text: value, key: newIdempotencyKey() };
      await addNote(conversationId, value, attempt.current.key);
      attempt.current = null;
      setText('');
      toast.success('Note added');
      onAdded();
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form className="note-box" onSubmit={submit}>
      <label htmlFor={id} className="field-label">
        Internal note
      </label>
      <textarea
        id={id}
        className="input textarea"
        rows={2}
        maxLength={4000}
        value={text}
        placeholder="Only your team sees this. @name mentions a teammate."
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void submit();
        }}
      />
      <div className="reply-foot">
        <span className="field-hint">Never sent to the customer.</span>
        <Button type="submit" busy={saving} disabled={!text.trim()}>
          Add note
        </Button>
      </div>
    </form>
  );
}

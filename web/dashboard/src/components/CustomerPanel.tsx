import { useEffect, useId, useState, type FormEvent } from 'react';
import { ApiError, describeError } from '../api/client.js';
import { CustomerIds } from './conversation.js';
import { CUSTOMER_NOTE_MAX, CUSTOMER_TAGS_MAX, eraseCustomer, exportCustomer, getCustomer, listCustomerConversations, setCustomerNote, setCustomerTags, type Customer, type CustomerConversation } from '../api/support.js';
import { countOf } from '../lib/format.js';
import { Link } from '../lib/router.js';
import { useAsync } from '../lib/useAsync.js';
import { useToast } from './Toasts.js';
import { UnsavedChangesGuard } from './UnsavedChangesGuard.js';
import { Badge, Button, ConfirmDialog, InlineError, Skeleton, Time } from './ui.js';
import { useAuth } from '../auth.js';
import './support.css';

/**
 * The customer behind a conversation, next to it: what the channel told us (name, phone, email, platform ids),
 * the team's note and tags (editable), and the customer's conversations. A brand-new customer's profile is
 * written a moment after the first message (off the webhook's path), so a 404 is retried a few times.
 */
export function CustomerPanel({ conversation }: { conversation: { id: string; customerId?: string } }) {
  const customerId = conversation.customerId;
  const [attempt, setAttempt] = useState(0);
  const customer = useAsync(async (signal) => (customerId ? getCustomer(customerId, { signal }) : null), [customerId, attempt]);
  const notYet = customer.error instanceof ApiError && customer.error.status === 404 && attempt < 5;
  useEffect(() => {
    if (!notYet) return;
    const timer = setTimeout(() => setAttempt((a) => a + 1), 600 * (attempt + 1));
    return () => clearTimeout(timer);
  }, [notYet, attempt]);

  if (!customerId) return null;
  return (
    <aside className="customer-panel card" aria-labelledby="customer-panel-title" data-testid="customer-panel">
      <h3 id="customer-panel-title" className="section-title">
        Customer
      </h3>
      {customer.data ? (
        <CustomerDetails customer={customer.data} onChange={(c) => customer.setData(c)} currentConversationId={conversation.id} />
      ) : customer.error && !notYet ? (
        <InlineError error={customer.error} />
      ) : (
        <Skeleton rows={3} label="Loading the customer…" />
      )}
    </aside>
  );
}

function CustomerDetails({ customer, onChange, currentConversationId }: { customer: Customer; onChange: (c: Customer) => void; currentConversationId: string }) {
  // The name is the one the inbox and the header show (the server's rule); the raw platform ids only on demand.
  const fields: [string, string | number | null][] = [
    ['Name', customer.displayName ?? customer.name],
    ['Phone', customer.phone],
    ['Email', customer.email],
    ['Channel', customer.transport],
  ];
  return (
    <>
      <p className="muted small">
        <CustomerIds clientId={customer.clientId} channelId={customer.channelId} />
      </p>
      <dl className="customer-fields">
        {fields
          .filter(([, value]) => value !== null && value !== '')
          .map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd data-testid={`customer-${label.toLowerCase().replace(' ', '-')}`}>{String(value)}</dd>
            </div>
          ))}
      </dl>
      <TagsEditor customer={customer} onSaved={onChange} />
      <NoteEditor customer={customer} onSaved={onChange} />
      <CustomerConversations customerId={customer.id} currentConversationId={currentConversationId} />
      <ExportCustomer customer={customer} />
      <EraseCustomer customer={customer} onErased={() => onChange({ ...customer, name: null, phone: null, email: null, note: '', tags: [] })} />
    </>
  );
}

/**
 * GDPR access request, for owners and admins: the export comes as JSON and is saved as a file named after the
 * customer's id (never their name). The server records who exported.
 */
function ExportCustomer({ customer }: { customer: Customer }) {
  const { me } = useAuth();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const role = me?.user.role;
  if (role !== 'owner' && role !== 'admin') return null;
  const download = async () => {
    setBusy(true);
    try {
      const data = await exportCustomer(customer.id);
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `customer-${customer.id}.json`;
      link.click();
      // Revoked after the click has started the download (revoking at once cancels it in some browsers).
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      if (data.truncated) toast.info('The export is cut short: the conversation is longer than one export reads');
    } catch (err) {
      toast.error(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button size="sm" variant="secondary" onClick={() => void download()} busy={busy} data-testid="customer-export">
      {busy ? 'Preparing…' : 'Download data (JSON)'}
    </Button>
  );
}

/** GDPR erasure, for owners and admins, behind a confirmation that asks for the request's reference. */
function EraseCustomer({ customer, onErased }: { customer: Customer; onErased: () => void }) {
  const { me } = useAuth();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const role = me?.user.role;
  if (role !== 'owner' && role !== 'admin') return null;
  const erase = async () => {
    if (!reason.trim()) return;
    setBusy(true);
    try {
      await eraseCustomer(customer.id, reason.trim());
      toast.success("The customer's personal data was erased");
      setOpen(false);
      onErased();
    } catch (err) {
      toast.error(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button size="sm" variant="danger" onClick={() => setOpen(true)} data-testid="customer-erase">
        Erase personal data
      </Button>
      <ConfirmDialog
        open={open}
        title="Erase this customer's personal data?"
        message={
          <>
            <p>Their messages, name, phone, email, note and tags are erased everywhere for good, and read as [erased]. Counts and analytics stay. This cannot be undone.</p>
            <label>
              Reason (a reference such as a ticket number)
              <input value={reason} maxLength={200} onChange={(e) => setReason(e.target.value)} data-testid="customer-erase-reason" />
            </label>
          </>
        }
        confirmLabel="Erase"
        busy={busy}
        onConfirm={() => void erase()}
        onCancel={() => setOpen(false)}
      />
    </>
  );
}

function TagsEditor({ customer, onSaved }: { customer: Customer; onSaved: (c: Customer) => void }) {
  const toast = useToast();
  const id = useId();
  const [value, setValue] = useState(customer.tags.join(', '));
  const [saving, setSaving] = useState(false);
  useEffect(() => setValue(customer.tags.join(', ')), [customer.tags]);
  const dirty = value !== customer.tags.join(', ');

  async function save(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    try {
      onSaved(await setCustomerTags(customer.id, value.split(',')));
      toast.success('Tags saved');
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setSaving(false);
    }
  }
  return (
    <form className="customer-edit" onSubmit={save}>
      <label htmlFor={id} className="field-label">
        Tags
      </label>
      {customer.tags.length > 0 && (
        <div className="tag-list" data-testid="customer-tags">
          {customer.tags.map((tag) => (
            <Badge key={tag} tone="accent">
              {tag}
            </Badge>
          ))}
        </div>
      )}
      <input id={id} className="input" value={value} onChange={(e) => setValue(e.target.value)} placeholder="vip, wholesale" aria-describedby={`${id}-hint`} data-testid="customer-tags-input" />
      <span id={`${id}-hint`} className="field-hint">
        Comma-separated, up to {CUSTOMER_TAGS_MAX}.
      </span>
      {dirty && (
        <Button type="submit" size="sm" busy={saving}>
          Save tags
        </Button>
      )}
    </form>
  );
}

function NoteEditor({ customer, onSaved }: { customer: Customer; onSaved: (c: Customer) => void }) {
  const toast = useToast();
  const id = useId();
  const [value, setValue] = useState(customer.note);
  const [saving, setSaving] = useState(false);
  useEffect(() => setValue(customer.note), [customer.note]);
  const dirty = value.trim() !== customer.note;

  async function save(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    try {
      onSaved(await setCustomerNote(customer.id, value));
      toast.success('Note saved');
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setSaving(false);
    }
  }
  return (
    <form className="customer-edit" onSubmit={save}>
      {/* A note typed and not saved would be lost to a reload or a click elsewhere without a word. */}
      <UnsavedChangesGuard when={dirty && !saving} />
      <label htmlFor={id} className="field-label">
        Note
      </label>
      <textarea id={id} className="input textarea" rows={3} maxLength={CUSTOMER_NOTE_MAX} value={value} onChange={(e) => setValue(e.target.value)} placeholder="Anything the team should know" data-testid="customer-note-input" />
      {customer.noteUpdatedAt && (
        <span className="field-hint" data-testid="customer-note-meta">
          Saved <Time iso={customer.noteUpdatedAt} />
        </span>
      )}
      {dirty && (
        <Button type="submit" size="sm" variant="primary" busy={saving} data-testid="customer-note-save">
          Save note
        </Button>
      )}
    </form>
  );
}

function CustomerConversations({ customerId, currentConversationId }: { customerId: string; currentConversationId: string }) {
  const [items, setItems] = useState<CustomerConversation[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const first = useAsync((signal) => listCustomerConversations(customerId, null, { signal }), [customerId]);
  useEffect(() => {
    if (first.data) {
      setItems(first.data.items);
      setCursor(first.data.nextCursor);
    }
  }, [first.data]);

  async function more() {
    if (!cursor) return;
    setLoadingMore(true);
    try {
      const page = await listCustomerConversations(customerId, cursor);
      setItems((list) => [...list, ...page.items]);
      setCursor(page.nextCursor);
    } finally {
      setLoadingMore(false);
    }
  }
  if (first.error) return <InlineError error={first.error} />;
  return (
    <div className="customer-conversations">
      <span className="field-label">Conversations</span>
      <ul data-testid="customer-conversations">
        {items.map((c) => (
          <li key={c.id}>
            {c.id === currentConversationId ? <strong>This conversation</strong> : <Link to={`/conversations/${c.id}`}>{c.transport} conversation</Link>}
            <span className="muted small">
              {' '}
              · {countOf(c.messageCount, 'message')} · <Time iso={c.lastMessageAt} />
            </span>
          </li>
        ))}
      </ul>
      {cursor && (
        <Button size="sm" variant="ghost" busy={loadingMore} onClick={() => void more()}>
          Show more
        </Button>
      )}
    </div>
  );
}

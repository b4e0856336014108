import { useCallback, useEffect, useRef, useState } from 'react';
import { listMyNotifications, markNotificationsRead, type InAppNotification } from '../api/notes.js';
import { useTeam } from '../lib/team.js';
import { useStreamEvents } from '../lib/useStream.js';
import { navigate } from '../lib/router.js';
import { useToast } from './Toasts.js';

/** The browser-notification opt-in, per browser (the tab asks the browser's permission when it is turned on). */
const BROWSER_OPT_IN = 'mas.browserNotifications';
const browserSupported = () => typeof window !== 'undefined' && 'Notification' in window;
const optedIn = () => browserSupported() && localStorage.getItem(BROWSER_OPT_IN) === 'on' && Notification.permission === 'granted';

/** One notification as a sentence ("Ana mentioned you on Maria: …"). */
export function notificationSentence(n: InAppNotification, nameOf: (id: string) => string | undefined): string {
  const by = n.byUserId ? (nameOf(n.byUserId) ?? 'A teammate') : null;
  switch (n.kind) {
    case 'assigned':
      return `${by ?? 'Automatic assignment'} assigned you the conversation with ${n.customerName}`;
    case 'mentioned':
      return `${by ?? 'A teammate'} mentioned you on ${n.customerName}: “${n.excerpt ?? ''}”`;
    case 'handoff_waiting':
      return `${n.customerName} is waiting for a person`;
    default:
      return `News on the conversation with ${n.customerName}`;
  }
}

/**
 * The header's bell: the teammate's unread in-app notifications, refreshed on every live conversation change
 * (the live-events stream, debounced). What is new since the last look is toasted; while the tab is hidden, and
 * only when the teammate opted in, the browser shows it too.
 */
export function NotificationBell() {
  const toast = useToast();
  const team = useTeam();
  const [open, setOpen] = useState(false);
  const [items, setItems] = useState<InAppNotification[]>([]);
  const [unread, setUnread] = useState(0);
  const [browser, setBrowser] = useState(optedIn);
  const seen = useRef<Set<string> | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const nameOf = useRef(team.nameOf);
  nameOf.current = team.nameOf;
  const wrapRef = useRef<HTMLDivElement>(null);

  const refresh = useCallback(async () => {
    try {
      const feed = await listMyNotifications({ limit: 20 });
      setItems(feed.notifications);
      setUnread(feed.unreadCount);
      const fresh = seen.current ? feed.notifications.filter((n) => !n.read && !seen.current!.has(n.id)) : [];
      seen.current = new Set([...(seen.current ?? []), ...feed.notifications.map((n) => n.id)]);
      for (const n of fresh.slice(0, 3).reverse()) {
        const text = notificationSentence(n, nameOf.current);
        toast.info(text);
        if (document.hidden && optedIn()) new Notification('Agent Service', { body: text, tag: n.id });
      }
    } catch {
      // The bell is a hint: a failed refresh keeps what it showed; the next change tries again.
    }
  }, [toast]);

  useEffect(() => {
    void refresh();
    return () => clearTimeout(timer.current);
  }, [refresh]);
  useStreamEvents(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void refresh(), 300);
  });

  useEffect(() => {
    if (!open) return;
    const onDown = (event: MouseEvent) => {
      if (!wrapRef.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && setOpen(false);
    window.addEventListener('mousedown', onDown);
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('mousedown', onDown);
      window.removeEventListener('keydown', onKey);
    };
  }, [open]);

  async function openOne(n: InAppNotification) {
    setOpen(false);
    if (!n.read) {
      setItems((list) => list.map((x) => (x.id === n.id ? { ...x, read: true } : x)));
      markNotificationsRead([n.id]).then((r) => setUnread(r.unreadCount), () => undefined);
    }
    navigate(`/conversations/${n.conversationId}`);
  }

  async function markAll() {
    const ids = items.filter((n) => !n.read).map((n) => n.id);
    if (ids.length === 0) return;
    try {
      const r = await markNotificationsRead(ids);
      setUnread(r.unreadCount);
      setItems((list) => list.map((x) => ({ ...x, read: true })));
    } catch {
      toast.error('Could not mark the notifications read');
    }
  }

  async function toggleBrowser(on: boolean) {
    if (!browserSupported()) return;
    if (on && Notification.permission !== 'granted') {
      const permission = await Notification.requestPermission();
      if (permission !== 'granted') {
        toast.error('The browser did not allow notifications');
        return;
      }
    }
    localStorage.setItem(BROWSER_OPT_IN, on ? 'on' : 'off');
    setBrowser(on);
  }

  return (
    <div className="bell-wrap" ref={wrapRef}>
      <button
        type="button"
        className="bell-button"
        data-testid="notification-bell"
        aria-label={unread ? `Notifications, ${unread} unread` : 'Notifications'}
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
      >
        <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
          <path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9 M13.73 21a2 2 0 0 1-3.46 0" />
        </svg>
        {unread > 0 && (
          <span className="bell-count" data-testid="notification-count">
            {unread > 99 ? '99+' : unread}
          </span>
        )}
      </button>
      {open && (
        <div className="bell-panel card" role="dialog" aria-label="Notifications" data-testid="notification-panel">
          <div className="bell-head">
            <strong>Notifications</strong>
            <button type="button" className="link-button" onClick={() => void markAll()} disabled={!items.some((n) => !n.read)}>
              Mark all read
            </button>
          </div>
          {items.length === 0 ? (
            <p className="bell-empty">Nothing yet: assignments, @mentions and handoffs show up here.</p>
          ) : (
            <ul className="bell-list">
              {items.map((n) => (
                <li key={n.id}>
                  <button type="button" className={`bell-item${n.read ? '' : ' bell-unread'}`} data-testid="notification-item" data-kind={n.kind} onClick={() => void openOne(n)}>
                    {notificationSentence(n, team.nameOf)}
                  </button>
                </li>
              ))}
            </ul>
          )}
          {browserSupported() && (
            <label className="bell-optin">
              <input type="checkbox" checked={browser} onChange={(e) => void toggleBrowser(e.target.checked)} /> Browser notifications while this tab is hidden
            </label>
          )}
        </div>
      )}
    </div>
  );
}

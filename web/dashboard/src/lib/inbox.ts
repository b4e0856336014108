// The inbox around the conversations list: per-view counts, the count in the tab title, and opt-in
// browser notifications when a new customer starts waiting for a human.
import { useCallback, useEffect, useRef, useState } from 'react';
import { getConversationViews } from '../api/endpoints.js';
import type { Handoff, ViewCounts } from '../api/types.js';
import { useStreamEvents } from './useStream.js';

const TITLE_COUNT = /^\(\d+\) /;

/** "(3) Conversations · …" while 3 customers wait for a human; the plain title otherwise. */
export function titleWithCount(title: string, waiting: number): string {
  const base = title.replace(TITLE_COUNT, '');
  return waiting > 0 ? `(${waiting}) ${base}` : base;
}

export const HANDOFF_REASON: Record<Handoff['reason'], string> = {
  agent_handoff: 'The AI handed off',
  no_confident_answer: 'The AI handed off (no confident answer)',
  ai_unanswered: 'The AI could not answer',
  customer_request: 'The customer asked for a human',
  dialog_transferred: 'Transferred on the platform',
  experiment_holdout: 'Experiment holdout: people answer it',
};

export const notificationsSupported = () => typeof window !== 'undefined' && 'Notification' in window;

/**
 * The views' counts, refreshed on every live change (coalesced). Keeps the tab title's count in step, and
 * notifies (when the user allowed it) each time the "Needs human" queue grows.
 */
export function useInboxCounts() {
  const [views, setViews] = useState<ViewCounts | null>(null);
  const [permission, setPermission] = useState<NotificationPermission | 'unsupported'>(() => (notificationsSupported() ? Notification.permission : 'unsupported'));
  const previous = useRef<number | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const refresh = useCallback(() => {
    getConversationViews().then(setViews, () => undefined);
  }, []);
  useEffect(refresh, [refresh]);
  useStreamEvents(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      refresh();
    }, 300);
  });
  useEffect(() => () => clearTimeout(timer.current), []);

  const waiting = views?.needs_human.count ?? 0;
  useEffect(() => {
    const apply = () => {
      const next = titleWithCount(document.title, waiting);
      if (next !== document.title) document.title = next;
    };
    apply();
    // The layout sets the page title on navigation: put the count back on it.
    const observer = new MutationObserver(apply);
    const titleEl = document.querySelector('title');
    if (titleEl) observer.observe(titleEl, { childList: true, characterData: true, subtree: true });
    return () => {
      observer.disconnect();
      document.title = titleWithCount(document.title, 0);
    };
  }, [waiting]);

  useEffect(() => {
    if (views === null) return;
    const before = previous.current;
    previous.current = waiting;
    if (before === null || waiting <= before || permission !== 'granted') return;
    try {
      new Notification('A customer is waiting for a human', { body: `${waiting} conversation${waiting === 1 ? '' : 's'} in “Needs human”`, tag: 'needs-human' });
    } catch {
      // Some browsers allow notifications only from a service worker: the title count still shows it.
    }
  }, [views, waiting, permission]);

  /** Asks for permission: only ever from the user's click. */
  const enableNotifications = useCallback(async () => {
    if (!notificationsSupported()) return;
    setPermission(await Notification.requestPermission());
  }, []);

  return { views, refresh, permission, enableNotifications };
}

/** How long a customer has waited: "under a minute", "5 min", "2 h 10 min", "3 d". */
export function formatWaiting(since: string, now = Date.now()): string {
  const minutes = Math.max(0, Math.floor((now - Date.parse(since)) / 60_000));
  if (!Number.isFinite(minutes) || minutes < 1) return 'under a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

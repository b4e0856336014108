// "AI replies are delayed": the banner every page shows while the company's AI answers are behind.
import { useEffect, useState } from 'react';
import { getAiBacklog } from '../api/endpoints.js';
import type { AiBacklog } from '../api/types.js';
import { formatNumber } from './format.js';

/** How often the banner asks again: the wait grows with no event to push it, so this one is polled. */
export const AI_BACKLOG_POLL_MS = 15_000;

/** A wait in whole seconds, minutes or hours: "45 s", "3 min", "2 h". */
export function formatAge(since: string, now: number): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h`;
}

/** The banner's sentence, or null when the answers are not delayed. */
export function aiBacklogText(backlog: AiBacklog | null, now: number): string | null {
  if (!backlog?.delayed) return null;
  const count = `${formatNumber(backlog.waiting)} conversation${backlog.waiting === 1 ? '' : 's'} waiting`;
  return `AI replies are delayed: ${count}${backlog.oldestWaitingSince ? `, oldest ${formatAge(backlog.oldestWaitingSince, now)}` : ''}`;
}

/** The company's AI backlog, asked now and every AI_BACKLOG_POLL_MS; with the time it was read (for the age). */
export function useAiBacklog(): { backlog: AiBacklog | null; at: number } {
  const [state, setState] = useState<{ backlog: AiBacklog | null; at: number }>({ backlog: null, at: Date.now() });
  useEffect(() => {
    let stopped = false;
    const poll = () => {
      getAiBacklog().then(
        (backlog) => {
          if (!stopped) setState({ backlog, at: Date.now() });
        },
        // A failed poll keeps what was shown; the next one tries again.
        () => undefined,
      );
    };
    poll();
    const timer = setInterval(poll, AI_BACKLOG_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);
  return state;
}

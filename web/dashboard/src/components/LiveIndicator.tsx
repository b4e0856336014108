import { useStreamStatus } from '../lib/useStream.js';

const LABELS = {
  idle: 'Offline',
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
} as const;

/** Shows whether live updates are flowing. */
export function LiveIndicator() {
  const status = useStreamStatus();
  return (
    <span className={`live-indicator live-${status}`} data-testid="live-indicator" data-status={status} title="Live updates (Server-Sent Events)">
      <span className="live-dot" aria-hidden="true" />
      {LABELS[status]}
    </span>
  );
}

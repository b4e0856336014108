import { useEffect, useRef, useSyncExternalStore } from 'react';
import { getStreamStatus, onStreamStatus, subscribe, type StreamEvent, type StreamStatus } from '../api/events.js';

/** Calls `handler` for every live event while the component is mounted. */
export function useStreamEvents(handler: (event: StreamEvent) => void) {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => subscribe((event) => ref.current(event)), []);
}

export function useStreamStatus(): StreamStatus {
  return useSyncExternalStore(onStreamStatus, getStreamStatus, getStreamStatus);
}

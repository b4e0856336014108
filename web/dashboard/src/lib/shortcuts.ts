// Single-key shortcuts of the inbox (j/k, a, c, r, ?), listed in the help overlay behind "?".
import { useEffect, useRef } from 'react';

export const INBOX_SHORTCUTS: { key: string; does: string }[] = [
  { key: 'j', does: 'Next conversation' },
  { key: 'k', does: 'Previous conversation' },
  { key: 'a', does: 'Assign the open conversation to a teammate' },
  { key: 'c', does: 'Close the open conversation' },
  { key: 'r', does: 'Reply: go to the reply box' },
  { key: '?', does: 'Show these shortcuts' },
];

/** Typing in a field, holding a modifier, or working in a dialog: the key is not a shortcut. */
export function isShortcutKey(event: KeyboardEvent): boolean {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return false;
  const target = event.target as HTMLElement | null;
  if (target?.closest?.('input, textarea, select, [contenteditable=""], [contenteditable="true"]')) return false;
  return !document.querySelector('dialog[open]');
}

/** Runs `handlers[event.key]` for a shortcut key pressed anywhere on the page while mounted. */
export function useShortcuts(handlers: Record<string, (() => void) | undefined>): void {
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const handler = current.current[event.key];
      if (!handler || !isShortcutKey(event)) return;
      // The key must not also type into what the handler focuses (the reply box).
      event.preventDefault();
      handler();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

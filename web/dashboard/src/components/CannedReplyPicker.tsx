import { useEffect, useId, useMemo, useState, type KeyboardEvent, type ReactNode, type RefObject, type SyntheticEvent } from 'react';
import { listAllCannedReplies, type CannedReply } from '../api/support.js';
import './support.css';

/** The `/word` being typed at the caret (at the start of the text or after whitespace), or null. */
export function slashTokenAt(text: string, caret: number): { start: number; query: string } | null {
  let start = caret;
  while (start > 0 && !/\s/.test(text[start - 1]!)) start--;
  if (text[start] !== '/') return null;
  const query = text.slice(start + 1, caret);
  return /^[\w-]*$/.test(query) ? { start, query: query.toLowerCase() } : null;
}

/** Replies matching what follows the "/": shortcut prefix first, then shortcut or title containing it. */
export function filterCannedReplies(replies: CannedReply[], query: string): CannedReply[] {
  const q = query.toLowerCase();
  const prefix = replies.filter((r) => r.shortcut.startsWith(q));
  const rest = replies.filter((r) => !r.shortcut.startsWith(q) && (r.shortcut.includes(q) || r.title.toLowerCase().includes(q)));
  return [...prefix, ...rest].slice(0, 20);
}

// The company's replies, shared by every reply box and refreshed when older than this.
const FRESH_MS = 30_000;
let cache: { at: number; replies: Promise<CannedReply[]> } | null = null;
function cannedReplies(): Promise<CannedReply[]> {
  if (!cache || Date.now() - cache.at > FRESH_MS) {
    const replies = listAllCannedReplies().catch((error: unknown) => {
      cache = null;
      throw error;
    });
    cache = { at: Date.now(), replies };
  }
  return cache.replies;
}

/**
 * Typing "/" in the reply box opens the company's canned replies, filtered by what follows; ArrowUp/ArrowDown
 * choose, Enter or Tab (or a click) replaces the "/word" with the reply's text, Escape closes. The reply box
 * keeps its own state: it passes its text, setter and textarea, spreads `inputProps` on the textarea, calls
 * `onKeyDown` first and renders `popup`.
 */
export function useCannedReplyPicker({ text, setText, textarea }: { text: string; setText: (value: string) => void; textarea: RefObject<HTMLTextAreaElement | null> }): {
  onKeyDown: (event: KeyboardEvent<HTMLTextAreaElement>) => boolean;
  popup: ReactNode;
  inputProps: {
    'aria-autocomplete': 'list';
    'aria-controls'?: string;
    'aria-expanded': boolean;
    'aria-activedescendant'?: string;
    onSelect: (event: SyntheticEvent<HTMLTextAreaElement>) => void;
  };
} {
  const listId = useId();
  const [caret, setCaret] = useState(0);
  const [replies, setReplies] = useState<CannedReply[] | null>(null);
  const [active, setActive] = useState(0);
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);

  const token = slashTokenAt(text, Math.min(caret, text.length));
  const open = token !== null && dismissedAt !== token.start;
  useEffect(() => {
    if (open && replies === null) cannedReplies().then(setReplies, () => setReplies([]));
  }, [open, replies]);
  const matches = useMemo(() => (token && replies ? filterCannedReplies(replies, token.query) : []), [token?.query, replies]);
  useEffect(() => setActive(0), [token?.query]);
  useEffect(() => {
    if (!token) setDismissedAt(null);
  }, [token === null]);

  const insert = (reply: CannedReply) => {
    if (!token) return;
    const next = text.slice(0, token.start) + reply.text + text.slice(caret);
    setText(next);
    const at = token.start + reply.text.length;
    requestAnimationFrame(() => {
      const el = textarea.current;
      if (!el) return;
      el.focus();
      el.setSelectionRange(at, at);
      setCaret(at);
    });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open) return false;
    if (event.key === 'Escape') {
      event.preventDefault();
      setDismissedAt(token!.start);
      return true;
    }
    if (matches.length === 0) return false;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((i) => (i + step + matches.length) % matches.length);
      return true;
    }
    if ((event.key === 'Enter' && !event.ctrlKey && !event.metaKey && !event.shiftKey) || event.key === 'Tab') {
      event.preventDefault();
      insert(matches[Math.min(active, matches.length - 1)]!);
      return true;
    }
    return false;
  };

  const optionId = (i: number) => `${listId}-option-${i}`;
  const popup = open ? (
    <ul className="canned-list" id={listId} role="listbox" aria-label="Canned replies" data-testid="canned-reply-list">
      {replies === null ? (
        <li className="canned-empty">Loading canned replies…</li>
      ) : matches.length === 0 ? (
        <li className="canned-empty">{replies.length === 0 ? 'No canned replies yet — add them under Canned replies.' : `No canned reply matches /${token!.query}`}</li>
      ) : (
        matches.map((reply, i) => (
          <li
            key={reply.id}
            id={optionId(i)}
            role="option"
            aria-selected={i === active}
            className="canned-option"
            data-testid="canned-reply-option"
            // mousedown, not click: the textarea keeps its focus and caret.
            onMouseDown={(event) => {
              event.preventDefault();
              insert(reply);
            }}
            onMouseEnter={() => setActive(i)}
          >
            <span>
              <strong>/{reply.shortcut}</strong> {reply.title}
            </span>
            <span className="canned-text">{reply.text}</span>
          </li>
        ))
      )}
    </ul>
  ) : null;

  return {
    onKeyDown,
    popup,
    inputProps: {
      // React's select event follows the caret (typing, clicks, arrow keys) in step with onChange. (A native
      // listener re-rendering before React's onChange would put the controlled value back and eat the keystroke.)
      onSelect: (event) => setCaret(event.currentTarget.selectionStart ?? event.currentTarget.value.length),
      'aria-autocomplete': 'list',
      'aria-expanded': open,
      ...(open ? { 'aria-controls': listId } : {}),
      ...(open && matches.length > 0 ? { 'aria-activedescendant': optionId(Math.min(active, matches.length - 1)) } : {}),
    },
  };
}

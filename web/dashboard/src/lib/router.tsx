// A tiny hash router: `#/path/segments?query=1`.
import { useSyncExternalStore, type AnchorHTMLAttributes } from 'react';

export interface Route {
  path: string;
  segments: string[];
  query: URLSearchParams;
}

/**
 * The hash the app shows. It follows location.hash except while a page with unsaved changes blocks navigation:
 * then a new hash (a link, the back button, navigate()) is put back and handed to the blocker, which asks the user.
 */
let accepted = typeof window === 'undefined' ? '' : window.location.hash;
const listeners = new Set<() => void>();
let blocker: ((targetHash: string) => boolean) | null = null;

function onHashChange() {
  const next = window.location.hash;
  if (next === accepted) return;
  if (blocker?.(next)) {
    const url = new URL(window.location.href);
    url.hash = accepted;
    window.history.replaceState(window.history.state, '', url);
    return;
  }
  accepted = next;
  for (const listener of listeners) listener();
}
if (typeof window !== 'undefined') window.addEventListener('hashchange', onHashChange);

function currentHash(): string {
  return accepted;
}

function subscribe(onChange: () => void) {
  listeners.add(onChange);
  return () => listeners.delete(onChange);
}

/**
 * While set, `block(targetHash)` is asked before the route changes; returning true keeps the current page (the
 * blocker then shows its own prompt and may call `leaveTo(targetHash)`). Returns the function that removes it.
 */
export function setNavigationBlocker(block: (targetHash: string) => boolean): () => void {
  blocker = block;
  return () => {
    if (blocker === block) blocker = null;
  };
}

/** Goes to a hash the user confirmed leaving for, past any blocker. */
export function leaveTo(targetHash: string) {
  blocker = null;
  window.location.hash = targetHash;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '') || '/';
  const [pathPart = '/', queryPart = ''] = raw.split('?', 2);
  const path = pathPart.startsWith('/') ? pathPart : `/${pathPart}`;
  const segments = path.split('/').filter(Boolean).map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  return { path, segments, query: new URLSearchParams(queryPart) };
}

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, currentHash, () => '');
  return parseHash(hash);
}

export function href(to: string): string {
  return `#${to.startsWith('/') ? to : `/${to}`}`;
}

export function navigate(to: string, options: { replace?: boolean } = {}) {
  const target = href(to);
  if (options.replace) {
    const url = new URL(window.location.href);
    url.hash = target;
    window.history.replaceState(window.history.state, '', url);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else if (window.location.hash !== target) {
    window.location.hash = target;
  }
}

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  to: string;
}

export function Link({ to, ...rest }: LinkProps) {
  return <a {...rest} href={href(to)} />;
}

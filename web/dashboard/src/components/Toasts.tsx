import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';

type Tone = 'success' | 'error' | 'info';
interface Toast {
  id: number;
  tone: Tone;
  text: string;
}

interface ToastApi {
  success: (text: string) => void;
  error: (text: string) => void;
  info: (text: string) => void;
}

const ToastContext = createContext<ToastApi | null>(null);
const HostContext = createContext<((el: HTMLElement) => () => void) | null>(null);

/** Renders the toasts inside `ref`'s element while `active` (used by modal dialogs). */
export function useToastHost(ref: RefObject<HTMLElement | null>, active: boolean) {
  const register = useContext(HostContext);
  useEffect(() => {
    const el = ref.current;
    if (!active || !el || !register) return;
    return register(el);
  }, [active, ref, register]);
}

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToast outside ToastProvider');
  return api;
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const [hosts, setHosts] = useState<HTMLElement[]>([]);
  const nextId = useRef(1);
  const registerHost = useCallback((el: HTMLElement) => {
    setHosts((list) => [...list, el]);
    return () => setHosts((list) => list.filter((h) => h !== el));
  }, []);
  const host = hosts.at(-1);

  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((t) => t.id !== id)), []);

  const push = useCallback(
    (tone: Tone, text: string) => {
      const id = nextId.current++;
      setToasts((list) => [...list.slice(-2), { id, tone, text }]);
      window.setTimeout(() => dismiss(id), tone === 'error' ? 8_000 : 4_500);
    },
    [dismiss],
  );

  const api = useMemo<ToastApi>(
    () => ({
      success: (text) => push('success', text),
      error: (text) => push('error', text),
      info: (text) => push('info', text),
    }),
    [push],
  );

  const region = (
    <div className="toasts" role="region" aria-label="Notifications">
      <div aria-live="polite" aria-relevant="additions text" className="toasts-list">
        {toasts.map((toast) => (
          <div key={toast.id} className={`toast toast-${toast.tone}`} data-testid="toast">
            <span className="toast-icon" aria-hidden="true">
              {toast.tone === 'success' ? '✓' : toast.tone === 'error' ? '!' : 'i'}
            </span>
            <span className="toast-text">{toast.text}</span>
            <button type="button" className="toast-close" aria-label="Dismiss notification" onClick={() => dismiss(toast.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </div>
  );

  return (
    <ToastContext.Provider value={api}>
      <HostContext.Provider value={registerHost}>
        {children}
        {host ? createPortal(region, host) : region}
      </HostContext.Provider>
    </ToastContext.Provider>
  );
}

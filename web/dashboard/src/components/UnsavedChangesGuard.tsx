import { useEffect, useRef, useState } from 'react';
import { t } from '../lib/messages.js';
import { leaveTo, setNavigationBlocker } from '../lib/router.js';
import { ConfirmDialog } from './ui.js';

/**
 * While `when` holds, a reload or closing the tab asks the browser's own "Leave site?" question, and moving to
 * another page of the dashboard asks in an in-page dialog. `allowNext()` (returned through `guardRef`) lets one
 * navigation through, for links that keep the draft themselves.
 */
export function UnsavedChangesGuard({ when, guardRef }: { when: boolean; guardRef?: { current: { allowNext: () => void } | null } }) {
  const [pending, setPending] = useState<string | null>(null);
  const allowOnce = useRef(false);

  useEffect(() => {
    if (guardRef) guardRef.current = { allowNext: () => (allowOnce.current = true) };
  }, [guardRef]);

  useEffect(() => {
    if (!when) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older Chromium versions show the prompt only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    const removeBlocker = setNavigationBlocker((target) => {
      if (allowOnce.current) {
        allowOnce.current = false;
        return false;
      }
      setPending(target);
      return true;
    });
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      removeBlocker();
    };
  }, [when]);

  return (
    <ConfirmDialog
      open={pending !== null}
      title={t.common.leaveTitle}
      message={<p>{t.common.unsavedChanges}</p>}
      confirmLabel={t.common.leave}
      cancelLabel={t.common.stay}
      onConfirm={() => {
        const target = pending;
        setPending(null);
        if (target !== null) leaveTo(target);
      }}
      onCancel={() => setPending(null)}
    />
  );
}

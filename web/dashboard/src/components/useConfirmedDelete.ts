import { useState } from 'react';
import { ApiError, describeError } from '../api/client.js';
import { useToast } from './Toasts.js';

export interface ConfirmedDelete<T> {
  /** What the open dialog asks about; null while it is closed. */
  target: T | null;
  /** Opens the confirmation for `item`. */
  ask: (item: T) => void;
  /** Spread into `<ConfirmDialog>`: open while there is a target, busy while the deletion runs. */
  dialog: { open: boolean; busy: boolean; onConfirm: () => void; onCancel: () => void };
}

/**
 * A deletion that waits for a "Delete?" dialog (delete, remove, revoke): one flow for every list and form.
 * `remove` does the request and what follows it (drop the row, toast, navigate). Its failure is shown as an
 * error toast and keeps the dialog open, so the user can retry or cancel; nothing else is lost. With `onRefused`,
 * a refusal closes it instead.
 */
export function useConfirmedDelete<T>(
  remove: (item: T) => Promise<void>,
  options: {
    /**
     * Called instead of keeping the dialog open when the service refuses (403, 404, 409: asking again cannot
     * work, e.g. the teammate is gone or is the last owner); the dialog closes, the error is told.
     */
    onRefused?: (item: T, error: ApiError) => void;
  } = {},
): ConfirmedDelete<T> {
  const toast = useToast();
  const [target, setTarget] = useState<T | null>(null);
  const [busy, setBusy] = useState(false);

  async function confirm() {
    if (target === null) return;
    setBusy(true);
    try {
      await remove(target);
      setTarget(null);
    } catch (error) {
      toast.error(describeError(error));
      if (options.onRefused && error instanceof ApiError && [403, 404, 409].includes(error.status)) {
        options.onRefused(target, error);
        setTarget(null);
      }
    } finally {
      setBusy(false);
    }
  }

  return {
    target,
    ask: setTarget,
    dialog: { open: target !== null, busy, onConfirm: () => void confirm(), onCancel: () => setTarget(null) },
  };
}

import { useState } from 'react';

export interface Submit {
  /** True while the submission runs (the submit button shows it). */
  busy: boolean;
  /** The last submission's failure (an error or a message), shown with `<InlineError>`; cleared by the next one. */
  error: unknown;
  /** For a check made before submitting, e.g. "Document too large". */
  setError: (error: unknown) => void;
  /**
   * Runs `work` as the form's submission. With `leaves`, `work` ends by navigating away on success, so the
   * button stays busy until the page goes (no second click while it unmounts); only a failure frees it.
   */
  run: (work: () => Promise<void>, options?: { leaves?: boolean }) => Promise<void>;
}

/** A form's submit state: busy while it runs, the failure kept for the form to show. */
export function useSubmit(): Submit {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function run(work: () => Promise<void>, { leaves = false }: { leaves?: boolean } = {}) {
    setBusy(true);
    setError(null);
    try {
      await work();
      if (!leaves) setBusy(false);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  return { busy, error, setError, run };
}

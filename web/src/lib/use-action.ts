/**
 * The busy/error state of a button or form that calls the API: `run(work)` marks the
 * action busy, clears the last error, awaits `work`, and on failure keeps a readable
 * message in `error` (or hands the failure to `onError`, a toast, say), then clears busy.
 */
import { useCallback, useRef, useState } from 'react';
import { describeError } from '../api/client';

export interface RunOptions {
  /** The message to show for a failure (default: `describeError`). */
  describe?: (err: unknown) => string;
  /** Where a failure goes instead of `error` (a toast, say); overrides the hook's `onError`. */
  onError?: (err: unknown) => void;
  /** On success, stay busy: the form is about to close, or to be replaced by what it made. */
  stayBusy?: boolean;
}

export interface Action {
  busy: boolean;
  error: string | null;
  /** Show a message without running anything (a form's own checks). */
  setError: (message: string | null) => void;
  /** Runs `work`; resolves to true when it succeeded, false when it failed (the error is then shown). */
  run: (work: () => Promise<unknown>, options?: RunOptions) => Promise<boolean>;
}

export function useAction(options: { onError?: (err: unknown) => void } = {}): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The latest handler, so that `run` stays the same function across renders.
  const onError = useRef(options.onError);
  onError.current = options.onError;

  const run = useCallback(async (work: () => Promise<unknown>, runOptions: RunOptions = {}) => {
    setBusy(true);
    setError(null);
    let stay = false;
    try {
      await work();
      stay = !!runOptions.stayBusy;
      return true;
    } catch (err) {
      const handler = runOptions.onError ?? onError.current;
      if (handler) handler(err);
      else setError((runOptions.describe ?? describeError)(err));
      return false;
    } finally {
      if (!stay) setBusy(false);
    }
  }, []);

  return { busy, error, setError, run };
}

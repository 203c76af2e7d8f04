/**
 * A labelled form control with its hint and error: the label points at the control, and
 * the control is described by the error when there is one, else by the hint.
 */
import { useId, type ReactNode } from 'react';

/** What the control must carry to be wired to its label, hint and error. */
export interface FieldControlProps {
  id: string;
  'aria-invalid': boolean;
  'aria-describedby': string | undefined;
}

interface FieldProps {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  /** Keep the hint on screen while an error shows (default: the error replaces it). */
  keepHint?: boolean;
  /** The control's id (default: a generated one). */
  id?: string;
  labelClassName?: string;
  children: (control: FieldControlProps) => ReactNode;
}

export function Field({ label, hint, error, keepHint = false, id: givenId, labelClassName = 'field-label', children }: FieldProps) {
  const generated = useId();
  const id = givenId ?? generated;
  const showHint = !!hint && (keepHint || !error);
  const describedBy = [error ? `${id}-error` : null, showHint ? `${id}-help` : null].filter(Boolean).join(' ') || undefined;
  return (
    <>
      <label htmlFor={id} className={labelClassName}>
        {label}
      </label>
      {children({ id, 'aria-invalid': !!error, 'aria-describedby': describedBy })}
      {showHint && (
        <p id={`${id}-help`} className="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

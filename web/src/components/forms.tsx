/** Small dialogs with one text field: create a server, a channel, join by invite. */
import { useState, type FormEvent } from 'react';
import { Dialog } from './dialog';
import { Field } from './field';
import dialogStyles from './dialog.module.css';
import { t } from '../i18n';
import { useAction } from '../lib/use-action';

interface PromptDialogProps {
  title: string;
  label: string;
  submitLabel: string;
  initial?: string;
  placeholder?: string;
  help?: string;
  maxLength?: number;
  /** Resolve to close; throw to show the error under the field. */
  onSubmit: (value: string) => Promise<void>;
  onClose: () => void;
}

export function PromptDialog({
  title,
  label,
  submitLabel,
  initial = '',
  placeholder,
  help,
  maxLength = 100,
  onSubmit,
  onClose,
}: PromptDialogProps) {
  const [value, setValue] = useState(initial);
  const { busy, error, setError, run } = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!value.trim()) {
      setError(t('forms.required', { label }));
      return;
    }
    await run(
      async () => {
        await onSubmit(value.trim());
        onClose();
      },
      { stayBusy: true },
    );
  };
  return (
    <Dialog title={title} onClose={onClose}>
      <form onSubmit={submit} className={`${dialogStyles.dialogBody} stack`}>
        <Field label={label} hint={help} error={error}>
          {(control) => (
            <input
              {...control}
              className="input"
              value={value}
              autoFocus
              maxLength={maxLength}
              placeholder={placeholder}
              onChange={(e) => setValue(e.target.value)}
            />
          )}
        </Field>
        <footer className={dialogStyles.dialogActions}>
          <button type="button" className="button secondary" onClick={onClose}>
            {t('forms.cancel')}
          </button>
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? t('forms.working') : submitLabel}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

/** Channel names: lower case, words joined by dashes, as people expect. */
export function normaliseChannelName(name: string): string {
  return name.trim().toLowerCase().replace(/^#+/, '').replace(/\s+/g, '-');
}

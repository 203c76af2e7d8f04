/**
 * A bot's modal (docs/commands.md#modals): its text inputs with their labels,
 * placeholders and default values, checked as the person types (required, at least / at
 * most so many characters; the same rules the service applies) and shown inline, then
 * submitted as a `modalSubmit` interaction. A native <dialog>: focus stays inside, Escape
 * and Cancel close it without telling the bot, as on Discord.
 */
import { useId, useState, type FormEvent } from 'react';
import type { TextInput } from '../api/types';
import { t } from '../i18n';
import { closeModal, type OpenModal, submitModal, useInteractions } from '../state/interaction-store';
import { Dialog } from './dialog';
import dialogStyles from './dialog.module.css';
import styles from './modal-form.module.css';
import { useAction } from '../lib/use-action';

const MAX = 4000;
const length = (v: string) => [...v].length;

/** What is wrong with a value, or null (the service's rules: a required one not empty; lengths in characters). */
function problem(input: TextInput, value: string): string | null {
  const n = length(value);
  if (n === 0) return input.required === false ? null : t('modalForm.required');
  if (input.minLength !== undefined && n < input.minLength) return t('modalForm.tooShort', { min: input.minLength });
  const max = input.maxLength ?? MAX;
  if (n > max) return t('modalForm.tooLong', { max });
  return null;
}

/** The open modal, if any (rendered once, at the app's root). */
export function ModalHost() {
  const open = useInteractions((s) => s.modal);
  // A new modal is a new form: its own values and errors.
  return open ? <ModalForm key={open.id} open={open} /> : null;
}

function ModalForm({ open }: { open: OpenModal }) {
  const inputs = open.modal.components.map((r) => r.components[0]!);
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(inputs.map((i) => [i.customId, i.value ?? ''])));
  // Errors show once a field was left, or on a submit attempt: not while someone starts typing.
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [tried, setTried] = useState(false);
  const { busy, error, run } = useAction();
  const base = useId();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    const firstBad = inputs.find((i) => problem(i, values[i.customId] ?? ''));
    if (firstBad) {
      document.getElementById(`${base}-${inputs.indexOf(firstBad)}`)?.focus();
      return;
    }
    await run(
      async () => {
        await submitModal(inputs.map((i) => ({ customId: i.customId, value: values[i.customId] ?? '' })));
      },
      { stayBusy: true },
    );
  };

  return (
    <Dialog title={open.modal.title} onClose={closeModal} className={styles.modal}>
      <form onSubmit={submit} className={`${dialogStyles.dialogBody} ${styles.form}`} noValidate data-testid="modal-form">
        {inputs.map((input, i) => {
          const id = `${base}-${i}`;
          const value = values[input.customId] ?? '';
          const bad = tried || touched[input.customId] ? problem(input, value) : null;
          const max = input.maxLength ?? MAX;
          const required = input.required !== false;
          const common = {
            id,
            className: `input ${styles.input}`,
            value,
            placeholder: input.placeholder,
            required,
            maxLength: max,
            minLength: input.minLength,
            'aria-invalid': bad ? true : undefined,
            'aria-describedby': `${id}-count${bad ? ` ${id}-error` : ''}`,
            onChange: (e: { target: { value: string } }) => setValues((v) => ({ ...v, [input.customId]: e.target.value })),
            onBlur: () => setTouched((x) => ({ ...x, [input.customId]: true })),
            'data-custom-id': input.customId,
          };
          return (
            <div key={input.customId} className={styles.field}>
              <label htmlFor={id} className={styles.label}>
                {input.label}
                {required && (
                  <span className={styles.required} aria-hidden="true">
                    *
                  </span>
                )}
              </label>
              {input.style === 'paragraph' ? <textarea rows={4} {...common} /> : <input type="text" {...common} />}
              <div className={styles.meta}>
                {bad ? (
                  <span id={`${id}-error`} className="field-error" role="alert">
                    {bad}
                  </span>
                ) : (
                  <span />
                )}
                <span id={`${id}-count`} className={styles.count}>
                  {t('modalForm.count', { length: length(value), max })}
                </span>
              </div>
            </div>
          );
        })}
        {error && (
          <p className="field-error" role="alert" data-testid="modal-error">
            {error}
          </p>
        )}
        <footer className={dialogStyles.dialogActions}>
          <button type="button" className="button secondary" onClick={closeModal}>
            {t('modalForm.cancel')}
          </button>
          <button type="submit" className="button primary" disabled={busy} aria-busy={busy || undefined}>
            {t('modalForm.submit')}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

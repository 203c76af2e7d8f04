/**
 * A command being filled in (docs/commands.md): what the composer becomes once a command is
 * picked from the palette. One field per option, typed as the option is (text, whole
 * number, number with its range, yes/no, a member, channel or role of the server, a file),
 * a dropdown where the option has choices, and the bot's live suggestions where it asks for
 * autocomplete. Everything is checked before sending, with the problem next to its field;
 * what the service still refuses is shown above the buttons.
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { ApiError, describeError } from '../api/client';
import type { Channel, Command, CommandChoice, CommandOption, CommandOptionValues } from '../api/types';
import { displayName } from '../api/types';
import { loadMembers, uploadFile } from '../state/actions';
import { autocomplete, type RunnableCommand, runCommand, runnableName } from '../state/interaction-store';
import { can, myPermissions, P } from '../state/permissions';
import { store, useStore } from '../state/store';
import { Avatar } from './avatar';
import { CloseIcon } from './icons';
import styles from './command-form.module.css';
import { Trans } from 'react-i18next';
import { t } from '../i18n';

/** What a field holds: the text shown, and the choice picked from a list (whose value is sent). */
interface FieldValue {
  text: string;
  choice?: CommandChoice;
  /** Attachments: the uploaded file's URL, or true while uploading. */
  uploading?: boolean;
  url?: string;
}

type Values = Record<string, FieldValue>;

const AUTOCOMPLETE_DEBOUNCE_MS = 200;

function rangeText(o: CommandOption): string | null {
  const { minValue: min, maxValue: max } = o;
  if (min !== undefined && max !== undefined) return t('commands.range.between', { min, max });
  if (min !== undefined) return t('commands.range.atLeast', { min });
  if (max !== undefined) return t('commands.range.atMost', { max });
  return null;
}

/** The value an option's field stands for, or an error to show beside it; undefined: left empty. */
function fieldValue(o: CommandOption, v: FieldValue | undefined): { value?: string | number | boolean; error?: string } {
  const text = v?.text.trim() ?? '';
  if (v?.uploading) return { error: t('commands.errors.uploading') };
  if (v?.choice) return { value: v.choice.value };
  if (!text && !v?.url) return o.required ? { error: t('commands.errors.required') } : {};
  switch (o.type) {
    case 'integer':
    case 'number': {
      const n = Number(text);
      if (o.type === 'integer' ? !/^[-+]?\d+$/.test(text) : !Number.isFinite(n) || !text)
        return { error: o.type === 'integer' ? t('commands.errors.wholeNumber') : t('commands.errors.number') };
      if ((o.minValue !== undefined && n < o.minValue) || (o.maxValue !== undefined && n > o.maxValue))
        return { error: t('commands.errors.mustBe', { range: rangeText(o) ?? '' }) };
      if (o.choices?.length && !o.choices.some((c) => c.value === n)) return { error: t('commands.errors.choose') };
      return { value: n };
    }
    case 'boolean':
      return { value: text === 'true' };
    case 'attachment':
      return v?.url ? { value: v.url } : o.required ? { error: t('commands.errors.required') } : {};
    case 'string': {
      const length = [...text].length;
      if (o.minLength !== undefined && length < o.minLength) return { error: t('commands.errors.minLength', { count: o.minLength }) };
      if (o.maxLength !== undefined && length > o.maxLength) return { error: t('commands.errors.maxLength', { count: o.maxLength }) };
      if (o.choices?.length && !o.choices.some((c) => c.value === text)) return { error: t('commands.errors.choose') };
      return { value: text };
    }
    default:
      // user, channel, role: the id the picker holds.
      return { value: text };
  }
}

/** The options to send, or the errors that keep the command from being sent. */
function collect(command: Command, values: Values): { options: CommandOptionValues; errors: Record<string, string> } {
  const options: CommandOptionValues = {};
  const errors: Record<string, string> = {};
  for (const o of command.options) {
    const r = fieldValue(o, values[o.name]);
    if (r.error) errors[o.name] = r.error;
    else if (r.value !== undefined) options[o.name] = r.value;
  }
  return { options, errors };
}

/** What the bot is told of the other options while one is being typed: those that hold a valid value. */
function partialOptions(command: Command, values: Values, focused: string): CommandOptionValues {
  const out: CommandOptionValues = {};
  for (const o of command.options) {
    if (o.name === focused) out[o.name] = values[o.name]?.text ?? '';
    else {
      const r = fieldValue(o, values[o.name]);
      if (!r.error && r.value !== undefined) out[o.name] = r.value;
    }
  }
  return out;
}

const errorForCode = (code: string): string | undefined => (code === 'unknown_command' ? t('commands.errors.unknownCommand') : undefined);

interface Props {
  channel: Channel;
  /** The command, or one subcommand of it: its options are the fields. */
  command: RunnableCommand;
  /** Back to the message box (Esc, the × or after sending). */
  onClose: (sent: boolean) => void;
}

export function CommandForm({ channel, command, onClose }: Props) {
  const [values, setValues] = useState<Values>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const id = useId();
  const botName = command.bot?.name ?? t('commands.bot');

  // The first field (or the send button, for a command without options) takes the cursor.
  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>('input, select, button[type="submit"]')?.focus();
  }, []);

  const setField = (name: string, v: FieldValue) => {
    setValues((prev) => ({ ...prev, [name]: v }));
    setErrors((prev) => {
      if (!(name in prev)) return prev;
      const next = { ...prev };
      delete next[name];
      return next;
    });
    setFormError(null);
  };

  const submit = async () => {
    const { options, errors: found } = collect(command, values);
    setErrors(found);
    const first = command.options.find((o) => found[o.name]);
    if (first) {
      formRef.current?.querySelector<HTMLElement>(`[data-option="${CSS.escape(first.name)}"]`)?.focus();
      return;
    }
    setSending(true);
    setFormError(null);
    try {
      await runCommand(channel, command, options);
      onClose(true);
    } catch (err) {
      setSending(false);
      setFormError((err instanceof ApiError && err.code && errorForCode(err.code)) || describeError(err));
    }
  };

  return (
    // biome-ignore lint/a11y: Escape anywhere in the form closes it; the keys come from its fields
    <form
      ref={formRef}
      className={styles.form}
      aria-label={t('commands.commandOfBotname', { command: runnableName(command), botName })}
      data-testid="command-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !e.nativeEvent.defaultPrevented) {
          e.preventDefault();
          onClose(false);
        }
      }}
    >
      <div className={styles.header}>
        <Avatar id={command.botId} name={botName} src={command.bot?.avatar} size={22} />
        <span className={styles.commandName}>/{runnableName(command)}</span>
        <span className={styles.description}>{command.description}</span>
        <span className={styles.botName}>{botName}</span>
        <button
          type="button"
          className="icon-button small"
          aria-label={t('commands.cancelCommand')}
          title={t('commands.cancelEsc')}
          onClick={() => onClose(false)}
        >
          <CloseIcon />
        </button>
      </div>
      {command.options.length > 0 && (
        <div className={styles.fields}>
          {command.options.map((o) => (
            <OptionField
              key={o.name}
              id={`${id}-${o.name}`}
              channel={channel}
              command={command}
              option={o}
              value={values[o.name]}
              values={values}
              error={errors[o.name]}
              onChange={(v) => setField(o.name, v)}
            />
          ))}
        </div>
      )}
      <div className={styles.footer}>
        {formError ? (
          <p className={styles.formError} role="alert">
            {formError}
          </p>
        ) : (
          <p className={styles.footerHint}>
            {command.options.some((o) => o.required) && (
              <>
                <span className={styles.star} aria-hidden="true">
                  *
                </span>{' '}
                {t('commands.required')}
                <span className={styles.keys}> · </span>
              </>
            )}
            <span className={styles.keys}>
              <Trans i18nKey="commands.formKeys" components={{ k: <kbd /> }} />
            </span>
          </p>
        )}
        <button type="submit" className="button primary small" disabled={sending}>
          {sending ? t('commands.sending') : t('commands.sendCommand', { command: runnableName(command) })}
        </button>
      </div>
    </form>
  );
}

interface FieldProps {
  id: string;
  channel: Channel;
  command: RunnableCommand;
  option: CommandOption;
  value: FieldValue | undefined;
  values: Values;
  error: string | undefined;
  onChange: (v: FieldValue) => void;
}

function OptionField({ id, channel, command, option: o, value, values, error, onChange }: FieldProps) {
  const hintId = `${id}-hint`;
  const range = o.type === 'integer' || o.type === 'number' ? rangeText(o) : null;
  const common = {
    id,
    'data-option': o.name,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': hintId,
    'aria-required': o.required ? true : undefined,
  };
  return (
    <div className={styles.field} data-field={o.name}>
      <label className={styles.label} htmlFor={id}>
        {o.name}
        {o.required && (
          <span className={styles.star} aria-hidden="true">
            {' '}
            *
          </span>
        )}
        <span className={styles.type}>{TYPE_LABEL[o.type]}</span>
      </label>
      <FieldInput channel={channel} command={command} option={o} value={value} values={values} common={common} onChange={onChange} />
      <p id={hintId} className={error ? styles.error : styles.hint}>
        {error ?? (range ? t('commands.descriptionWithRange', { description: o.description, range }) : o.description)}
      </p>
    </div>
  );
}

const TYPE_LABEL: Record<CommandOption['type'], string> = {
  string: 'text',
  integer: 'whole number',
  number: 'number',
  boolean: 'yes or no',
  user: 'member',
  channel: 'channel',
  role: 'role',
  attachment: 'file',
  subcommand: 'subcommand',
  subcommandGroup: 'subcommand group',
};

type Common = {
  id: string;
  'data-option': string;
  'aria-invalid': boolean | undefined;
  'aria-describedby': string;
  'aria-required': boolean | undefined;
};

function FieldInput({
  channel,
  command,
  option: o,
  value,
  values,
  common,
  onChange,
}: Omit<FieldProps, 'id' | 'error'> & { common: Common }) {
  if (o.choices?.length) {
    const idx = o.choices.findIndex((c) => c.value === value?.choice?.value);
    return (
      <select
        {...common}
        className="input"
        value={idx >= 0 ? String(idx) : ''}
        onChange={(e) => {
          const c = o.choices?.[Number(e.currentTarget.value)];
          onChange(c && e.currentTarget.value !== '' ? { text: c.name, choice: c } : { text: '' });
        }}
      >
        <option value="">{o.required ? t('commands.choose') : t('commands.none')}</option>
        {o.choices.map((c, i) => (
          <option key={String(c.value)} value={String(i)}>
            {c.name}
          </option>
        ))}
      </select>
    );
  }
  switch (o.type) {
    case 'boolean':
      return (
        <select {...common} className="input" value={value?.text ?? ''} onChange={(e) => onChange({ text: e.currentTarget.value })}>
          <option value="">{o.required ? t('commands.choose') : t('commands.notSet')}</option>
          <option value="true">{t('commands.yes')}</option>
          <option value="false">{t('commands.no')}</option>
        </select>
      );
    case 'user':
    case 'channel':
    case 'role':
      return <EntityPicker channel={channel} kind={o.type} required={!!o.required} value={value} common={common} onChange={onChange} />;
    case 'attachment':
      return <FilePicker value={value} common={common} onChange={onChange} />;
    default:
      if (o.autocomplete) {
        return (
          <AutocompleteInput
            channel={channel}
            command={command}
            option={o}
            value={value}
            values={values}
            common={common}
            onChange={onChange}
          />
        );
      }
      return (
        <input
          {...common}
          className="input"
          type="text"
          inputMode={o.type === 'integer' ? 'numeric' : o.type === 'number' ? 'decimal' : undefined}
          autoComplete="off"
          value={value?.text ?? ''}
          onChange={(e) => onChange({ text: e.currentTarget.value })}
        />
      );
  }
}

/** A member, channel or role of the server, from what the client already holds. */
function EntityPicker({
  channel,
  kind,
  required,
  value,
  common,
  onChange,
}: {
  channel: Channel;
  kind: 'user' | 'channel' | 'role';
  required: boolean;
  value: FieldValue | undefined;
  common: Common;
  onChange: (v: FieldValue) => void;
}) {
  const serverId = channel.serverId;
  const members = useStore((s) => s.members[serverId]);
  const channels = useStore((s) => s.channels[serverId]);
  const roles = useStore((s) => s.roles[serverId]);
  const me = useStore((s) => s.me);
  useEffect(() => {
    if (kind === 'user' && serverId && !members) void loadMembers(serverId).catch(() => undefined);
  }, [kind, serverId, members]);
  const entries = useMemo(() => {
    if (kind === 'user') {
      const list = members?.map((m) => ({ id: m.id, label: m.name })) ?? (me ? [{ id: me.id, label: displayName(me) }] : []);
      return list.sort((a, b) => a.label.localeCompare(b.label, undefined, { sensitivity: 'base' }));
    }
    if (kind === 'channel') {
      const state = store.getState();
      return (channels ?? [])
        .filter((c) => can(myPermissions(state, serverId, c.id), P.VIEW_CHANNEL))
        .map((c) => ({ id: c.id, label: `#${c.name}` }));
    }
    return (roles ?? []).map((r) => ({ id: r.id, label: r.id === serverId ? '@everyone' : `@${r.name}` }));
  }, [kind, members, channels, roles, serverId, me]);
  const noun = kind === 'user' ? 'a member' : kind === 'channel' ? 'a channel' : 'a role';
  return (
    <select {...common} className="input" value={value?.text ?? ''} onChange={(e) => onChange({ text: e.currentTarget.value })}>
      <option value="">{required ? t('commands.chooseNoun', { noun }) : t('commands.none')}</option>
      {entries.map((e) => (
        <option key={e.id} value={e.id}>
          {e.label}
        </option>
      ))}
    </select>
  );
}

function FilePicker({ value, common, onChange }: { value: FieldValue | undefined; common: Common; onChange: (v: FieldValue) => void }) {
  const [error, setError] = useState<string | null>(null);
  return (
    <div className={styles.file}>
      <input
        {...common}
        className={styles.fileInput}
        type="file"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (!file) return onChange({ text: '' });
          setError(null);
          onChange({ text: file.name, uploading: true });
          uploadFile(file)
            .then((r) => onChange({ text: file.name, url: r.url }))
            .catch((err) => {
              setError(describeError(err));
              onChange({ text: '' });
            });
        }}
      />
      {value?.uploading && <span className={styles.hint}>{t('commands.uploading')}</span>}
      {error && <span className={styles.error}>{error}</span>}
    </div>
  );
}

/**
 * A text or number field whose bot suggests values: each pause in typing (and focusing it)
 * asks the bot, and its choices open in a list under the field (↑ ↓, Enter to take one).
 * Taking a choice sends its value; typing again sends what was typed.
 */
function AutocompleteInput({
  channel,
  command,
  option,
  value,
  values,
  common,
  onChange,
}: {
  channel: Channel;
  command: RunnableCommand;
  option: CommandOption;
  value: FieldValue | undefined;
  values: Values;
  common: Common;
  onChange: (v: FieldValue) => void;
}) {
  const [choices, setChoices] = useState<CommandChoice[] | null>(null);
  const [loading, setLoading] = useState(false);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const aborter = useRef<AbortController | null>(null);
  const valuesRef = useRef(values);
  valuesRef.current = values;
  const listId = `${common.id}-choices`;

  useEffect(
    () => () => {
      clearTimeout(timer.current);
      aborter.current?.abort();
    },
    [],
  );

  const ask = (text: string, delay: number) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      aborter.current?.abort();
      const ctl = new AbortController();
      aborter.current = ctl;
      setLoading(true);
      const current = { ...valuesRef.current, [option.name]: { text } };
      autocomplete(channel.id, command, partialOptions(command, current, option.name), option.name, ctl.signal)
        .then((list) => {
          if (ctl.signal.aborted) return;
          setChoices(list);
          setActive(0);
          setLoading(false);
        })
        .catch(() => {
          if (ctl.signal.aborted) return;
          setChoices([]);
          setLoading(false);
        });
    }, delay);
  };

  const take = (c: CommandChoice) => {
    onChange({ text: c.name, choice: c });
    setOpen(false);
  };

  const showList = open && (loading || choices !== null);
  const items = choices ?? [];
  return (
    <div>
      <input
        {...common}
        className="input"
        type="text"
        autoComplete="off"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={showList}
        aria-controls={listId}
        aria-activedescendant={showList && items[active] ? `${listId}-${active}` : undefined}
        value={value?.text ?? ''}
        onFocus={(e) => {
          setOpen(true);
          ask(e.currentTarget.value, 0);
        }}
        onBlur={() => setOpen(false)}
        onChange={(e) => {
          const text = e.currentTarget.value;
          onChange({ text });
          setOpen(true);
          ask(text, AUTOCOMPLETE_DEBOUNCE_MS);
        }}
        onKeyDown={(e) => {
          if (!showList || !items.length) {
            if (e.key === 'ArrowDown') setOpen(true);
            return;
          }
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            setActive((active + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length);
          } else if (e.key === 'Enter' || e.key === 'Tab') {
            const c = items[active];
            if (c && !(e.key === 'Tab' && value?.choice === c)) {
              e.preventDefault();
              take(c);
            }
          } else if (e.key === 'Escape') {
            e.preventDefault();
            setOpen(false);
          }
        }}
      />
      {showList && (
        <div className={styles.choices}>
          <div className={styles.choicesTitle} aria-hidden="true">
            <Trans
              i18nKey="commands.suggestsFor"
              values={{ bot: command.bot?.name ?? t('commands.theBot') }}
              components={{ option: <span>{option.name}</span> }}
            />
          </div>
          {loading && !items.length ? (
            <p className={styles.choicesNote} role="status">
              {t('commands.asking', { bot: command.bot?.name ?? t('commands.theBotLower') })}
            </p>
          ) : !items.length ? (
            <p className={styles.choicesNote} role="status">
              {t('commands.noSuggestions')}
            </p>
          ) : null}
          <ul
            id={listId}
            // biome-ignore lint/a11y: the combobox pattern: focus stays in the input (aria-activedescendant), which handles the keys
            role="listbox"
            aria-label={t('commands.suggestionsForOption', { option: option.name })}
            className={styles.choiceList}
          >
            {items.map((c, i) => (
              // biome-ignore lint/a11y: the combobox pattern: focus stays in the input (aria-activedescendant), which handles the keys
              <li
                // biome-ignore lint/suspicious/noArrayIndexKey: two choices may share a value; the list is rebuilt, never reordered
                key={`${c.value}-${i}`}
                id={`${listId}-${i}`}
                // biome-ignore lint/a11y: the combobox pattern: focus stays in the input (aria-activedescendant), which handles the keys
                role="option"
                aria-selected={i === active}
                className={i === active ? `${styles.choice} ${styles.activeChoice}` : styles.choice}
                onMouseDown={(e) => e.preventDefault()}
                onMouseMove={() => i !== active && setActive(i)}
                onClick={() => take(c)}
              >
                {c.name}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

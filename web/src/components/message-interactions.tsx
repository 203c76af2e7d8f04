/**
 * What commands add to messages (docs/commands.md#components): rows of buttons and selects (a click waits for the
 * bot, then says so plainly when it did not answer), the "<person> used /command" line
 * above an answer, the note under an ephemeral message, the "thinking" of a deferred
 * answer, and the placeholder of a command that waits for its bot's first word.
 */
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { Button, Message, MessageInteraction, Select, SelectOption } from '../api/types';
import { dismissEphemeral, dismissPending, type PendingInteraction, pressComponent, useInteractions } from '../state/interaction-store';
import { useStore } from '../state/store';
import { Avatar, BotBadge } from './avatar';
import { CloseIcon } from './icons';
import { EmojiText } from './emoji';
import styles from './message-interactions.module.css';
import { t } from '../i18n';

const noResponse = () => t('interactions.noResponse');

/** The interactions of this session that concern one message's components. */
function usePendingFor(messageId: string): PendingInteraction[] {
  const pending = useInteractions((s) => s.pending);
  return useMemo(() => pending.filter((p) => p.kind === 'component' && p.messageId === messageId), [pending, messageId]);
}

/** The rows of buttons and selects on a message. */
export function MessageComponents({ message }: { message: Message }) {
  const rows = Array.isArray(message.components) ? message.components : [];
  const pending = usePendingFor(message.id);
  if (!rows.length) return null;
  const busy = pending.filter((p) => p.status === 'pending');
  const failures = pending.filter((p) => p.status === 'failed');
  const waiting = (customId: string) => busy.some((p) => p.customId === customId);
  return (
    <div className={styles.components} data-testid="message-components">
      {rows.map((row, r) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a message's rows have no ids; their place is their identity
        <div key={r} className={styles.row}>
          {row.components.map((c) =>
            c.type === 'button' ? (
              <ComponentButton
                key={c.customId ?? c.url ?? c.label}
                button={c}
                loading={!!c.customId && waiting(c.customId)}
                onPress={() => c.customId && void pressComponent(message, c.customId)}
              />
            ) : (
              <SelectMenu
                key={c.customId}
                select={c}
                loading={waiting(c.customId)}
                onChoose={(values) => void pressComponent(message, c.customId, values)}
              />
            ),
          )}
        </div>
      ))}
      {failures.map((f) => (
        <div key={f.key} className={styles.failure} role="alert" data-testid="interaction-failed">
          <span className={styles.failureIcon} aria-hidden="true">
            !
          </span>
          <span>{f.error ?? noResponse()}</span>
          <button
            type="button"
            className="icon-button small"
            aria-label={t('messageInteractions.dismiss')}
            title={t('messageInteractions.dismiss')}
            onClick={() => dismissPending(f.key)}
          >
            <CloseIcon />
          </button>
        </div>
      ))}
    </div>
  );
}

function ComponentButton({ button, loading, onPress }: { button: Button; loading: boolean; onPress: () => void }) {
  const cls = `${styles.button} ${styles[button.style] ?? ''}${loading ? ` ${styles.loading}` : ''}`;
  const body = (
    <>
      <span className={styles.buttonBody}>
        {button.emoji && (
          // From the bundled set, as in messages (a system emoji font may be missing: a box).
          <span className={styles.emoji} aria-hidden="true">
            <EmojiText text={button.emoji} />
          </span>
        )}
        {button.label}
        {button.style === 'link' && (
          <span className={styles.external} aria-hidden="true">
            ↗
          </span>
        )}
      </span>
      {loading && <span className={styles.spinner} aria-hidden="true" />}
    </>
  );
  if (button.style === 'link') {
    if (button.disabled || !button.url || !/^https?:\/\//i.test(button.url)) {
      return (
        <span className={cls} aria-disabled="true" data-disabled="true">
          {body}
        </span>
      );
    }
    return (
      <a className={cls} href={button.url} target="_blank" rel="noopener noreferrer" title={button.url}>
        {body}
      </a>
    );
  }
  return (
    <button
      type="button"
      className={cls}
      disabled={button.disabled}
      aria-busy={loading || undefined}
      aria-disabled={loading || undefined}
      data-custom-id={button.customId}
      onClick={() => {
        if (!loading) onPress();
      }}
    >
      {body}
    </button>
  );
}

/**
 * A select menu: a button showing the choice (or the placeholder) that opens a list of
 * options with their descriptions. One value: choosing sends it. Several: the choices are
 * sent when the list closes, when their number fits the select's minimum and maximum.
 */
function SelectMenu({ select, loading, onChoose }: { select: Select; loading: boolean; onChoose: (values: string[]) => void }) {
  const min = select.minValues ?? 1;
  const max = Math.min(select.maxValues ?? 1, select.options.length);
  const multi = max > 1;
  const initial = useMemo(() => select.options.filter((o) => o.default).map((o) => o.value), [select.options]);
  const [chosen, setChosen] = useState<string[]>(initial);
  const [open, setOpen] = useState(false);
  const [up, setUp] = useState(false);
  const [active, setActive] = useState(0);
  const [note, setNote] = useState<string | null>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const listId = useId();
  const sentRef = useRef(initial);

  // The message changed (the bot's answer): its defaults are the state again.
  useEffect(() => {
    setChosen(initial);
    sentRef.current = initial;
  }, [initial]);

  useLayoutEffect(() => {
    if (!open) return;
    // Open upwards in the lower half of the window, where the composer would hide the list.
    const r = trigger.current?.getBoundingClientRect();
    setUp(!!r && r.top > window.innerHeight / 2);
    list.current?.focus();
  }, [open]);

  const labels = select.options.filter((o) => chosen.includes(o.value)).map((o) => o.label);
  const disabled = !!select.disabled || loading;

  const close = (send: boolean) => {
    setOpen(false);
    trigger.current?.focus();
    if (!send || !multi) return;
    const same = chosen.length === sentRef.current.length && chosen.every((v) => sentRef.current.includes(v));
    if (same) return;
    if (chosen.length < min) {
      setNote(t('interactions.chooseAtLeast', { min }));
      return;
    }
    sentRef.current = chosen;
    onChoose(chosen);
  };

  const toggle = (o: SelectOption) => {
    setNote(null);
    if (!multi) {
      setChosen([o.value]);
      sentRef.current = [o.value];
      setOpen(false);
      trigger.current?.focus();
      onChoose([o.value]);
      return;
    }
    setChosen((prev) => {
      if (prev.includes(o.value)) return prev.filter((v) => v !== o.value);
      if (prev.length >= max) {
        setNote(t('interactions.chooseAtMost', { max }));
        return prev;
      }
      return [...prev, o.value];
    });
  };

  return (
    <div className={styles.select}>
      <button
        ref={trigger}
        type="button"
        className={`${styles.selectTrigger}${loading ? ` ${styles.loading}` : ''}`}
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        aria-busy={loading || undefined}
        disabled={!!select.disabled}
        aria-disabled={loading || undefined}
        data-custom-id={select.customId}
        onClick={() => !disabled && (open ? close(true) : setOpen(true))}
      >
        <span className={labels.length ? styles.selectValue : styles.placeholder}>
          {labels.length
            ? labels.join(', ')
            : (select.placeholder ?? (multi ? t('messageInteractions.makeSelections') : t('messageInteractions.makeASelection')))}
        </span>
        {loading ? <span className={styles.spinner} aria-hidden="true" /> : <span className={styles.chevron} aria-hidden="true" />}
      </button>
      {open && (
        <ul
          ref={list}
          id={listId}
          // biome-ignore lint/a11y: a listbox holding the focus (aria-activedescendant), which handles the keys
          role="listbox"
          tabIndex={-1}
          aria-multiselectable={multi || undefined}
          aria-label={select.placeholder ?? t('messageInteractions.options')}
          aria-activedescendant={`${listId}-${active}`}
          className={`${styles.selectList}${up ? ` ${styles.up}` : ''}`}
          onBlur={(e) => {
            if (!e.currentTarget.contains(e.relatedTarget as Node | null) && e.relatedTarget !== trigger.current) close(true);
          }}
          onKeyDown={(e) => {
            const n = select.options.length;
            if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
              e.preventDefault();
              setActive((active + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
            } else if (e.key === 'Enter' || e.key === ' ') {
              e.preventDefault();
              const o = select.options[active];
              if (o) toggle(o);
            } else if (e.key === 'Escape' || e.key === 'Tab') {
              if (e.key === 'Escape') e.preventDefault();
              close(e.key === 'Tab' || multi);
            }
          }}
        >
          {select.options.map((o, i) => {
            const on = chosen.includes(o.value);
            return (
              // biome-ignore lint/a11y: the listbox holds the focus (aria-activedescendant) and handles the keys
              <li
                key={o.value}
                id={`${listId}-${i}`}
                // biome-ignore lint/a11y: an option of the listbox above
                role="option"
                aria-selected={on}
                className={`${styles.selectOption}${i === active ? ` ${styles.activeOption}` : ''}`}
                onMouseDown={(e) => e.preventDefault()}
                onMouseMove={() => i !== active && setActive(i)}
                onClick={() => toggle(o)}
              >
                <span className={styles.optionText}>
                  <span className={styles.optionLabel}>{o.label}</span>
                  {o.description && <span className={styles.optionDescription}>{o.description}</span>}
                </span>
                <span className={on ? `${styles.check} ${styles.checked}` : styles.check} aria-hidden="true" />
              </li>
            );
          })}
          {multi && (
            <li className={styles.selectHint} role="presentation">
              {t('messageInteractions.selectHint', {
                choose:
                  note ??
                  (min === max ? t('messageInteractions.chooseMin', { min }) : t('messageInteractions.chooseMinToMax', { min, max })),
              })}
            </li>
          )}
        </ul>
      )}
      {note && !open && (
        <p className={styles.selectNote} role="status">
          {note}
        </p>
      )}
    </div>
  );
}

/** "<person> used /roll" above an answer to a command, as Discord shows it. */
export function InvokerLine({ interaction }: { interaction: MessageInteraction }) {
  const meId = useStore((s) => s.me?.id);
  const user = interaction.user;
  return (
    <div className={styles.invoker} data-invoker={user.id}>
      <span className={styles.spine} aria-hidden="true" />
      <Avatar id={user.id} name={user.name} src={user.avatar} size={16} />
      <span className={styles.invokerName}>{user.id === meId ? t('messageInteractions.you') : user.name}</span>
      <span className={styles.invokerUsed}>{t('messageInteractions.used')}</span>
      {/* A user or message command's name is shown as it is (no slash), as on Discord. */}
      <span className={styles.invokerCommand}>
        {interaction.commandType ? '' : '/'}
        {interaction.name}
      </span>
    </div>
  );
}

/** The note under an ephemeral message, with the way to make it go. */
export function EphemeralNote({ message }: { message: Message }) {
  return (
    <div className={styles.ephemeralNote}>
      <span className={styles.eye} aria-hidden="true" />
      <span>{t('messageInteractions.onlyYouCanSee')}</span>
      <span aria-hidden="true">·</span>
      <button type="button" className="link-button" onClick={() => dismissEphemeral(message.channelId, message.id)}>
        {t('messageInteractions.dismissMessage')}
      </button>
    </div>
  );
}

/** A deferred answer's placeholder: "<bot> is thinking…" until the bot edits it. */
export function Thinking({ name }: { name: string }) {
  return (
    <div className={styles.thinking} role="status">
      <span className={styles.dots} aria-hidden="true">
        <span />
        <span />
        <span />
      </span>
      {t('messageInteractions.nameIsThinking', { name })}
    </div>
  );
}

/**
 * The commands this person ran in the channel whose bot has not said anything yet: a
 * placeholder each at the bottom of the list, which becomes "The bot did not respond"
 * (dismissable) when the window passes.
 */
export function PendingCommands({ channelId }: { channelId: string }) {
  const all = useInteractions((s) => s.pending);
  const me = useStore((s) => s.me);
  const mine = useMemo(() => all.filter((p) => p.kind === 'command' && p.channelId === channelId), [all, channelId]);
  if (!mine.length || !me) return null;
  return (
    <>
      {mine.map((p) => {
        const cmd = p.command;
        const name = cmd?.botName ?? t('messageInteractions.theBot');
        return (
          <li key={p.key} className={styles.pending} data-pending-command={cmd?.name} data-status={p.status}>
            <div className={styles.pendingInvoker}>
              <span className={styles.spine} aria-hidden="true" />
              <Avatar id={me.id} name={me.name} src={me.avatar} size={16} />
              <span className={styles.invokerName}>{t('messageInteractions.you')}</span>
              <span className={styles.invokerUsed}>{t('messageInteractions.used')}</span>
              <span className={styles.invokerCommand}>
                {cmd?.contextMenu ? '' : '/'}
                {cmd?.name}
              </span>
            </div>
            <div className={styles.pendingGutter}>
              <Avatar id={cmd?.botId ?? 'bot'} name={name} src={cmd?.botAvatar} />
            </div>
            <div>
              <div className={styles.pendingHeader}>
                <span className={styles.pendingName}>{name}</span>
                <BotBadge />
              </div>
              {p.status === 'pending' ? (
                <Thinking name={name} />
              ) : (
                <div className={styles.failure} role="alert" data-testid="interaction-failed">
                  <span className={styles.failureIcon} aria-hidden="true">
                    !
                  </span>
                  <span>{p.error ?? noResponse()}</span>
                  <button
                    type="button"
                    className="icon-button small"
                    aria-label={t('messageInteractions.dismiss')}
                    title={t('messageInteractions.dismiss')}
                    onClick={() => dismissPending(p.key)}
                  >
                    <CloseIcon />
                  </button>
                </div>
              )}
            </div>
          </li>
        );
      })}
    </>
  );
}

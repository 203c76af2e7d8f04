/**
 * The composer's autocomplete: what `@`, `#` and `:` offer, and the list that shows it.
 * `@`: members of the server, roles that may be mentioned (all of them with
 * MENTION_EVERYONE), and `@everyone` / `@here` with MENTION_EVERYONE; `#`: the channels
 * the viewer can see; `:` and two characters: emoji by shortcode, name or keyword (the
 * picker's data, fetched the first time `:` is typed; the quick reactions until then).
 */
import type { CSSProperties, KeyboardEvent, ReactNode, RefObject, SyntheticEvent } from 'react';
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { Channel, Member, Role } from '../api/types';
import { type DraftMention, findTrigger, type Trigger } from '../lib/mentions';
import { memberColors, nameColor, nameColorStyle } from '../lib/name-color';
import { can, myPermissions, P, usePermissions } from '../state/permissions';
import { store, useStore } from '../state/store';
import { Avatar, BotBadge } from './avatar';
import { loadEmojiData } from '../lib/emoji';
import { Emoji } from './emoji';
import { QUICK_EMOJI, searchEmoji } from './emoji-picker';
import styles from './composer-suggestions.module.css';
import roleName from './role-name.module.css';
import { Trans } from 'react-i18next';
import { t } from '../i18n';

export interface Suggestion {
  key: string;
  kind: 'member' | 'role' | 'everyone' | 'here' | 'channel' | 'emoji';
  /** What the row shows. */
  label: string;
  detail?: string;
  /** What replaces the trigger and query in the textarea. */
  insert: string;
  /** For names: the syntax sent in their place. */
  mention?: DraftMention;
  member?: Member;
  color?: number;
  emoji?: string;
}

const MAX = 10;
const MAX_MEMBERS = 8;

/** 0: the name starts with the query; 1: a word in it does; 2: it contains it; -1: no match. */
function rank(name: string, query: string): number {
  if (!query) return 0;
  const n = name.toLowerCase();
  if (n.startsWith(query)) return 0;
  if (n.split(/[\s_-]+/u).some((w) => w.startsWith(query))) return 1;
  return n.includes(query) ? 2 : -1;
}

/** The best matches; equally good ones by name, or (`keepOrder`) in the order given. */
function best<T>(items: readonly T[], name: (t: T) => string, query: string, limit: number, keepOrder = false): T[] {
  const scored: { item: T; r: number; n: string; i: number }[] = [];
  items.forEach((item, i) => {
    const n = name(item);
    const r = rank(n, query);
    if (r >= 0) scored.push({ item, r, n, i });
  });
  scored.sort((a, b) => a.r - b.r || (keepOrder ? a.i - b.i : a.n.localeCompare(b.n, undefined, { sensitivity: 'base' })));
  return scored.slice(0, limit).map((s) => s.item);
}

const EMOJI = QUICK_EMOJI.map(([emoji, name]) => ({ emoji, code: name.replace(/\s+/g, '_') }));

type EmojiData = Awaited<ReturnType<typeof loadEmojiData>>;

/** The emoji data, once `:` has been typed (null until it has arrived). */
function useEmojiData(wanted: boolean): EmojiData | null {
  const [data, setData] = useState<EmojiData | null>(null);
  useEffect(() => {
    if (!wanted || data) return;
    let live = true;
    loadEmojiData().then(
      (d) => live && setData(d),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [wanted, data]);
  return data;
}

export function useSuggestions(trigger: Trigger | null, channel: Pick<Channel, 'id' | 'serverId'>): Suggestion[] {
  const serverId = channel.serverId;
  const members = useStore((s) => s.members[serverId]);
  const roles = useStore((s) => s.roles[serverId]);
  const channels = useStore((s) => s.channels[serverId]);
  // Visible channels depend on overwrites and the viewer's roles: recomputed when those change.
  const bits = usePermissions(serverId, channel.id);
  const everyone = can(bits, P.MENTION_EVERYONE);
  const emojiData = useEmojiData(trigger?.char === ':');

  return useMemo(() => {
    if (!trigger) return [];
    const q = trigger.query.toLowerCase();
    if (trigger.char === ':' && emojiData) {
      return searchEmoji(emojiData, q, MAX).map((e) => {
        const code = e.s.find((c) => c.startsWith(q)) ?? e.s[0] ?? e.n.replace(/\s+/g, '_');
        return { key: `emoji:${e.c}`, kind: 'emoji', label: `:${code}:`, detail: e.n, insert: e.c, emoji: e.c };
      });
    }
    if (trigger.char === ':') {
      // The picker's list is in order of use: 👍 before 👎 for ":thu".
      return best(EMOJI, (e) => e.code, q, MAX, true).map((e) => ({
        key: `emoji:${e.emoji}`,
        kind: 'emoji',
        label: `:${e.code}:`,
        insert: e.emoji,
        emoji: e.emoji,
      }));
    }
    if (trigger.char === '#') {
      // Read now; the memo's inputs (channels, roles, the viewer's roles) say when to again.
      const state = store.getState();
      const visible = (channels ?? []).filter((c) => can(myPermissions(state, serverId, c.id), P.VIEW_CHANNEL));
      return best(visible, (c) => c.name, q, MAX).map((c) => ({
        key: `channel:${c.id}`,
        kind: 'channel',
        label: c.name,
        detail: c.topic ?? undefined,
        insert: `#${c.name}`,
        mention: { display: `#${c.name}`, syntax: `<#${c.id}>` },
      }));
    }
    const colors = memberColors(members, roles);
    const out: Suggestion[] = best(members ?? [], (m) => m.name, q, MAX_MEMBERS).map((m) => ({
      key: `member:${m.id}`,
      kind: 'member',
      label: m.name,
      insert: `@${m.name}`,
      mention: { display: `@${m.name}`, syntax: `<@${m.id}>` },
      member: m,
      color: colors.get(m.id),
    }));
    const mentionable = (roles ?? []).filter((r: Role) => r.id !== serverId && (r.mentionable || everyone));
    for (const r of best(mentionable, (r) => r.name, q, MAX - out.length)) {
      out.push({
        key: `role:${r.id}`,
        kind: 'role',
        label: `@${r.name}`,
        detail: r.mentionable ? t('composer.role') : t('composer.roleOnlyYou'),
        insert: `@${r.name}`,
        mention: { display: `@${r.name}`, syntax: `<@&${r.id}>` },
        color: r.color,
      });
    }
    if (everyone) {
      const special: Suggestion[] = [
        { key: 'everyone', kind: 'everyone', label: '@everyone', detail: t('composer.notifyEveryone'), insert: '@everyone' },
        { key: 'here', kind: 'here', label: '@here', detail: t('composer.notifyHere'), insert: '@here' },
      ];
      for (const s of special) if (rank(s.kind, q) >= 0 && out.length < MAX) out.push(s);
    }
    return out;
  }, [trigger, serverId, members, roles, channels, everyone, emojiData]);
}

interface AutocompleteOptions {
  text: string;
  setText: (text: string) => void;
  area: RefObject<HTMLTextAreaElement | null>;
  channel: Pick<Channel, 'id' | 'serverId'>;
  /** A name was picked: it stands for `mention` when the text is sent. */
  onMention: (mention: DraftMention) => void;
}

interface Autocomplete {
  /** The popup, while there is something to offer (placed against the nearest positioned box). */
  list: ReactNode;
  /** Whether the popup is showing. */
  open: boolean;
  /** The caret while the box has focus and nothing is selected; null otherwise. */
  caret: number | null;
  /** Puts the caret at `at` once the next text is in the box (after inserting something). */
  placeCaret: (at: number) => void;
  /** The text box's ARIA wiring and caret tracking. */
  inputProps: {
    'aria-autocomplete': 'list';
    'aria-haspopup': 'listbox';
    'aria-controls': string | undefined;
    'aria-activedescendant': string | undefined;
    onSelect: (e: SyntheticEvent<HTMLTextAreaElement>) => void;
    onFocus: (e: SyntheticEvent<HTMLTextAreaElement>) => void;
    onBlur: () => void;
  };
  /** Call from onChange with the new value and caret. */
  changed: (value: string, caret: number) => void;
  /** Call first from onKeyDown: true when the key was the popup's (moving, picking, closing). */
  onKeyDown: (e: KeyboardEvent<HTMLTextAreaElement>) => boolean;
}

/**
 * The composer's `@`, `#` and `:` autocomplete, for another text box (a message being
 * edited): the same suggestions and keys (arrows, Enter or Tab to pick, Escape to close),
 * and a picked name written readably, as the composer writes it.
 */
export function useAutocomplete({ text, setText, area, channel, onMention }: AutocompleteOptions): Autocomplete {
  const [caret, setCaret] = useState<number | null>(null);
  const [dismissed, setDismissed] = useState<number | null>(null);
  const [active, setActive] = useState(0);
  const pendingCaret = useRef<number | null>(null);
  const listId = useId();
  const found = caret === null ? null : findTrigger(text, caret);
  const trigger = found && found.start !== dismissed ? found : null;
  const items = useSuggestions(trigger, channel);
  const open = !!trigger && items.length > 0;
  const activeIndex = Math.min(active, items.length - 1);
  const triggerKey = trigger ? `${trigger.char}${trigger.start}:${trigger.query}` : '';
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-runs on purpose: a new trigger or query starts at the first suggestion
  useEffect(() => {
    setActive(0);
  }, [triggerKey]);

  // After a pick, the caret goes after the inserted name.
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-runs on purpose: the caret is placed once the picked text is in the box
  useLayoutEffect(() => {
    const el = area.current;
    const at = pendingCaret.current;
    if (!el || at === null) return;
    pendingCaret.current = null;
    el.setSelectionRange(at, at);
  }, [text, area]);

  const pick = (item: Suggestion) => {
    const el = area.current;
    if (!trigger || !el) return;
    const end = caret ?? el.selectionEnd;
    const after = text.slice(end);
    const spacer = after.startsWith(' ') ? '' : ' ';
    if (item.mention) onMention(item.mention);
    const at = trigger.start + item.insert.length + 1;
    pendingCaret.current = at;
    setText(text.slice(0, trigger.start) + item.insert + spacer + after);
    setCaret(at);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || e.nativeEvent.isComposing) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      setActive((activeIndex + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length);
    } else if ((e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey) {
      const item = items[activeIndex];
      if (item) pick(item);
    } else if (e.key === 'Escape') {
      setDismissed(trigger?.start ?? null);
    } else return false;
    e.preventDefault();
    e.stopPropagation();
    return true;
  };

  return {
    open,
    caret,
    placeCaret: (at) => {
      pendingCaret.current = at;
    },
    list:
      open && trigger ? (
        <SuggestionList id={listId} trigger={trigger} items={items} active={activeIndex} onHover={setActive} onPick={pick} />
      ) : null,
    inputProps: {
      'aria-autocomplete': 'list',
      'aria-haspopup': 'listbox',
      'aria-controls': open ? listId : undefined,
      'aria-activedescendant': open ? suggestionId(listId, activeIndex) : undefined,
      onSelect: (e) => setCaret(e.currentTarget.selectionStart === e.currentTarget.selectionEnd ? e.currentTarget.selectionStart : null),
      onFocus: (e) => setCaret(e.currentTarget.selectionStart),
      onBlur: () => setCaret(null),
    },
    changed: (value, at) => {
      setCaret(at);
      if (dismissed !== null && dismissed >= value.length) setDismissed(null);
    },
    onKeyDown,
  };
}

const TITLES: Record<Trigger['char'], 'members' | 'channels' | 'emoji'> = { '@': 'members', '#': 'channels', ':': 'emoji' };

export const suggestionId = (listId: string, index: number) => `${listId}-${index}`;

interface ListProps {
  id: string;
  trigger: Trigger;
  items: Suggestion[];
  active: number;
  onHover: (index: number) => void;
  onPick: (item: Suggestion) => void;
}

/**
 * The popup above the composer. Focus stays in the textarea (its `aria-activedescendant`
 * names the active row); pressing a row does not take focus either.
 */
export function SuggestionList({ id, trigger, items, active, onHover, onPick }: ListProps) {
  return (
    <div className={styles.popup}>
      <div className={styles.title} id={`${id}-title`}>
        {trigger.char === ':' || trigger.query ? (
          <Trans
            i18nKey={trigger.char === ':' ? 'composer.suggestionTitleEmoji' : 'composer.suggestionTitleMatching'}
            values={{ title: t(`composer.suggestionTitle.${TITLES[trigger.char]}`), query: `${trigger.char}${trigger.query}` }}
            components={{ q: <span className={styles.query} /> }}
          />
        ) : (
          t(`composer.suggestionTitle.${TITLES[trigger.char]}`)
        )}
      </div>
      {/* biome-ignore lint/a11y: the combobox pattern: focus stays in the input (aria-activedescendant), which handles the keys */}
      <ul className={styles.list} role="listbox" id={id} aria-labelledby={`${id}-title`}>
        {items.map((item, i) => (
          // biome-ignore lint/a11y: the combobox pattern: focus stays in the input (aria-activedescendant), which handles the keys
          <li
            key={item.key}
            id={suggestionId(id, i)}
            // biome-ignore lint/a11y: the combobox pattern: focus stays in the input (aria-activedescendant), which handles the keys
            role="option"
            aria-selected={i === active}
            data-label={item.label}
            className={i === active ? `${styles.option} ${styles.active}` : styles.option}
            onMouseDown={(e) => e.preventDefault()}
            onMouseMove={() => i !== active && onHover(i)}
            onClick={() => onPick(item)}
          >
            <SuggestionRow item={item} />
          </li>
        ))}
      </ul>
      <div className={styles.hint} aria-hidden="true">
        <Trans i18nKey="composer.suggestionKeys" components={{ k: <kbd /> }} />
      </div>
    </div>
  );
}

function SuggestionRow({ item }: { item: Suggestion }) {
  const color = nameColor(item.color);
  const colored = color ? `${styles.label} ${roleName.colored}` : styles.label;
  switch (item.kind) {
    case 'member':
      return (
        <>
          <Avatar id={item.member?.id ?? item.key} name={item.label} src={item.member?.avatar} size={24} />
          <span className={colored} style={nameColorStyle(color)}>
            {item.label}
          </span>
          {item.member?.bot && <BotBadge />}
        </>
      );
    case 'role':
      return (
        <>
          <span className={styles.roleDot} style={{ '--dot': color ? color.raw : 'var(--faint)' } as CSSProperties} aria-hidden="true" />
          <span className={colored} style={nameColorStyle(color)}>
            {item.label}
          </span>
          <span className={styles.detail}>{item.detail}</span>
        </>
      );
    case 'channel':
      return (
        <>
          <span className={styles.symbol} aria-hidden="true">
            #
          </span>
          <span className={styles.label}>{item.label}</span>
          {item.detail && <span className={styles.detail}>{item.detail}</span>}
        </>
      );
    case 'emoji':
      return (
        <>
          <span className={styles.emoji} aria-hidden="true">
            {item.emoji && <Emoji emoji={item.emoji} decorative />}
          </span>
          <span className={styles.label}>{item.label}</span>
          {item.detail && <span className={styles.detail}>{item.detail}</span>}
        </>
      );
    default:
      return (
        <>
          <span className={styles.symbol} aria-hidden="true">
            @
          </span>
          <span className={styles.label}>{item.label}</span>
          <span className={styles.detail}>{item.detail}</span>
        </>
      );
  }
}

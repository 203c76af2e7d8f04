/**
 * The composer's autocomplete: what `@`, `#` and `:` offer, and the list that shows it.
 * `@`: members of the server, roles that may be mentioned (all of them with
 * MENTION_EVERYONE), and `@everyone` / `@here` with MENTION_EVERYONE; `#`: the channels
 * the viewer can see; `:` and two characters: emoji by shortcode, name or keyword (the
 * picker's data, fetched the first time `:` is typed; the quick reactions until then).
 */
import type { CSSProperties } from 'react';
import { useEffect, useMemo, useState } from 'react';
import type { Channel, Member, Role } from '../api/types';
import type { DraftMention, Trigger } from '../lib/mentions';
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

export function useSuggestions(trigger: Trigger | null, channel: Channel): Suggestion[] {
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

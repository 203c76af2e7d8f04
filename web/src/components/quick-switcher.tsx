/**
 * The quick switcher (Ctrl+K, ⌘K on macOS), as Discord has it: a search box over every
 * channel of the person's servers, their DMs and the servers themselves, narrowed as it is
 * typed (best matches first), the recently visited ones first while the box is empty.
 * A leading `#`, `@` or `*` keeps only channels, DMs or servers. Focus stays in the box,
 * which points at the active row with `aria-activedescendant` (a combobox over a listbox);
 * ↑ ↓ choose, Enter goes, Esc closes and gives focus back where it was (the dialog does).
 * It lists only what the client state holds, which is only what the person can see.
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { dmOthers, dmTitle, isUnread, mentionsIn, notifyRule } from '../state/conversations';
import { type State, useStore } from '../state/store';
import { navigate, paths, usePath } from '../router';
import { safeImageSrc } from '../markdown/parse';
import { Avatar } from './avatar';
import { Dialog } from './dialog';
import { MentionBadge } from './mention-badge';
import { RECENT_MAX, rankItems, type SwitcherItem } from '../lib/quick-switch';
import styles from './quick-switcher.module.css';
import { t } from '../i18n';

const RECENT_KEY = 'parley.recentPlaces';

/** The places visited, newest first (channel and DM ids, and server ids). */
function readRecent(): string[] {
  try {
    const list = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]');
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

function remember(id: string): void {
  try {
    const list = [id, ...readRecent().filter((x) => x !== id)].slice(0, RECENT_MAX);
    localStorage.setItem(RECENT_KEY, JSON.stringify(list));
  } catch {
    /* storage unavailable */
  }
}

/** The ids of what a path shows: a server and its channel, or a DM. */
function placesOf(path: string): string[] {
  const ch = /^\/s\/([0-9]+)(?:\/c\/([0-9]+))?/.exec(path);
  if (ch?.[1]) return ch[2] ? [ch[1], ch[2]] : [ch[1]];
  const dm = /^\/dms\/([0-9]+)/.exec(path);
  return dm?.[1] ? [dm[1]] : [];
}

/** Everything the switcher can go to, from the client state. */
export function switcherItems(
  state: Pick<State, 'me' | 'servers' | 'serverOrder' | 'channels' | 'dms' | 'readStates' | 'settings'>,
): SwitcherItem[] {
  const items: SwitcherItem[] = [];
  const meId = state.me?.id;
  for (const dm of Object.values(state.dms)) {
    const other = dmOthers(dm, meId)[0];
    const name = dmTitle(dm, meId);
    items.push({
      kind: 'dm',
      id: dm.id,
      name,
      path: paths.dm(dm.id),
      unread: isUnread(state, dm.id, dm.lastMessageId),
      mentions: isUnread(state, dm.id, dm.lastMessageId) ? mentionsIn(state, dm.id) : 0,
      avatar: dm.type === 'dm' && other ? { id: other.id, name, src: other.avatar } : { id: dm.id, name },
    });
  }
  for (const serverId of state.serverOrder) {
    const server = state.servers[serverId];
    if (!server) continue;
    let serverUnread = false;
    let serverMentions = 0;
    const muted = !!state.settings?.servers?.[serverId]?.muted;
    for (const c of state.channels[serverId] ?? []) {
      const unread = isUnread(state, c.id, c.lastMessageId) && !muted && !notifyRule(state.settings, serverId, c.id).muted;
      const mentions = isUnread(state, c.id, c.lastMessageId) ? mentionsIn(state, c.id) : 0;
      serverUnread ||= unread;
      serverMentions += mentions;
      items.push({ kind: 'channel', id: c.id, name: c.name, where: server.name, path: paths.channel(serverId, c.id), unread, mentions });
    }
    items.push({
      kind: 'server',
      id: serverId,
      name: server.name,
      path: paths.server(serverId),
      unread: serverUnread,
      mentions: serverMentions,
      avatar: { id: serverId, name: server.name, src: server.icon },
    });
  }
  return items;
}

export const isMacKeyboard = () => /mac|iphone|ipad/i.test(navigator.platform || navigator.userAgent);

/** The shortcut as this keyboard writes it. */
export const switcherShortcut = () => (isMacKeyboard() ? '⌘K' : 'Ctrl+K');

const OPEN_EVENT = 'parley:quick-switcher';

/** Opens the switcher without the keyboard (the rail's button, for phones and pointers). */
export function openQuickSwitcher(): void {
  window.dispatchEvent(new Event(OPEN_EVENT));
}

/**
 * Listens for Ctrl+K (⌘K on macOS) everywhere once logged in, remembers the places
 * visited, and shows the switcher. Rendered once, in the app shell.
 */
export function QuickSwitcherHost() {
  const me = useStore((s) => s.me);
  const path = usePath();
  const [open, setOpen] = useState(false);
  useEffect(() => {
    for (const id of placesOf(path).reverse()) remember(id);
  }, [path]);
  useEffect(() => {
    if (!me) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() !== 'k' || e.altKey || e.shiftKey || !(isMacKeyboard() ? e.metaKey : e.ctrlKey)) return;
      e.preventDefault();
      setOpen((o) => !o);
    };
    const onOpen = () => setOpen(true);
    window.addEventListener('keydown', onKey);
    window.addEventListener(OPEN_EVENT, onOpen);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener(OPEN_EVENT, onOpen);
    };
  }, [me]);
  if (!me || !open) return null;
  return <QuickSwitcher currentPath={path} onClose={() => setOpen(false)} />;
}

function QuickSwitcher({ currentPath, onClose }: { currentPath: string; onClose: () => void }) {
  const me = useStore((s) => s.me);
  const servers = useStore((s) => s.servers);
  const serverOrder = useStore((s) => s.serverOrder);
  const channels = useStore((s) => s.channels);
  const dms = useStore((s) => s.dms);
  const readStates = useStore((s) => s.readStates);
  const settings = useStore((s) => s.settings);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const recent = useMemo(readRecent, []);
  const all = useMemo(
    () => switcherItems({ me, servers, serverOrder, channels, dms, readStates, settings }),
    [me, servers, serverOrder, channels, dms, readStates, settings],
  );
  const current = useMemo(() => placesOf(currentPath), [currentPath]);
  const items = useMemo(() => rankItems(all, query, recent, current), [all, query, recent, current]);
  const listId = useId();
  const hintId = useId();
  const list = useRef<HTMLDivElement>(null);
  const index = Math.min(active, Math.max(0, items.length - 1));
  const optionId = (i: number) => `${listId}-o${i}`;

  useEffect(() => {
    list.current?.querySelector(`[id="${CSS.escape(optionId(index))}"]`)?.scrollIntoView({ block: 'nearest' });
  });

  const go = (item: SwitcherItem | undefined) => {
    if (!item) return;
    onClose();
    navigate(item.path);
  };

  return (
    <Dialog title={t('switcher.title')} onClose={onClose} className={styles.switcher}>
      <div className={styles.box}>
        <input
          type="text"
          className={styles.input}
          role="combobox"
          aria-expanded={items.length > 0}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={items.length ? optionId(index) : undefined}
          aria-describedby={hintId}
          aria-label={t('switcher.label')}
          placeholder={t('switcher.placeholder')}
          autoComplete="off"
          spellCheck={false}
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setActive(0);
          }}
          onKeyDown={(e) => {
            if (e.nativeEvent.isComposing) return;
            const n = items.length;
            if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
              e.preventDefault();
              if (n) setActive((index + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
            } else if (e.key === 'Enter') {
              e.preventDefault();
              go(items[index]);
            }
          }}
        />
      </div>
      {!query && items.length > 0 && <div className={styles.heading}>{t('switcher.recent')}</div>}
      <div id={listId} ref={list} role="listbox" aria-label={t('switcher.results')} className={styles.list}>
        {items.map((item, i) => (
          // biome-ignore lint/a11y: the combobox pattern: focus stays in the search box (aria-activedescendant), which handles the keys
          <div
            key={`${item.kind}:${item.id}`}
            id={optionId(i)}
            role="option"
            aria-selected={i === index}
            className={`${styles.option}${i === index ? ` ${styles.active}` : ''}${item.unread || item.mentions ? ` ${styles.unread}` : ''}`}
            data-kind={item.kind}
            onMouseMove={() => i !== index && setActive(i)}
            // A press must not take focus from the box before the click goes.
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => go(item)}
          >
            <ItemIcon item={item} />
            <span className={styles.name}>{item.name}</span>
            {item.where && <span className={styles.where}>{item.where}</span>}
            {item.unread && !item.mentions && (
              <span className={styles.dot}>
                <span className="visually-hidden">{t('switcher.unread')}</span>
              </span>
            )}
            <MentionBadge count={item.mentions} className={styles.badge} />
            <span className="visually-hidden">{t(`switcher.kind.${item.kind}`)}</span>
          </div>
        ))}
      </div>
      {items.length === 0 && (
        <p className={styles.empty} role="status">
          {query ? t('switcher.noMatch', { query: query.trim() }) : t('switcher.nothingYet')}
        </p>
      )}
      <p id={hintId} className={styles.hint}>
        <span className={styles.tip}>{t('switcher.tip')}</span> {t('switcher.hint')}
        <span className="visually-hidden"> {t('switcher.keys')}</span>
      </p>
    </Dialog>
  );
}

function ItemIcon({ item }: { item: SwitcherItem }) {
  if (item.kind === 'channel') {
    return (
      <span className={styles.icon} aria-hidden="true">
        #
      </span>
    );
  }
  if (item.kind === 'server') {
    const src = safeImageSrc(item.avatar?.src);
    return (
      <span className={`${styles.icon} ${styles.serverIcon}`} aria-hidden="true">
        {src ? <img src={src} alt="" referrerPolicy="no-referrer" /> : <Avatar id={item.id} name={item.name} size={20} />}
      </span>
    );
  }
  return (
    <span className={styles.icon} aria-hidden="true">
      <Avatar id={item.avatar?.id ?? item.id} name={item.name} src={item.avatar?.src} size={20} />
    </span>
  );
}

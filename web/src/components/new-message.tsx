/**
 * "New message": a person picker over the people one shares a server with
 * (`GET /users/@me/contacts`, docs/api.md#direct-messages). One person picked opens (or
 * finds) the DM with them; two to nine make a new group, with an optional name. The
 * picked people are chips inside the "To" field, which is a combobox: arrows move through
 * the list, Enter adds or removes the highlighted person, Backspace on an empty field
 * removes the last chip, and Enter with nobody highlighted starts the conversation.
 */
import { type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState, useSyncExternalStore } from 'react';
import { type Contact, OBJECT_LIMITS } from '@parley/protocol';
import { ApiError, api } from '../api/client';
import type { DmChannel, OpenDmBody } from '../api/types';
import { displayName } from '../api/types';
import { openDm } from '../state/conversations';
import { store, useStore } from '../state/store';
import { navigate, paths } from '../router';
import { t } from '../i18n';
import { Avatar, BotBadge } from './avatar';
import { Dialog } from './dialog';
import { CloseIcon } from './icons';
import dialogStyles from './dialog.module.css';
import styles from './new-message.module.css';

/** The others a group may hold (the creator is the tenth). */
const MAX_PICKS = OBJECT_LIMITS.groupDmMembers - 1;
/** How long typing rests before the list is asked for (the route allows 30 look-ups in 10 s). */
const DEBOUNCE_MS = 150;
const PAGE = 25;

type Person = Contact['user'];

let isOpen = false;
const listeners = new Set<() => void>();
const emit = () => {
  for (const l of listeners) l();
};

/** Opens the picker (the DM list's button, the empty DM page's). */
export function openNewMessage(): void {
  isOpen = true;
  emit();
}

function closeNewMessage(): void {
  isOpen = false;
  emit();
}

/** Draws the picker while it is open (the DM list holds it). */
export function NewMessageHost() {
  const open = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => isOpen,
  );
  return open ? <NewMessageDialog onClose={closeNewMessage} /> : null;
}

/** A page of the people one shares a server with (`q`: part of a name), after `after`; their presence goes to the store. */
async function fetchContacts(q: string, after?: string): Promise<Contact[]> {
  const params = new URLSearchParams({ limit: String(PAGE) });
  if (q) params.set('q', q);
  if (after) params.set('after', after);
  const found = await api.get<Contact[]>(`/users/@me/contacts?${params}`);
  // The list is the freshest word on their presence, until the next PRESENCE_UPDATE.
  for (const c of found) store.dispatch({ type: 'presence/set', userId: c.user.id, status: c.presence });
  return found;
}

function NewMessageDialog({ onClose }: { onClose: () => void }) {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<Contact[] | null>(null);
  const [loading, setLoading] = useState(false);
  const [picked, setPicked] = useState<Person[]>([]);
  const [active, setActive] = useState(-1);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const blocked = useStore((s) => s.blocked);
  const presence = useStore((s) => s.presence);
  const input = useRef<HTMLInputElement>(null);
  const listId = useId();
  const nameId = useId();
  const hintId = useId();

  /** A full page came last: there may be more after it (loaded as the list is scrolled to its end). */
  const [more, setMore] = useState(false);
  /** The query of the results shown, and whether their next page is on its way. */
  const page = useRef({ q: '', loading: false });

  // The list for what is typed, after a short rest; the newest answer wins.
  useEffect(() => {
    let stale = false;
    setLoading(true);
    const timer = setTimeout(async () => {
      try {
        const q = query.trim();
        const found = await fetchContacts(q);
        if (stale) return;
        page.current = { q, loading: false };
        setResults(found);
        setMore(found.length === PAGE);
        setActive(q && found.length ? 0 : -1);
        setError(null);
      } catch (err) {
        if (!stale) setError(err instanceof Error ? err.message : String(err));
      } finally {
        if (!stale) setLoading(false);
      }
    }, DEBOUNCE_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [query]);

  /** The next page of the same query, after the last person shown. */
  const loadMore = async () => {
    const last = results?.[results.length - 1];
    if (!more || !last || page.current.loading) return;
    const q = page.current.q;
    page.current.loading = true;
    try {
      const found = await fetchContacts(q, last.user.id);
      if (page.current.q !== q) return; // another query meanwhile
      setResults((r) => [...(r ?? []), ...found]);
      setMore(found.length === PAGE);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      page.current.loading = false;
    }
  };

  const isPicked = (id: string) => picked.some((p) => p.id === id);
  const full = picked.length >= MAX_PICKS;
  const shown = results ?? [];
  const optionId = (i: number) => `${listId}-${i}`;
  const unavailable = (c: Contact) => !!blocked?.[c.user.id] || (full && !isPicked(c.user.id));

  const toggle = (person: Person) => {
    setError(null);
    if (isPicked(person.id)) setPicked((p) => p.filter((x) => x.id !== person.id));
    else if (!full && !blocked?.[person.id]) {
      setPicked((p) => [...p, person]);
      // A name typed to find someone is done with once they are picked.
      setQuery('');
      setActive(-1);
    }
    input.current?.focus();
  };

  const start = async () => {
    if (picked.length === 0 || busy) return;
    setBusy(true);
    setError(null);
    try {
      let dm: DmChannel;
      if (picked.length === 1) dm = await openDm(picked[0]!);
      else {
        const body: OpenDmBody = { recipientIds: picked.map((p) => p.id), ...(name.trim() ? { name: name.trim() } : {}) };
        dm = await api.post<DmChannel>('/users/@me/channels', body);
        store.dispatch({ type: 'dm/upsert', dm });
      }
      onClose();
      navigate(paths.dm(dm.id));
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && err.code === 'cannot_dm' && picked.length > 1) setError(t('newMessage.cannotGroup'));
      else setError(err instanceof Error ? err.message : String(err));
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.nativeEvent.isComposing) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (shown.length === 0) return;
      const step = e.key === 'ArrowDown' ? 1 : -1;
      const next = active < 0 ? (step > 0 ? 0 : shown.length - 1) : (active + step + shown.length) % shown.length;
      setActive(next);
      if (next >= shown.length - 3) void loadMore();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      const c = shown[active];
      if (c) toggle(c.user);
      else void start();
    } else if (e.key === 'Backspace' && query === '' && picked.length > 0) {
      e.preventDefault();
      setPicked((p) => p.slice(0, -1));
    } else if (e.key === 'Escape' && active >= 0) {
      // The first Escape lets go of the highlighted person; the next closes the dialog.
      e.preventDefault();
      e.stopPropagation();
      setActive(-1);
    }
  };

  // The highlighted person stays in view as the arrows move.
  useEffect(() => {
    if (active >= 0) document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void start();
  };

  const q = query.trim();
  const group = picked.length > 1;
  return (
    <Dialog title={t('newMessage.title')} onClose={onClose} className={styles.dialog}>
      <form onSubmit={submit} className={styles.form}>
        {/* biome-ignore lint/a11y: a click on the field's padding focuses its input, as a text field's does; the input takes the keys */}
        <div className={styles.field} onClick={() => input.current?.focus()}>
          <label className={styles.toLabel} htmlFor={`${listId}-input`}>
            {t('newMessage.to')}
          </label>
          <ul className={styles.chips} aria-label={t('newMessage.picked')}>
            {picked.map((p) => (
              <li key={p.id} className={styles.chip} data-picked-id={p.id}>
                <Avatar id={p.id} name={displayName(p)} src={p.avatar} size={20} />
                <span className={styles.chipName}>{displayName(p)}</span>
                <button
                  type="button"
                  className={styles.chipRemove}
                  aria-label={t('newMessage.remove', { name: displayName(p) })}
                  tabIndex={-1}
                  onClick={(e) => {
                    e.stopPropagation();
                    toggle(p);
                  }}
                >
                  <CloseIcon />
                </button>
              </li>
            ))}
          </ul>
          <input
            ref={input}
            id={`${listId}-input`}
            className={styles.input}
            type="text"
            role="combobox"
            autoComplete="off"
            spellCheck={false}
            placeholder={picked.length ? '' : t('newMessage.search')}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={onKeyDown}
            aria-expanded={shown.length > 0}
            aria-controls={listId}
            aria-autocomplete="list"
            aria-activedescendant={active >= 0 && shown[active] ? optionId(active) : undefined}
            aria-describedby={hintId}
            maxLength={100}
          />
        </div>
        <p id={hintId} className="visually-hidden">
          {t('newMessage.keys')}
        </p>
        <p className={styles.status} role="status">
          {full
            ? t('newMessage.capReached', { max: OBJECT_LIMITS.groupDmMembers })
            : picked.length > 0
              ? t('newMessage.count', { count: picked.length })
              : ''}
          {!full && results && !loading && <span className="visually-hidden"> {t('newMessage.results', { count: shown.length })}</span>}
        </p>
        <p className={styles.listTitle} aria-hidden="true">
          {t('newMessage.people')}
        </p>
        <div
          id={listId}
          className={styles.list}
          role="listbox"
          aria-label={t('newMessage.people')}
          aria-multiselectable="true"
          aria-busy={loading || undefined}
          onScroll={(e) => {
            const el = e.currentTarget;
            if (el.scrollTop + el.clientHeight > el.scrollHeight - 80) void loadMore();
          }}
        >
          {shown.map((c, i) => {
            const person = c.user;
            const on = isPicked(person.id);
            const off = unavailable(c);
            const status = presence[person.id] ?? c.presence;
            return (
              // biome-ignore lint/a11y: the combobox pattern: focus stays in the "To" field (aria-activedescendant), which handles the keys
              <div
                key={person.id}
                id={optionId(i)}
                role="option"
                aria-selected={on}
                aria-disabled={off || undefined}
                className={`${styles.option}${i === active ? ` ${styles.active}` : ''}${off ? ` ${styles.off}` : ''}`}
                data-contact-id={person.id}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => toggle(person)}
                onMouseMove={() => setActive(i)}
              >
                <Avatar id={person.id} name={displayName(person)} src={person.avatar} size={32} status={status} />
                <span className={styles.optionName}>{displayName(person)}</span>
                {person.bot && <BotBadge />}
                {blocked?.[person.id] && <span className={styles.tag}>{t('newMessage.blocked')}</span>}
                <span className={`${styles.check}${on ? ` ${styles.checked}` : ''}`} aria-hidden="true">
                  {on ? '✓' : ''}
                </span>
              </div>
            );
          })}
        </div>
        {results && shown.length === 0 && !loading && (
          <p className={`empty-note ${styles.empty}`}>{q ? t('newMessage.noMatch', { q }) : t('newMessage.noContacts')}</p>
        )}
        {!results && <p className={`empty-note ${styles.empty}`}>{t('newMessage.searching')}</p>}
        {group && (
          <div className={`field ${styles.name}`}>
            <label className="field-label" htmlFor={nameId}>
              {t('newMessage.groupName')}
            </label>
            <input id={nameId} className="input" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
          </div>
        )}
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <footer className={dialogStyles.dialogActions}>
          <button type="button" className="button secondary" onClick={onClose}>
            {t('dialog.cancel')}
          </button>
          <button type="submit" className="button primary" disabled={picked.length === 0 || busy}>
            {busy ? t('newMessage.working') : group ? t('newMessage.createGroup') : t('newMessage.open')}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

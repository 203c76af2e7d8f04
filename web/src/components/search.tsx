/**
 * Message search (docs/api.md#search): a box in the channel header. Words and filters
 * (`from:`, `mentions:`, `in:`, `has:`, `before:`, `after:`; the box offers them when
 * focused) become `GET /search/messages` over the current server; the results open in a
 * panel under the header, with the filters as chips (× removes one), each result with its
 * channel, author and time, and Jump, which opens the channel at the message with the
 * history around it. Escape closes the panel and gives the box the focus back.
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { api, describeError } from '../api/client';
import type { Message, Server } from '../api/types';
import { displayName } from '../api/types';
import { formatFull, formatMessageTime } from '../lib/format';
import { FILTER_KEYS, type Filter, type FilterKey, type ParsedSearch, parseSearch, toQuery, withoutFilter } from '../lib/search-query';
import { Markdown } from '../markdown/render';
import { navigate, paths } from '../router';
import { jumpToMessage } from '../state/conversation';
import { store, useStore } from '../state/store';
import { Avatar, BotBadge } from './avatar';
import { CloseIcon, SearchIcon } from './icons';
import { MentionScope } from './mention-chip';
import styles from './search.module.css';
import { t } from '../i18n';

const PAGE = 25;

const HINTS: Record<FilterKey, string> = {
  from: 'a member: from:alice',
  mentions: 'pings a member: mentions:bob',
  in: 'a channel: in:general',
  has: 'link, image, file or embed',
  before: 'a date: before:2026-11-01',
  after: 'a date: after:2026-10-01',
};

interface Results {
  total: number;
  messages: Message[];
  loading: boolean;
  error: string | null;
}

export function SearchBox({ server }: { server: Server }) {
  const [text, setText] = useState('');
  const [focused, setFocused] = useState(false);
  const [ran, setRan] = useState<{ parsed: ParsedSearch; text: string } | null>(null);
  const [results, setResults] = useState<Results | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const hintsId = useId();
  const members = useStore((s) => s.members[server.id]);
  const channels = useStore((s) => s.channels[server.id]);

  const lookup = useMemo(
    () => ({
      user: (name: string) => {
        const n = name.toLowerCase();
        const m = (members ?? []).find((x) => x.name.toLowerCase() === n || displayName(x).toLowerCase() === n);
        return m ? { id: m.id, name: displayName(m) } : null;
      },
      channel: (name: string) => {
        const n = name.toLowerCase();
        const c = (channels ?? []).find((x) => x.name.toLowerCase() === n);
        return c ? { id: c.id, name: c.name } : null;
      },
    }),
    [members, channels],
  );

  // Another server: another search.
  // biome-ignore lint/correctness/useExhaustiveDependencies(server.id): the reset is what a change of server does
  useEffect(() => {
    setResults(null);
    setRan(null);
    setText('');
  }, [server.id]);

  const run = async (value: string, offset = 0) => {
    const parsed = parseSearch(value, lookup);
    if (!parsed.words && parsed.filters.length === 0) return;
    const q = toQuery(parsed, server.id, offset, PAGE);
    setRan({ parsed, text: value });
    if ('invalid' in q) {
      const f = q.invalid;
      const why =
        f.key === 'from' || f.key === 'mentions'
          ? t('search.invalid.member', { value: f.value })
          : f.key === 'in'
            ? t('search.invalid.channel', { value: f.value })
            : f.key === 'has'
              ? t('search.invalid.has')
              : t('search.invalid.date', { key: f.key });
      setResults({ total: 0, messages: [], loading: false, error: why });
      return;
    }
    setResults((r) => ({ total: r?.total ?? 0, messages: offset > 0 ? (r?.messages ?? []) : [], loading: true, error: null }));
    try {
      const page = await api.get<{ total: number; messages: Message[] }>(`/search/messages?${q.query}`);
      setResults((r) => ({
        total: page.total,
        messages: [...(offset > 0 ? (r?.messages ?? []) : []), ...page.messages],
        loading: false,
        error: null,
      }));
    } catch (err) {
      setResults((r) => ({ total: r?.total ?? 0, messages: r?.messages ?? [], loading: false, error: describeError(err) }));
    }
  };

  const close = (refocus: boolean) => {
    setResults(null);
    setRan(null);
    if (refocus) input.current?.focus();
  };

  const insertFilter = (key: FilterKey) => {
    const next = `${text}${text && !text.endsWith(' ') ? ' ' : ''}${key}:`;
    setText(next);
    input.current?.focus();
  };

  const removeFilter = (f: Filter) => {
    if (!ran) return;
    const next = withoutFilter(ran.text, f);
    setText(next);
    if (next.trim()) void run(next);
    else close(true);
  };

  return (
    <div className={styles.search}>
      {/* biome-ignore lint/a11y/useSemanticElements: a form with the search role is the landmark every browser knows */}
      <form
        role="search"
        className={styles.box}
        onSubmit={(e) => {
          e.preventDefault();
          void run(text);
        }}
      >
        <input
          ref={input}
          type="search"
          className={styles.input}
          placeholder={t('search.searchServer', { server: server.name })}
          aria-label={t('search.searchServer', { server: server.name })}
          aria-describedby={focused ? hintsId : undefined}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onFocus={() => setFocused(true)}
          onBlur={() => setFocused(false)}
          onKeyDown={(e) => {
            if (e.key === 'Escape' && results) {
              e.preventDefault();
              close(true);
            }
          }}
        />
        <SearchIcon size={16} />
      </form>
      {focused && !results && (
        // biome-ignore lint/a11y: a click on the hints keeps the focus in the search field
        <div id={hintsId} className={styles.hints} onMouseDown={(e) => e.preventDefault()}>
          <p className={styles.hintsTitle}>{t('search.searchOptions')}</p>
          {FILTER_KEYS.map((k) => (
            <button key={k} type="button" className={styles.hint} tabIndex={-1} onClick={() => insertFilter(k)}>
              <span className={styles.hintKey}>{k}:</span> <span className={styles.hintText}>{HINTS[k]}</span>
            </button>
          ))}
        </div>
      )}
      {results && ran && (
        <SearchResults
          server={server}
          ran={ran.parsed}
          results={results}
          onClose={close}
          onRemove={removeFilter}
          onMore={() => void run(ran.text, results.messages.length)}
        />
      )}
    </div>
  );
}

function SearchResults({
  server,
  ran,
  results,
  onClose,
  onRemove,
  onMore,
}: {
  server: Server;
  ran: ParsedSearch;
  results: Results;
  onClose: (refocus: boolean) => void;
  onRemove: (f: Filter) => void;
  onMore: () => void;
}) {
  const titleId = useId();
  const channels = useStore((s) => s.channels[server.id]);
  const count = results.total >= 10_000 ? '10,000+' : results.total.toLocaleString();
  return (
    // biome-ignore lint/a11y: Escape anywhere in the panel closes it; its controls take the other keys
    <section
      className={styles.panel}
      aria-labelledby={titleId}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          onClose(true);
        }
      }}
    >
      <header className={styles.header}>
        <h3 id={titleId} aria-live="polite">
          {results.loading && results.messages.length === 0
            ? t('search.searching')
            : t('search.results', { count: results.total, formatted: count })}
        </h3>
        <button type="button" className="icon-button" aria-label={t('search.closeSearchResults')} onClick={() => onClose(true)}>
          <CloseIcon />
        </button>
      </header>
      {(ran.words || ran.filters.length > 0) && (
        <ul className={styles.chips} aria-label={t('search.searchTerms')}>
          {ran.words && <li className={styles.chip}>“{ran.words}”</li>}
          {ran.filters.map((f) => (
            <li key={`${f.key}:${f.value}`} className={f.resolved ? styles.chip : `${styles.chip} ${styles.chipBad}`}>
              {f.label}
              <button
                type="button"
                className={styles.chipRemove}
                aria-label={t('search.removeLabel', { label: f.label })}
                onClick={() => onRemove(f)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className={styles.body} aria-busy={results.loading}>
        {results.error && (
          <p className={styles.error} role="alert">
            {results.error}
          </p>
        )}
        {!results.loading && !results.error && results.messages.length === 0 && (
          <p className={styles.note}>{t('search.noMessagesMatch')}</p>
        )}
        <ol className={styles.list}>
          {results.messages.map((m) => (
            <Result
              key={m.id}
              message={m}
              channelName={channels?.find((c) => c.id === m.channelId)?.name ?? 'unknown'}
              server={server}
              onJump={() => onClose(false)}
            />
          ))}
        </ol>
        {results.messages.length < Math.min(results.total, 5000 + PAGE) && !results.error && (
          <button type="button" className={`button secondary small ${styles.more}`} disabled={results.loading} onClick={onMore}>
            {results.loading ? t('search.loading') : t('search.showMore')}
          </button>
        )}
      </div>
    </section>
  );
}

function Result({ message, channelName, server, onJump }: { message: Message; channelName: string; server: Server; onJump: () => void }) {
  const author = message.author ?? { id: 'unknown', name: t('common.unknown'), bot: false, avatar: null };
  const jump = async () => {
    onJump();
    // The history around the message first, then the channel: the list opens on it.
    await jumpToMessage(message.channelId, message.id);
    if (store.getState().messages[message.channelId]) navigate(paths.channel(server.id, message.channelId));
  };
  return (
    <li className={styles.result} data-result-id={message.id}>
      <div className={styles.resultChannel}>#{channelName}</div>
      <div className={styles.resultHeader}>
        <Avatar id={message.webhookId ?? author.id} name={author.name} src={author.avatar} size={28} />
        <span className={styles.author}>{author.name}</span>
        {(author.bot || message.webhookId) && <BotBadge />}
        <time className={styles.time} dateTime={message.createdAt} title={formatFull(message.createdAt)}>
          {formatMessageTime(message.createdAt)}
        </time>
        <button
          type="button"
          className={`button secondary small ${styles.jump}`}
          onClick={() => void jump()}
          aria-label={t('search.jumpToTheMessage', { author: author.name })}
        >
          {t('search.jump')}
        </button>
      </div>
      {message.referencedMessage && (
        <p className={styles.context}>
          {t('search.replyingTo', {
            name: message.referencedMessage.author?.name ?? t('search.someone'),
            text: message.referencedMessage.content.slice(0, 120),
          })}
        </p>
      )}
      <MentionScope value={{ serverId: message.serverId, users: message.mentions }}>
        {message.content ? (
          <Markdown source={message.content} className={styles.content} />
        ) : (
          <p className={styles.note}>{t('search.attachmentsOnly')}</p>
        )}
      </MentionScope>
    </li>
  );
}

/**
 * A forum channel (docs/threads.md): its posts as a list, as on Discord: each with its
 * title, tags, author, replies and last activity; sorted by latest activity or creation
 * date, filtered by tag; "New post" asks for a title, the first message and tags. A post
 * opens in the thread panel beside the list (the whole screen on a phone). Its own chunk:
 * only forums draw it (chat-page.tsx loads it lazily).
 */
import { compareIds, snowflakeTime } from '@parley/protocol/ids';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { describeError } from '../api/client';
import type { Channel, ForumTag, Server, Thread } from '../api/types';
import { t } from '../i18n';
import { formatAgo, formatFull } from '../lib/format';
import { useAction } from '../lib/use-action';
import { Link, navigate, paths } from '../router';
import { isUnread, mentionsIn } from '../state/conversations';
import { can, P, usePermissions } from '../state/permissions';
import { useStore } from '../state/store';
import { createThread, forumTags, lastActivity, loadActiveThreads, loadArchivedThreads, postPreview } from '../state/threads';
import { toPlainText } from '../markdown/plain';
import { Avatar } from './avatar';
import { Emoji } from './emoji';
import styles from './forum-view.module.css';
import { ForumIcon, PlusIcon } from './icons';
import { MentionBadge } from './mention-badge';

type Sort = 'activity' | 'created';

const SORT_KEY = 'parley.forumSort';

function storedSort(): Sort {
  try {
    return localStorage.getItem(SORT_KEY) === 'created' ? 'created' : 'activity';
  } catch {
    return 'activity';
  }
}

interface Props {
  server: Server;
  channel: Channel;
  activeThreadId: string | null;
}

export default function ForumView({ server, channel, activeThreadId }: Props) {
  const threads = useStore((s) => s.threads);
  const bits = usePermissions(server.id, channel.id);
  const canPost = can(bits, P.CREATE_PUBLIC_THREADS);
  const tags = forumTags(channel);
  const [sort, setSortState] = useState<Sort>(storedSort);
  const [filter, setFilter] = useState<string[]>([]);
  const [composing, setComposing] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [archived, setArchived] = useState<{ hasMore: boolean; loading: boolean; before?: string } | null>(null);
  const newButton = useRef<HTMLButtonElement>(null);
  const headingId = useId();
  const sortId = useId();

  useEffect(() => {
    setLoaded(false);
    setError(null);
    loadActiveThreads(channel.id)
      .then(() => setLoaded(true))
      .catch((err: unknown) => setError(describeError(err)));
  }, [channel.id]);

  const setSort = (next: Sort) => {
    setSortState(next);
    try {
      localStorage.setItem(SORT_KEY, next);
    } catch {
      /* this visit only */
    }
  };

  const loadOlder = () => {
    setArchived((a) => ({ hasMore: a?.hasMore ?? true, loading: true, before: a?.before }));
    loadArchivedThreads(channel.id, { before: archived?.before })
      .then((page) => {
        const last = page.threads[page.threads.length - 1];
        setArchived({ hasMore: page.hasMore, loading: false, before: last?.metadata.archiveTimestamp ?? archived?.before });
      })
      .catch((err: unknown) => {
        setArchived((a) => ({ hasMore: true, loading: false, before: a?.before }));
        setError(describeError(err));
      });
  };

  const all = Object.values(threads).filter((th) => th.parentId === channel.id && (!th.metadata.archived || archived !== null));
  const shown = all
    .filter((th) => filter.every((id) => th.appliedTags.includes(id)))
    .sort((a, b) => (sort === 'created' ? compareIds(b.id, a.id) : compareIds(lastActivity(b), lastActivity(a))));

  const toggleTag = (id: string) => setFilter((f) => (f.includes(id) ? f.filter((x) => x !== id) : [...f, id]));

  return (
    <section className={styles.forum} aria-labelledby={headingId} data-testid="forum-view">
      <div className={styles.toolbar}>
        <h3 id={headingId} className="visually-hidden">
          {t('forum.label', { channel: channel.name })}
        </h3>
        {canPost && (
          <button
            ref={newButton}
            type="button"
            className={`button primary ${styles.newPost}`}
            aria-expanded={composing}
            onClick={() => setComposing((v) => !v)}
          >
            <PlusIcon size={16} /> {t('forum.newPost')}
          </button>
        )}
        <div className={styles.sort}>
          <label htmlFor={sortId}>{t('forum.sortBy')}</label>
          <select id={sortId} className="input small" value={sort} onChange={(e) => setSort(e.target.value as Sort)}>
            <option value="activity">{t('forum.sortActivity')}</option>
            <option value="created">{t('forum.sortCreated')}</option>
          </select>
        </div>
      </div>
      {tags.length > 0 && (
        // biome-ignore lint/a11y/useSemanticElements: a group of toggle buttons, not of form fields
        <div className={styles.filters} role="group" aria-label={t('forum.filterByTag')}>
          <button type="button" className={styles.chip} aria-pressed={filter.length === 0} onClick={() => setFilter([])}>
            {t('forum.allTags')}
          </button>
          {tags.map((tag) => (
            <button
              key={tag.id}
              type="button"
              className={styles.chip}
              aria-pressed={filter.includes(tag.id)}
              onClick={() => toggleTag(tag.id)}
            >
              <TagLabel tag={tag} />
            </button>
          ))}
        </div>
      )}
      <div className={styles.scroller}>
        {composing && (
          <NewPost
            server={server}
            channel={channel}
            tags={tags}
            canModerate={can(bits, P.MANAGE_THREADS)}
            onDone={() => {
              setComposing(false);
              newButton.current?.focus();
            }}
          />
        )}
        {error && (
          <p className={styles.error} role="alert">
            {t('forum.couldNotLoad', { error })}
          </p>
        )}
        {!loaded && !error && (
          <p className={styles.note} role="status">
            {t('forum.loading')}
          </p>
        )}
        {loaded && shown.length === 0 && (
          <div className={styles.empty}>
            <div className={styles.emptyIcon} aria-hidden="true">
              <ForumIcon size={30} />
            </div>
            {all.length === 0 ? (
              <>
                <p className={styles.emptyTitle}>{t('forum.noPosts')}</p>
                <p className={styles.note}>{t('forum.noPostsHint', { channel: channel.name })}</p>
              </>
            ) : (
              <>
                <p className={styles.emptyTitle}>{t('forum.noMatch')}</p>
                <p className={styles.note}>{t('forum.noMatchHint')}</p>
                <button type="button" className="button secondary small" onClick={() => setFilter([])}>
                  {t('forum.clearFilter')}
                </button>
              </>
            )}
          </div>
        )}
        {shown.length > 0 && (
          <ul className={styles.posts} aria-label={t('forum.label', { channel: channel.name })}>
            {shown.map((th) => (
              <PostCard key={th.id} thread={th} tags={tags} active={th.id === activeThreadId} />
            ))}
          </ul>
        )}
        {loaded && (archived === null || archived.hasMore) && (
          <button type="button" className={`button secondary small ${styles.older}`} disabled={!!archived?.loading} onClick={loadOlder}>
            {t('forum.showArchived')}
          </button>
        )}
      </div>
    </section>
  );
}

function TagLabel({ tag }: { tag: ForumTag }) {
  return (
    <>
      {tag.emoji && <Emoji emoji={tag.emoji} decorative className={styles.tagEmoji} />}
      {tag.name}
    </>
  );
}

function PostCard({ thread, tags, active }: { thread: Thread; tags: ForumTag[]; active: boolean }) {
  const owner = useStore((s) => s.members[thread.serverId]?.find((m) => m.id === thread.ownerId));
  const unread = useStore((s) => !!thread.member && isUnread(s, thread.id, thread.lastMessageId));
  const mentions = useStore((s) => (unread ? mentionsIn(s, thread.id) : 0));
  const applied = tags.filter((tag) => thread.appliedTags.includes(tag.id));
  // A post's count leaves its first message out, as Discord's does.
  const replies = thread.messageCount;
  const last = snowflakeTime(lastActivity(thread));
  const name = owner ? (owner.nick ?? owner.name) : t('common.unknown');
  const preview = usePreview(thread.id);
  return (
    <li>
      <Link
        to={paths.thread(thread.serverId, thread.parentId, thread.id)}
        className={`${styles.post}${active ? ` ${styles.active}` : ''}${unread ? ` ${styles.unread}` : ''}`}
        aria-current={active ? 'page' : undefined}
        data-post={thread.id}
        data-title={thread.name}
      >
        <span className={styles.postMain}>
          {applied.length > 0 && (
            <span className={styles.postTags}>
              {applied.map((tag) => (
                <span key={tag.id} className={styles.tag}>
                  <TagLabel tag={tag} />
                </span>
              ))}
            </span>
          )}
          <span className={styles.postTitle}>
            {thread.name}
            {unread && <span className="visually-hidden"> {t('sidebar.unread')}</span>}
          </span>
          {preview && <span className={styles.preview}>{preview}</span>}
          <span className={styles.postMeta}>
            <Avatar id={thread.ownerId} name={name} src={owner?.avatar ?? null} size={18} />
            <span className={styles.author}>{name}</span>
            <span aria-hidden="true">·</span>
            <span>{t('forum.replies', { count: replies })}</span>
            <span aria-hidden="true">·</span>
            <time dateTime={new Date(last).toISOString()} title={formatFull(new Date(last).toISOString())}>
              {t('forum.lastActivity', { when: formatAgo(last) })}
            </time>
            {thread.metadata.archived && <span className={styles.archived}>{t('threads.archivedBadge')}</span>}
          </span>
        </span>
        <MentionBadge count={mentions} />
      </Link>
    </li>
  );
}

/** The start of a post's first message, as one line of text (loaded once per post). */
function usePreview(postId: string): string | null {
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    postPreview({ id: postId })
      .then((m) => {
        if (!live || !m) return;
        const plain = toPlainText(m.content ?? '', 200);
        setText(plain || (m.attachments?.[0]?.filename ?? null));
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [postId]);
  return text;
}

function NewPost({
  server,
  channel,
  tags,
  canModerate,
  onDone,
}: {
  server: Server;
  channel: Channel;
  tags: ForumTag[];
  canModerate: boolean;
  onDone: () => void;
}) {
  const [title, setTitle] = useState('');
  const [text, setText] = useState('');
  const [picked, setPicked] = useState<string[]>([]);
  const action = useAction();
  const titleRef = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const textId = useId();
  const formId = useId();
  const usable = tags.filter((tag) => canModerate || !tag.moderated);

  useEffect(() => {
    titleRef.current?.focus();
  }, []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const name = title.trim();
    const content = text.trim();
    if (!name || !content) return;
    void action.run(async () => {
      const post = await createThread(channel.id, { name, message: { content }, ...(picked.length ? { appliedTags: picked } : {}) });
      onDone();
      navigate(paths.thread(server.id, channel.id, post.id));
    });
  };

  return (
    // biome-ignore lint/a11y/noNoninteractiveElementInteractions: Escape in the form closes it
    <form
      className={styles.newForm}
      onSubmit={submit}
      aria-labelledby={formId}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !e.defaultPrevented) {
          e.preventDefault();
          onDone();
        }
      }}
    >
      <h4 id={formId} className={styles.formTitle}>
        {t('forum.newPostIn', { channel: channel.name })}
      </h4>
      <label htmlFor={titleId} className={styles.label}>
        {t('forum.title')}
      </label>
      <input
        ref={titleRef}
        id={titleId}
        className="input"
        value={title}
        maxLength={100}
        required
        placeholder={t('forum.titlePlaceholder')}
        onChange={(e) => setTitle(e.target.value)}
      />
      <label htmlFor={textId} className={styles.label}>
        {t('forum.message')}
      </label>
      <textarea
        id={textId}
        className={`input ${styles.textarea}`}
        value={text}
        rows={4}
        maxLength={4000}
        required
        placeholder={t('forum.messagePlaceholder')}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit(e);
        }}
      />
      {usable.length > 0 && (
        // biome-ignore lint/a11y/useSemanticElements: a group of toggle buttons
        <div className={styles.formTags} role="group" aria-label={t('forum.tags')}>
          <span className={styles.label} aria-hidden="true">
            {t('forum.tags')}
          </span>
          <div className={styles.chips}>
            {usable.map((tag) => (
              <button
                key={tag.id}
                type="button"
                className={styles.chip}
                aria-pressed={picked.includes(tag.id)}
                onClick={() => setPicked((p) => (p.includes(tag.id) ? p.filter((x) => x !== tag.id) : [...p, tag.id]))}
              >
                <TagLabel tag={tag} />
              </button>
            ))}
          </div>
        </div>
      )}
      {action.error && (
        <p className={styles.error} role="alert">
          {action.error}
        </p>
      )}
      <div className={styles.formActions}>
        <button type="button" className="button secondary" onClick={onDone}>
          {t('forum.cancel')}
        </button>
        <button type="submit" className="button primary" disabled={action.busy || !title.trim() || !text.trim()}>
          {t('forum.post')}
        </button>
      </div>
    </form>
  );
}

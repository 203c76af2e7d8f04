/**
 * A thread or forum post, open beside its channel (docs/threads.md), as on Discord: a
 * panel on the right that can be widened by dragging its edge (or with ←/→ on the edge),
 * and the whole screen on a phone. It holds the message the thread started from, the
 * thread's own messages (loaded on their own: never the parent's history), its composer,
 * Follow, and for those allowed, archive, lock and delete. Escape closes it, and the focus
 * goes back where it was. The same place holds the "new thread" form.
 */
import { type FormEvent, type KeyboardEvent, type PointerEvent, useEffect, useId, useRef, useState } from 'react';
import type { Channel, Message, Server, Thread } from '../api/types';
import { t } from '../i18n';
import { copyText } from '../lib/clipboard';
import { formatFull, formatMessageTime } from '../lib/format';
import { useAction } from '../lib/use-action';
import { Markdown } from '../markdown/render';
import { navigate, paths } from '../router';
import { sendMessage } from '../state/actions';
import { threadLevel, updateSettings } from '../state/conversations';
import { can, P, usePermissions } from '../state/permissions';
import { store, useStore } from '../state/store';
import {
  createThread,
  createThreadFromMessage,
  deleteThread,
  fetchStarter,
  fetchThread,
  forumTags,
  isForum,
  joinThread,
  leaveThread,
  nameFrom,
  startThreadDraft,
  type ThreadDraft,
  threadChannel,
  updateThread,
} from '../state/threads';
import { toast, toastError } from '../state/toasts';
import { AttachmentView } from './attachment';
import { Avatar, BotBadge } from './avatar';
import { Composer } from './composer';
import { Emoji } from './emoji';
import { ContextMenu, type ContextMenuItem } from './context-menu';
import { confirm } from './dialog';
import { ArchiveIcon, BackIcon, CloseIcon, ThreadIcon } from './icons';
import { LockIcon } from './lock-icon';
import { MentionScope } from './mention-chip';
import { MessageList } from './message-list';
import styles from './thread-panel.module.css';
import { TypingIndicator } from './typing-indicator';

// ---------------------------------------------------------------- width

const WIDTH_KEY = 'parley.threadWidth';
const MIN_WIDTH = 340;
const MAX_WIDTH = 760;
const DEFAULT_WIDTH = 440;

function storedWidth(): number {
  try {
    const n = Number(localStorage.getItem(WIDTH_KEY));
    return Number.isFinite(n) && n >= MIN_WIDTH && n <= MAX_WIDTH ? n : DEFAULT_WIDTH;
  } catch {
    return DEFAULT_WIDTH;
  }
}

function keepWidth(n: number): void {
  try {
    localStorage.setItem(WIDTH_KEY, String(n));
  } catch {
    /* the width lasts this visit */
  }
}

const clampWidth = (n: number) => Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, n)));

/** The panel's edge: drag it, or focus it and press ←/→ (Home/End: narrowest/widest). */
function useResize() {
  const [width, setWidth] = useState(storedWidth);
  const drag = useRef<{ x: number; w: number } | null>(null);
  const set = (n: number) => {
    const w = clampWidth(n);
    setWidth(w);
    keepWidth(w);
  };
  const handle = {
    role: 'separator',
    'aria-orientation': 'vertical' as const,
    'aria-valuemin': MIN_WIDTH,
    'aria-valuemax': MAX_WIDTH,
    'aria-valuenow': width,
    'aria-label': t('threads.resize'),
    tabIndex: 0,
    onPointerDown: (e: PointerEvent<HTMLDivElement>) => {
      e.preventDefault();
      e.currentTarget.setPointerCapture(e.pointerId);
      drag.current = { x: e.clientX, w: width };
    },
    onPointerMove: (e: PointerEvent<HTMLDivElement>) => {
      if (drag.current) setWidth(clampWidth(drag.current.w + drag.current.x - e.clientX));
    },
    onPointerUp: (e: PointerEvent<HTMLDivElement>) => {
      if (!drag.current) return;
      set(drag.current.w + drag.current.x - e.clientX);
      drag.current = null;
    },
    onKeyDown: (e: KeyboardEvent<HTMLDivElement>) => {
      const step = e.shiftKey ? 80 : 20;
      if (e.key === 'ArrowLeft') set(width + step);
      else if (e.key === 'ArrowRight') set(width - step);
      else if (e.key === 'Home') set(MIN_WIDTH);
      else if (e.key === 'End') set(MAX_WIDTH);
      else return;
      e.preventDefault();
    },
  };
  return { width, handle };
}

// ---------------------------------------------------------------- the panel

interface Props {
  server: Server;
  parent: Channel;
  /** The thread open, or null for the "new thread" form (`draft`). */
  threadId: string | null;
  draft: ThreadDraft | null;
  onClose: () => void;
}

export function ThreadPanel({ server, parent, threadId, draft, onClose }: Props) {
  const { width, handle } = useResize();
  const ref = useRef<HTMLElement>(null);
  const titleId = useId();
  // Where the focus was when the panel opened: it goes back there when it closes.
  const opener = useRef<HTMLElement | null>(document.activeElement instanceof HTMLElement ? document.activeElement : null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  useEffect(() => {
    const from = opener;
    return () => {
      const el = from.current;
      // The opener went (a menu's item, a list that closed): the channel's composer, or the channel.
      if (el?.isConnected && el !== document.body && !ref.current?.contains(el)) el.focus({ preventScroll: true });
      else document.querySelector<HTMLElement>('main textarea')?.focus({ preventScroll: true });
    };
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (e.key !== 'Escape' || e.defaultPrevented || e.nativeEvent.isComposing) return;
    // Escape belongs to a menu, dialog or suggestion list inside first.
    if (document.querySelector('dialog[open], [role="menu"], [role="listbox"]')) return;
    e.preventDefault();
    closeRef.current();
  };

  return (
    // biome-ignore lint/a11y/noNoninteractiveElementInteractions: Escape anywhere in the panel closes it
    <aside ref={ref} className={styles.panel} style={{ width }} aria-labelledby={titleId} data-testid="thread-panel" onKeyDown={onKeyDown}>
      <div className={styles.resize} {...handle} />
      {draft ? (
        <NewThread
          key={draft.message?.id ?? draft.parentId}
          server={server}
          parent={parent}
          draft={draft}
          titleId={titleId}
          onClose={onClose}
        />
      ) : threadId ? (
        <OpenThread key={threadId} server={server} parent={parent} threadId={threadId} titleId={titleId} onClose={onClose} />
      ) : null}
    </aside>
  );
}

function PanelHeader({
  titleId,
  title,
  icon,
  sub,
  onClose,
  children,
}: {
  titleId: string;
  title: string;
  icon: React.ReactNode;
  sub?: string;
  onClose: () => void;
  children?: React.ReactNode;
}) {
  return (
    <header className={styles.header}>
      <button type="button" className={`icon-button ${styles.back}`} aria-label={t('threads.back')} onClick={onClose}>
        <BackIcon />
      </button>
      <span className={styles.headerIcon} aria-hidden="true">
        {icon}
      </span>
      <div className={styles.titles}>
        <h2 id={titleId} className={styles.title} tabIndex={-1}>
          {title}
        </h2>
        {sub && <span className={styles.sub}>{sub}</span>}
      </div>
      {children}
      <button
        type="button"
        className={`icon-button ${styles.close}`}
        aria-label={t('threads.close')}
        title={t('threads.close')}
        onClick={onClose}
      >
        <CloseIcon />
      </button>
    </header>
  );
}

function OpenThread({
  server,
  parent,
  threadId,
  titleId,
  onClose,
}: {
  server: Server;
  parent: Channel;
  threadId: string;
  titleId: string;
  onClose: () => void;
}) {
  const thread = useStore((s) => s.threads[threadId]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (thread) return;
    fetchThread(threadId).catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)));
  }, [thread, threadId]);

  if (!thread) {
    return (
      <>
        <PanelHeader titleId={titleId} title={t('threads.thread')} icon={<ThreadIcon size={18} />} onClose={onClose} />
        <div className={styles.state} role={error ? 'alert' : 'status'}>
          {error ? t('threads.couldNotOpen', { error }) : t('threads.loading')}
        </div>
      </>
    );
  }
  return <ThreadView server={server} parent={parent} thread={thread} titleId={titleId} onClose={onClose} />;
}

function ThreadView({
  server,
  parent,
  thread,
  titleId,
  onClose,
}: {
  server: Server;
  parent: Channel;
  thread: Thread;
  titleId: string;
  onClose: () => void;
}) {
  const meId = useStore((s) => s.me?.id);
  const settings = useStore((s) => s.settings);
  const state = { settings };
  const parentBits = usePermissions(server.id, parent.id);
  const bits = usePermissions(server.id, thread.id);
  const manage = can(parentBits, P.MANAGE_THREADS);
  const mine = thread.ownerId === meId;
  const [editingId, setEditingId] = useState<string | null>(null);
  const [menu, setMenu] = useState<HTMLElement | null>(null);
  const follow = useAction({ onError: toastError });
  const channel = threadChannel(thread);
  const following = !!thread.member;
  const { archived, locked } = thread.metadata;
  const tags = forumTags(parent).filter((tag) => thread.appliedTags.includes(tag.id));
  const isPrivate = thread.type === 'private_thread';

  const change = (patch: Parameters<typeof updateThread>[1], done: string) =>
    void updateThread(thread, patch)
      .then(() => toast(done))
      .catch(toastError);

  const items: ContextMenuItem[] = [];
  // Its owner archives it too, unless it is locked (then only MANAGE_THREADS changes it).
  if (manage || (mine && !locked)) {
    items.push(
      archived
        ? { id: 'unarchive', label: t('threads.unarchive'), onSelect: () => change({ archived: false }, t('threads.unarchived')) }
        : { id: 'archive', label: t('threads.archive'), onSelect: () => change({ archived: true }, t('threads.archived')) },
    );
  }
  if (manage) {
    items.push(
      locked
        ? { id: 'unlock', label: t('threads.unlock'), onSelect: () => change({ locked: false }, t('threads.unlocked')) }
        : { id: 'lock', label: t('threads.lock'), onSelect: () => change({ locked: true }, t('threads.locked')) },
    );
  }
  // A followed thread's notifications, kept as a channel's setting by its id (threadLevel).
  if (following) {
    const level = threadLevel(state, thread);
    for (const value of ['all', 'mentions', 'none'] as const) {
      items.push({
        id: `notify-${value}`,
        label: t(`threads.notify.${value}`),
        hint: level === value ? t('threads.notify.current') : undefined,
        onSelect: () =>
          void updateSettings({ servers: { [server.id]: { channels: { [thread.id]: { level: value } } } } }).catch(toastError),
      });
    }
  }
  items.push({
    id: 'copy-link',
    label: t('threads.copyLink'),
    onSelect: () =>
      void copyText(`${location.origin}${paths.thread(server.id, parent.id, thread.id)}`)
        .then(() => toast(t('threads.linkCopied')))
        .catch(toastError),
  });
  if (manage) {
    items.push({
      id: 'delete',
      label: t('threads.delete'),
      danger: true,
      onSelect: () =>
        void confirm({
          title: t('threads.deleteTitle', { name: thread.name }),
          body: t('threads.deleteBody'),
          confirmLabel: t('threads.delete'),
          danger: true,
        }).then((yes) => {
          if (yes) deleteThread(thread).then(onClose).catch(toastError);
        }),
    });
  }

  const canPost = can(bits, P.SEND_MESSAGES);
  // ↑ in an empty composer edits one's last message of the thread, as in a channel.
  const editLast = () => {
    const items = store.getState().messages[thread.id]?.items ?? [];
    const last = items.findLast((m) => m.author?.id === meId && !m.webhookId);
    if (last) setEditingId(last.id);
  };
  return (
    <>
      <PanelHeader
        titleId={titleId}
        title={thread.name}
        icon={isPrivate ? <LockIcon size={16} /> : <ThreadIcon size={18} />}
        sub={`#${parent.name}`}
        onClose={onClose}
      >
        <button
          type="button"
          className={`button small ${following ? 'secondary' : 'primary'} ${styles.follow}`}
          aria-pressed={following}
          disabled={follow.busy}
          onClick={() => void follow.run(() => (following ? leaveThread(thread) : joinThread(thread)))}
        >
          {following ? t('threads.following') : t('threads.follow')}
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label={t('threads.options')}
          aria-haspopup="menu"
          aria-expanded={!!menu}
          title={t('threads.options')}
          onClick={(e) => setMenu(menu ? null : e.currentTarget)}
        >
          <span aria-hidden="true" className={styles.dots}>
            ⋯
          </span>
        </button>
      </PanelHeader>
      {menu && <ContextMenu items={items} anchor={menu} label={t('threads.options')} testId="thread-menu" onClose={() => setMenu(null)} />}
      {(archived || locked || tags.length > 0) && (
        <div className={styles.badges}>
          {archived && (
            <span className={styles.badge}>
              <ArchiveIcon size={13} /> {t('threads.archivedBadge')}
            </span>
          )}
          {locked && (
            <span className={styles.badge}>
              <LockIcon size={12} /> {t('threads.lockedBadge')}
            </span>
          )}
          {tags.map((tag) => (
            <span key={tag.id} className={styles.tag}>
              {tag.emoji && <Emoji emoji={tag.emoji} decorative className={styles.tagEmoji} />}
              {tag.name}
            </span>
          ))}
        </div>
      )}
      <MessageList
        key={`thread-${thread.id}`}
        channel={channel}
        label={thread.name}
        canModerate={can(bits, P.MANAGE_MESSAGES)}
        editingId={editingId}
        onEdit={setEditingId}
        intro={<ThreadStart thread={thread} forum={isForum(parent)} />}
      />
      <TypingIndicator channelId={thread.id} />
      {locked && !canPost ? (
        <p className={styles.note} data-testid="thread-locked-note">
          <LockIcon size={13} /> {t('threads.lockedNote')}
        </p>
      ) : (
        <>
          {archived && canPost && <p className={styles.note}>{t('threads.archivedNote')}</p>}
          <Composer key={`composer-${thread.id}`} channel={channel} label={thread.name} onEditLast={editLast} />
        </>
      )}
    </>
  );
}

/** The top of a thread: its name, who started it, and the message it started from. */
function ThreadStart({ thread, forum }: { thread: Thread; forum: boolean }) {
  const owner = useStore((s) => s.members[thread.serverId]?.find((m) => m.id === thread.ownerId));
  const [starter, setStarter] = useState<Message | null | undefined>(undefined);
  const { id: threadId, parentId } = thread;
  useEffect(() => {
    // A forum post's first message is the thread's own first message, in the list below.
    if (forum) return;
    let live = true;
    fetchStarter({ id: threadId, parentId })
      .then((m) => live && setStarter(m))
      .catch(() => live && setStarter(null));
    return () => {
      live = false;
    };
  }, [threadId, parentId, forum]);
  return (
    <div className={styles.start}>
      <div className={styles.startIcon} aria-hidden="true">
        <ThreadIcon size={26} />
      </div>
      <h3 className={styles.startTitle}>{thread.name}</h3>
      <p className={styles.startBy}>
        {owner ? t('threads.startedBy', { name: owner.nick ?? owner.name }) : t('threads.started')}{' '}
        <time dateTime={thread.metadata.createTimestamp} title={formatFull(thread.metadata.createTimestamp)}>
          {formatMessageTime(thread.metadata.createTimestamp)}
        </time>
      </p>
      {starter && <StarterMessage message={starter} />}
    </div>
  );
}

function StarterMessage({ message }: { message: Message }) {
  const author = message.author ?? { id: 'unknown', name: t('common.unknown'), bot: false, avatar: null };
  const name = author.name || t('common.unknown');
  const attachments = Array.isArray(message.attachments) ? message.attachments : [];
  return (
    <figure className={styles.starter} data-testid="thread-starter" aria-label={t('threads.starterLabel', { name })}>
      <div className={styles.starterHeader}>
        <Avatar id={message.webhookId ?? author.id} name={name} src={author.avatar} size={28} />
        <span className={styles.starterAuthor}>{name}</span>
        {(author.bot || message.webhookId) && <BotBadge />}
        <time className={styles.starterTime} dateTime={message.createdAt} title={formatFull(message.createdAt)}>
          {formatMessageTime(message.createdAt)}
        </time>
      </div>
      <MentionScope value={{ serverId: message.serverId, users: message.mentions }}>
        {message.content && <Markdown source={message.content} className={styles.starterContent} />}
      </MentionScope>
      {attachments.map((a, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the same file may be attached twice; attachments never move
        <AttachmentView key={`${a.url}-${i}`} attachment={a} />
      ))}
    </figure>
  );
}

// ---------------------------------------------------------------- a new thread

function NewThread({
  server,
  parent,
  draft,
  titleId,
  onClose,
}: {
  server: Server;
  parent: Channel;
  draft: ThreadDraft;
  titleId: string;
  onClose: () => void;
}) {
  const bits = usePermissions(server.id, parent.id);
  const canPrivate = !draft.message && can(bits, P.CREATE_PRIVATE_THREADS);
  const [name, setName] = useState(() => nameFrom(draft.message).slice(0, 100));
  const [text, setText] = useState('');
  const [priv, setPriv] = useState(false);
  const [archiveAfter, setArchiveAfter] = useState(1440);
  const action = useAction();
  const nameRef = useRef<HTMLInputElement>(null);
  const nameId = useId();
  const textId = useId();
  const archiveId = useId();

  useEffect(() => {
    nameRef.current?.focus();
    nameRef.current?.select();
  }, []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return;
    void action.run(async () => {
      const thread = draft.message
        ? await createThreadFromMessage(parent.id, draft.message.id, { name: trimmed, autoArchiveDuration: archiveAfter })
        : await createThread(parent.id, {
            name: trimmed,
            type: priv ? 'private_thread' : 'public_thread',
            autoArchiveDuration: archiveAfter,
          });
      if (text.trim()) await sendMessage(thread.id, text.trim(), []);
      startThreadDraft(null);
      navigate(paths.thread(server.id, parent.id, thread.id));
    });
  };

  return (
    <>
      <PanelHeader
        titleId={titleId}
        title={t('threads.newThread')}
        icon={<ThreadIcon size={18} />}
        sub={`#${parent.name}`}
        onClose={onClose}
      />
      <form className={styles.form} onSubmit={submit}>
        {draft.message && (
          <div className={styles.formStarter}>
            <StarterMessage message={draft.message} />
          </div>
        )}
        <label htmlFor={nameId} className={styles.label}>
          {t('threads.name')}
        </label>
        <input
          ref={nameRef}
          id={nameId}
          className="input"
          value={name}
          maxLength={100}
          required
          placeholder={t('threads.namePlaceholder')}
          onChange={(e) => setName(e.target.value)}
        />
        <label htmlFor={textId} className={styles.label}>
          {t('threads.firstMessage')} <span className={styles.optional}>{t('threads.optional')}</span>
        </label>
        <textarea
          id={textId}
          className={`input ${styles.textarea}`}
          value={text}
          rows={3}
          maxLength={4000}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit(e);
          }}
        />
        <label htmlFor={archiveId} className={styles.label}>
          {t('threads.archiveAfter')}
        </label>
        <select id={archiveId} className="input" value={archiveAfter} onChange={(e) => setArchiveAfter(Number(e.target.value))}>
          <option value={60}>{t('threads.after.hour')}</option>
          <option value={1440}>{t('threads.after.day')}</option>
          <option value={4320}>{t('threads.after.threeDays')}</option>
          <option value={10080}>{t('threads.after.week')}</option>
        </select>
        {canPrivate && (
          <label className={styles.check}>
            <input type="checkbox" checked={priv} onChange={(e) => setPriv(e.target.checked)} />
            <span>
              <strong>{t('threads.private')}</strong>
              <span className={styles.help}>{t('threads.privateHelp')}</span>
            </span>
          </label>
        )}
        {action.error && (
          <p className={styles.error} role="alert">
            {action.error}
          </p>
        )}
        <div className={styles.formActions}>
          <button type="button" className="button secondary" onClick={onClose}>
            {t('threads.cancel')}
          </button>
          <button type="submit" className="button primary" disabled={action.busy || !name.trim()}>
            {t('threads.create')}
          </button>
        </div>
      </form>
    </>
  );
}

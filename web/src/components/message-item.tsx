import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { Message, Reaction } from '../api/types';
import { Markdown } from '../markdown/render';
import { deleteMessage, editMessage, toggleReaction } from '../state/actions';
import { toastError } from '../state/toasts';
import { can, P, usePermissions } from '../state/permissions';
import { type State, store, useStore } from '../state/store';
import { type DraftMention, decodeDraft, encodeDraft, type MentionToken } from '../lib/mentions';
import { memberColors, nameColor, nameColorStyle } from '../lib/name-color';
import { codePoints, formatClock, formatFull, formatMessageTime } from '../lib/format';
import { AttachmentView } from './attachment';
import { Avatar, BotBadge } from './avatar';
import { confirm } from './dialog';
import { Embed } from './embed';
import { Emoji } from './emoji';
import { EmojiPicker } from './emoji-picker';
import { useAutocomplete } from './composer-suggestions';
import { AppsIcon, EditIcon, PinIcon, ReplyIcon, SmileIcon, ThreadIcon, TrashIcon } from './icons';
import { ThreadSummary } from './thread-summary';
import { navigate, paths } from '../router';
import { startThreadDraft } from '../state/threads';
import { openAppsMenu, useAppsTrigger, useContextCommands } from './apps-menu';
import { useMessageMenu } from './message-menu';
import { MessageUnfurls } from './message-unfurl';
import { openMemberCard } from './member-card';
import { MentionScope } from './mention-chip';
import { EphemeralNote, InvokerLine, MessageComponents, Thinking } from './message-interactions';
import { ReplyQuote } from './reply-quote';
import { setPinned, startReply } from '../state/conversation';
import { Trans } from 'react-i18next';
import { t } from '../i18n';
import styles from './message-item.module.css';
import roleName from './role-name.module.css';
import { useAction } from '../lib/use-action';
import { welcomeLineKey } from '../lib/welcome';

const MAX_CONTENT = 4000;

interface Props {
  message: Message;
  /** Continues the previous message's author group: no header. */
  grouped: boolean;
  mine: boolean;
  canDelete: boolean;
  editing: boolean;
  onEdit: (id: string | null) => void;
  /** Holds the message list's one tab stop (roving tabindex); its actions are shown. */
  current?: boolean;
}

export const MessageItem = memo(function MessageItem({ message, grouped, mine, canDelete, editing, onEdit, current = false }: Props) {
  const [picker, setPicker] = useState(false);
  const article = useRef<HTMLElement>(null);
  // The reaction picker closed (a pick, Escape) with the focus in it: the focus returns to
  // the message, not to the page.
  const pickerWasOpen = useRef(false);
  useEffect(() => {
    if (picker) {
      pickerWasOpen.current = true;
      return;
    }
    if (!pickerWasOpen.current) return;
    pickerWasOpen.current = false;
    const now = document.activeElement;
    if (!now || now === document.body) article.current?.focus({ preventScroll: true });
  }, [picker]);
  const author = message.author ?? { id: 'unknown', name: 'Unknown', bot: false };
  const isBot = !!author.bot || !!message.webhookId;
  const attachments = Array.isArray(message.attachments) ? message.attachments : [];
  const embeds = Array.isArray(message.embeds) ? message.embeds : [];
  const reactions = Array.isArray(message.reactions) ? message.reactions : [];
  const ephemeral = !!message.ephemeral;
  const canEdit = mine && !message.webhookId && !ephemeral;
  // The author's colour (their highest coloured role), or undefined when they have none;
  // null when they are not a member now (a webhook, or someone who left): no card to open.
  // A DM's messages have no server ('' finds no members or roles).
  const serverId = message.serverId ?? '';
  // The author's nickname in this server, from the member list already held.
  const nick = useStore((s) => (message.webhookId ? null : (s.members[serverId]?.find((m) => m.id === author.id)?.nick ?? null)));
  const name = nick || author.name || 'Unknown';
  const authorColor = useStore((s) =>
    message.webhookId ? null : (memberColors(s.members[serverId], s.roles[serverId]).get(author.id) ?? null),
  );
  const color = nameColor(authorColor);
  // Before the roles arrive nothing is hidden; the service decides in any case.
  const rolesKnown = useStore((s) => !!s.roles[serverId]);
  const bits = usePermissions(serverId, message.channelId);
  const canReact = !rolesKnown || can(bits, P.ADD_REACTIONS);
  // Replying is sending: without SEND_MESSAGES the composer is not there to reply with.
  const canReply = !rolesKnown || can(bits, P.SEND_MESSAGES);
  // Pins: MANAGE_MESSAGES in a server; anyone in a DM.
  const canPin = message.serverId === null || can(bits, P.MANAGE_MESSAGES);
  const mentionsMe = useMentionsMe(message);
  // Threads (docs/threads.md): the one this message started, and whether one may start here.
  const thread = useStore((s) => {
    const th = s.threads[message.id];
    return th && th.parentId === message.channelId ? th : undefined;
  });
  const inThread = useStore((s) => !!s.threads[message.channelId]);
  const canThread =
    !!message.serverId && !inThread && !message.ephemeral && message.type !== 'join' && (!rolesKnown || can(bits, P.CREATE_PUBLIC_THREADS));
  const threadAction = thread
    ? { label: t('messageMenu.openThread'), onSelect: () => navigate(paths.thread(serverId, message.channelId, thread.id)) }
    : canThread
      ? { label: t('messageMenu.createThread'), onSelect: () => startThreadDraft({ parentId: message.channelId, serverId, message }) }
      : undefined;
  // The "Apps" menu: the channel's message commands on this message, its author's user commands on their name and avatar.
  const ephemeralMessage = !!message.ephemeral;
  const authorApps = useAppsTrigger('user', message.webhookId || authorColor === null ? null : message.channelId, author.id);
  const hasMessageApps = useContextCommands(message.channelId, 'message').length > 0 && !ephemeralMessage;
  const scope = useMemo(() => ({ serverId: message.serverId, users: message.mentions }), [message.serverId, message.mentions]);

  const react = (emoji: string) => {
    setPicker(false);
    toggleReaction(message, emoji).catch(toastError);
  };

  const remove = async (skipConfirm: boolean) => {
    if (!skipConfirm) {
      const ok = await confirm({
        title: t('message.deleteTitle'),
        body: (
          <>
            <p>{t('message.deleteBody')}</p>
            {message.content && <blockquote className={styles.confirmQuote}>{message.content.slice(0, 300)}</blockquote>}
            <p className="hint">{t('message.deleteTip')}</p>
          </>
        ),
        confirmLabel: t('message.delete'),
        danger: true,
      });
      if (!ok) return;
    }
    deleteMessage(message).catch(toastError);
  };

  // The context menu: the toolbar's actions and more, by right-click, long press or the menu key.
  const contextMenu = useMessageMenu(message, {
    canReact,
    canReply,
    canPin,
    canEdit,
    canDelete,
    hasApps: hasMessageApps,
    thread: threadAction,
    copyText: () => {
      const state = store.getState();
      return decodeDraft(message.content, (token) => mentionName(state, message, token)).text;
    },
    onReact: () => setPicker(true),
    onEdit: () => onEdit(message.id),
    onDelete: () => void remove(false),
  });

  return (
    <article
      ref={article}
      className={`${styles.message}${grouped ? ` ${styles.grouped}` : ''}${editing ? ` ${styles.editing}` : ''}${mentionsMe ? ` ${styles.mentioned}` : ''}${ephemeral ? ` ${styles.ephemeral}` : ''}`}
      data-message-id={message.id}
      data-ephemeral={ephemeral ? 'true' : undefined}
      data-webhook={message.webhookId ? 'true' : undefined}
      data-mentions-me={mentionsMe ? 'true' : undefined}
      data-current={current ? 'true' : undefined}
      aria-label={`${name}, ${formatFull(message.createdAt)}`}
      tabIndex={current ? 0 : -1}
      {...contextMenu.handlers}
    >
      {(message.interaction?.type === 'command' || message.interaction?.type === 'modalSubmit') && (
        <InvokerLine interaction={message.interaction} />
      )}
      {message.messageReference && (
        <MentionScope value={scope}>
          <ReplyQuote reply={message} />
        </MentionScope>
      )}
      <div className={styles.messageGutter}>
        {grouped ? (
          <time className={styles.messageHoverTime} dateTime={message.createdAt} title={formatFull(message.createdAt)}>
            {formatClock(message.createdAt)}
          </time>
        ) : (
          <span className={styles.avatarTarget} {...authorApps}>
            <Avatar id={message.webhookId ?? author.id} name={name} src={author.avatar} />
          </span>
        )}
      </div>
      <div className="message-body">
        {!grouped && (
          <div className={styles.messageHeader}>
            {authorColor !== null ? (
              <button
                type="button"
                className={`${styles.messageAuthor} ${styles.authorButton}${color ? ` ${roleName.colored}` : ''}`}
                style={nameColorStyle(color)}
                aria-haspopup="dialog"
                onClick={() => openMemberCard(serverId, author.id)}
                {...authorApps}
              >
                {name}
              </button>
            ) : (
              <span className={styles.messageAuthor}>{name}</span>
            )}
            {isBot && <BotBadge className={styles.headerBadge} />}
            <time className={styles.messageTime} dateTime={message.createdAt} title={formatFull(message.createdAt)}>
              {formatMessageTime(message.createdAt)}
            </time>
          </div>
        )}
        {message.loading ? (
          <Thinking name={name} />
        ) : editing ? (
          <EditBox message={message} onDone={() => onEdit(null)} />
        ) : (
          message.content && (
            <div className={styles.messageContent}>
              <MentionScope value={scope}>
                <Markdown
                  source={message.content}
                  trailing={
                    // An answer to a command or click is edited by its bot as a matter of course
                    // (a deferred answer filled in, a click's update): Discord marks none of those.
                    message.editedAt && !message.interaction ? (
                      <span className={styles.edited} title={t('message.editedAt', { time: formatFull(message.editedAt) })}>
                        {' '}
                        {t('message.edited')}
                      </span>
                    ) : undefined
                  }
                />
              </MentionScope>
            </div>
          )
        )}
        {attachments.length > 0 && (
          <div className={styles.attachments}>
            {attachments.map((a, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the same file may be attached twice; attachments never move
              <AttachmentView key={`${a.url}-${i}`} attachment={a} />
            ))}
          </div>
        )}
        {embeds.length > 0 && (
          // biome-ignore lint/suspicious/noArrayIndexKey: a message's embeds have no ids; their place is their identity
          <div className={styles.embeds}>{embeds.map((e, i) => (e && typeof e === 'object' ? <Embed key={i} embed={e} /> : null))}</div>
        )}
        <MessageComponents message={message} />
        {!editing && message.content && <MessageUnfurls message={message} />}
        {reactions.length > 0 && (
          // biome-ignore lint/a11y: a group of buttons, not of form fields (which a fieldset is for)
          <div className={styles.reactions} role="group" aria-label={t('message.reactions')}>
            {reactions.map((r) => (
              <ReactionChip key={r.emoji} reaction={r} onToggle={react} />
            ))}
          </div>
        )}
        {thread && <ThreadSummary thread={thread} />}
        {ephemeral && <EphemeralNote message={message} />}
      </div>
      {/* An ephemeral message is nowhere but here: nothing to react to, reply to, pin or delete. */}
      {!ephemeral && (
        <div className={styles.messageActions} role="toolbar" aria-label={t('message.actions')}>
          {canReact && (
            <button
              type="button"
              className="icon-button"
              aria-label={t('message.addReaction')}
              title={t('message.addReaction')}
              onClick={() => setPicker((p) => !p)}
              aria-expanded={picker}
            >
              <SmileIcon />
            </button>
          )}
          {canReply && (
            <button
              type="button"
              className="icon-button"
              aria-label={t('message.reply')}
              title={t('message.reply')}
              onClick={() => startReply(message)}
            >
              <ReplyIcon />
            </button>
          )}
          {threadAction && (
            <button
              type="button"
              className="icon-button"
              aria-label={threadAction.label}
              title={threadAction.label}
              data-action="thread"
              onClick={threadAction.onSelect}
            >
              <ThreadIcon />
            </button>
          )}
          {canPin && (
            <button
              type="button"
              className={`icon-button${message.pinned ? ' active' : ''}`}
              aria-label={message.pinned ? t('message.unpinMessage') : t('message.pinMessage')}
              title={message.pinned ? t('message.unpin') : t('message.pin')}
              onClick={() => setPinned(message, !message.pinned).catch(toastError)}
            >
              <PinIcon />
            </button>
          )}
          {hasMessageApps && (
            <button
              type="button"
              className="icon-button"
              aria-label={t('message.apps')}
              title={t('message.apps')}
              aria-haspopup="menu"
              onClick={(e) => {
                const r = e.currentTarget.getBoundingClientRect();
                openAppsMenu({
                  type: 'message',
                  channelId: message.channelId,
                  targetId: message.id,
                  x: r.left,
                  y: r.bottom + 4,
                  returnTo: e.currentTarget,
                });
              }}
            >
              <AppsIcon />
            </button>
          )}
          {canEdit && (
            <button
              type="button"
              className="icon-button"
              aria-label={t('message.editMessage')}
              title={t('message.edit')}
              onClick={() => onEdit(message.id)}
            >
              <EditIcon />
            </button>
          )}
          {canDelete && (
            <button
              type="button"
              className="icon-button danger"
              aria-label={t('message.deleteMessage')}
              title={t('message.deleteShiftHint')}
              onClick={(e) => void remove(e.shiftKey)}
            >
              <TrashIcon />
            </button>
          )}
          {picker && canReact && <EmojiPicker onPick={react} onClose={() => setPicker(false)} />}
        </div>
      )}
      {contextMenu.menu}
    </article>
  );
});

/**
 * A welcome line (a system message, `type: "join"`): someone joined by invite. Centred
 * in the list with the newcomer's name; its menu offers what fits a system message.
 */
export const JoinLine = memo(function JoinLine({
  message,
  canDelete,
  current = false,
}: {
  message: Message;
  canDelete: boolean;
  current?: boolean;
}) {
  const author = message.author ?? { id: 'unknown', name: 'Unknown', bot: false };
  const serverId = message.serverId ?? '';
  const nick = useStore((s) => s.members[serverId]?.find((m) => m.id === author.id)?.nick ?? null);
  const name = nick || author.name || t('common.unknown');
  const rolesKnown = useStore((s) => !!s.roles[serverId]);
  const bits = usePermissions(serverId, message.channelId);
  const remove = async () => {
    const ok = await confirm({
      title: t('message.deleteTitle'),
      body: <p>{t('message.deleteBody')}</p>,
      confirmLabel: t('message.delete'),
      danger: true,
    });
    if (ok) deleteMessage(message).catch(toastError);
  };
  const contextMenu = useMessageMenu(message, {
    canReact: false,
    canReply: !rolesKnown || can(bits, P.SEND_MESSAGES),
    canPin: false,
    canEdit: false,
    canDelete,
    hasApps: false,
    copyText: () => '',
    onReact: () => undefined,
    onEdit: () => undefined,
    onDelete: () => void remove(),
  });
  return (
    <article
      className={styles.joinLine}
      data-message-id={message.id}
      data-join="true"
      data-current={current ? 'true' : undefined}
      aria-label={`${t(`message.welcome.${welcomeLineKey(message.id)}`, { name }).replace(/<\/?b>/g, '')}, ${formatFull(message.createdAt)}`}
      tabIndex={current ? 0 : -1}
      {...contextMenu.handlers}
    >
      <span className={styles.joinArrow} aria-hidden="true">
        →
      </span>
      <span className={styles.joinText}>
        <Trans
          i18nKey={`message.welcome.${welcomeLineKey(message.id)}`}
          values={{ name }}
          components={{ b: <strong className={styles.joinName} /> }}
        />
      </span>
      <time className={styles.joinTime} dateTime={message.createdAt} title={formatFull(message.createdAt)}>
        {formatMessageTime(message.createdAt)}
      </time>
      {contextMenu.menu}
    </article>
  );
});

/**
 * Whether the message is for the viewer: it names them, pings a role of theirs or
 * everyone, or replies to a message of theirs. Their own messages never are.
 */
function useMentionsMe(message: Message): boolean {
  const meId = useStore((s) => s.me?.id);
  const myRoles = useStore((s) => (message.serverId ? s.myRoles[message.serverId] : undefined));
  if (!meId || message.author?.id === meId) return false;
  if (message.mentionEveryone) return true;
  if (message.mentions?.some((u) => u.id === meId)) return true;
  if (myRoles && message.mentionRoles?.some((id) => myRoles.includes(id))) return true;
  return !!message.referencedMessage && message.referencedMessage.author?.id === meId;
}

function ReactionChip({ reaction, onToggle }: { reaction: Reaction; onToggle: (emoji: string) => void }) {
  const label = `${reaction.emoji} ${reaction.count} ${reaction.count === 1 ? 'reaction' : 'reactions'}${reaction.me ? ', including yours; click to remove yours' : '; click to add yours'}`;
  return (
    <button
      type="button"
      className={reaction.me ? `${styles.reaction} ${styles.mine}` : styles.reaction}
      aria-pressed={!!reaction.me}
      aria-label={label}
      onClick={() => onToggle(reaction.emoji)}
    >
      <Emoji emoji={reaction.emoji} className="reaction-emoji" decorative />
      <span className={styles.reactionCount}>{reaction.count}</span>
    </button>
  );
}

/** What `<@id>`, `<@&id>` and `<#id>` in a message are called now, for editing it as names. */
function mentionName(state: State, message: Message, token: MentionToken): string | null {
  const serverId = message.serverId ?? '';
  switch (token.kind) {
    case 'user':
      return (
        state.members[serverId]?.find((m) => m.id === token.id)?.name ??
        message.mentions?.find((u) => u.id === token.id)?.name ??
        (state.me?.id === token.id ? state.me.name : null)
      );
    case 'role':
      return state.roles[serverId]?.find((r) => r.id === token.id)?.name ?? null;
    case 'channel':
      return (
        Object.values(state.channels)
          .flat()
          .find((c) => c.id === token.id)?.name ?? null
      );
    default:
      return null;
  }
}

/**
 * Editing a message in the form the composer writes: names (`@bob`, `#general`) where the
 * text has ids, the composer's autocomplete, and the names turned back into ids on saving.
 */
function EditBox({ message, onDone }: { message: Message; onDone: () => void }) {
  const [draft] = useState(() => decodeDraft(message.content, (token) => mentionName(store.getState(), message, token)));
  const picks = useRef<DraftMention[]>(draft.picks);
  const [text, setText] = useState(draft.text);
  const { busy: saving, run } = useAction({ onError: toastError });
  const ref = useRef<HTMLTextAreaElement>(null);
  const channel = useMemo(() => ({ id: message.channelId, serverId: message.serverId ?? '' }), [message.channelId, message.serverId]);
  const autocomplete = useAutocomplete({
    text,
    setText,
    area: ref,
    channel,
    onMention: (mention) => {
      picks.current = [...picks.current.filter((p) => p.display !== mention.display), mention];
    },
  });

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies(text): the textarea grows with its text
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 400)}px`;
  }, [text]);

  const save = async () => {
    // As the composer sends: a picked name leaves a trailing space, which is not part of the message.
    const content = encodeDraft(text, picks.current).trimEnd();
    if (content === message.content) return onDone();
    if (!text.trim() && !message.attachments?.length) {
      toastError(new Error('A message cannot be empty. Delete it instead.'));
      return;
    }
    if (codePoints(content) > MAX_CONTENT) {
      toastError(new Error(`Messages can be at most ${MAX_CONTENT} characters.`));
      return;
    }
    await run(
      async () => {
        await editMessage(message, content);
        onDone();
      },
      { stayBusy: true },
    );
  };

  return (
    <div className={styles.editBox}>
      {autocomplete.list}
      <textarea
        ref={ref}
        className={`input ${styles.editInput}`}
        aria-label={t('message.editMessage')}
        value={text}
        disabled={saving}
        {...autocomplete.inputProps}
        onChange={(e) => {
          setText(e.target.value);
          autocomplete.changed(e.target.value, e.target.selectionStart);
        }}
        onKeyDown={(e) => {
          if (autocomplete.onKeyDown(e)) return;
          if (e.key === 'Escape') {
            e.preventDefault();
            onDone();
          } else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void save();
          }
        }}
      />
      <div className={styles.editHint}>
        <Trans
          i18nKey="message.editHint"
          components={{
            cancel: <button type="button" className="link-button" onClick={onDone} />,
            save: <button type="button" className="link-button" onClick={() => void save()} />,
          }}
        />
      </div>
    </div>
  );
}

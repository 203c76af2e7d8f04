/**
 * The channel's pinned messages, opened from the pin button in the channel header: each
 * drawn like a message, with Jump (scrolls to it in the channel) and, for those who may,
 * Unpin. Loaded when opened, then kept current by CHANNEL_PINS_UPDATE and MESSAGE_UPDATE
 * (state/conversation.ts). Escape or a press outside closes it.
 */
import { useEffect, useId, useRef } from 'react';
import type { Channel, Message } from '../api/types';
import { formatFull, formatMessageTime } from '../lib/format';
import { Markdown } from '../markdown/render';
import { jumpToMessage, loadPins, setPinned, useConversation } from '../state/conversation';
import { toastError } from '../state/toasts';
import { AttachmentView } from './attachment';
import { Avatar, BotBadge } from './avatar';
import { CloseIcon, PinIcon } from './icons';
import { MentionScope } from './mention-chip';
import styles from './pins-panel.module.css';
import { t } from '../i18n';

interface Props {
  channel: Channel;
  /** May unpin (MANAGE_MESSAGES here, or anyone in a DM). */
  canManage: boolean;
  onClose: (refocus: boolean) => void;
  /** The header button that opened it: a press on it toggles, rather than closes and reopens. */
  toggle: HTMLElement | null;
}

export function PinsPanel({ channel, canManage, onClose, toggle }: Props) {
  const pins = useConversation((s) => s.pins[channel.id]);
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  useEffect(() => {
    void loadPins(channel.id);
  }, [channel.id]);

  useEffect(() => {
    ref.current?.focus();
    const onDown = (e: MouseEvent) => {
      const t = e.target as Node;
      if (ref.current?.contains(t) || toggle?.contains(t)) return;
      closeRef.current(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [toggle]);

  const items = pins?.items;
  return (
    // biome-ignore lint/a11y: Escape anywhere in the panel closes it; its controls take the other keys
    <div
      ref={ref}
      className={styles.panel}
      role="dialog"
      aria-labelledby={titleId}
      tabIndex={-1}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          closeRef.current(true);
        }
      }}
    >
      <header className={styles.header}>
        <PinIcon size={16} />
        <h3 id={titleId}>{t('pinsPanel.pinnedMessages')}</h3>
        <button
          type="button"
          className="icon-button"
          aria-label={t('pinsPanel.closePinnedMessages')}
          onClick={() => closeRef.current(true)}
        >
          <CloseIcon />
        </button>
      </header>
      <div className={styles.body} aria-busy={!!pins?.loading}>
        {!items && !pins?.error && <p className={styles.note}>{t('pinsPanel.loadingPinnedMessages')}</p>}
        {pins?.error && (
          <p className={styles.error} role="alert">
            {t('pinsPanel.couldNotLoad', { error: pins.error })}{' '}
            <button type="button" className="link-button" onClick={() => void loadPins(channel.id)}>
              {t('pinsPanel.tryAgain')}
            </button>
          </p>
        )}
        {items?.length === 0 && (
          <div className={styles.empty}>
            <div className={styles.emptyIcon} aria-hidden="true">
              <PinIcon size={28} />
            </div>
            <p className={styles.emptyTitle}>{t('pinsPanel.thisChannelDoesnT')}</p>
            <p className={styles.note}>{canManage ? t('pinsPanel.pinAMessageFrom') : t('pinsPanel.messagesPinnedByModerators')}</p>
          </div>
        )}
        {items && items.length > 0 && (
          <ol className={styles.list} aria-label={t('pinsPanel.pinnedMessages', { count: items.length })}>
            {items.map((m) => (
              <PinnedMessage key={m.id} message={m} canManage={canManage} onJump={() => closeRef.current(false)} />
            ))}
          </ol>
        )}
      </div>
    </div>
  );
}

function PinnedMessage({ message, canManage, onJump }: { message: Message; canManage: boolean; onJump: () => void }) {
  const author = message.author ?? { id: 'unknown', name: t('common.unknown'), bot: false, avatar: null };
  const name = author.name || t('common.unknown');
  const attachments = Array.isArray(message.attachments) ? message.attachments : [];
  return (
    <li className={styles.item} data-pinned-id={message.id}>
      <div className={styles.itemHeader}>
        <Avatar id={message.webhookId ?? author.id} name={name} src={author.avatar} size={28} />
        <span className={styles.author}>{name}</span>
        {(author.bot || message.webhookId) && <BotBadge />}
        <time className={styles.time} dateTime={message.createdAt} title={formatFull(message.createdAt)}>
          {formatMessageTime(message.createdAt)}
        </time>
        <span className={styles.actions}>
          <button
            type="button"
            className="button secondary small"
            onClick={() => {
              onJump();
              void jumpToMessage(message.channelId, message.id);
            }}
          >
            {t('pinsPanel.jump')}
          </button>
          {canManage && (
            <button
              type="button"
              className="icon-button small danger"
              aria-label={t('pinsPanel.unpinMessageFromName', { name })}
              title={t('pinsPanel.unpin')}
              onClick={() => setPinned(message, false).catch(toastError)}
            >
              <CloseIcon />
            </button>
          )}
        </span>
      </div>
      <MentionScope value={{ serverId: message.serverId, users: message.mentions }}>
        {message.content && <Markdown source={message.content} className={styles.content} />}
      </MentionScope>
      {attachments.length > 0 && (
        <div className={styles.attachments}>
          {attachments.map((a, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the same file may be attached twice; attachments never move
            <AttachmentView key={`${a.url}-${i}`} attachment={a} />
          ))}
        </div>
      )}
    </li>
  );
}

/**
 * The line above a reply: the original's author (small avatar and name) and the start of
 * its text. Clicking it scrolls to the original and flashes it, loading the history
 * around it first when it is not loaded. A deleted original is said to be so.
 */
import type { Message } from '../api/types';
import { memberColors, nameColor, nameColorStyle } from '../lib/name-color';
import { splitMentions } from '../lib/mentions';
import { toPlainText } from '../markdown/plain';
import { jumpToMessage } from '../state/conversation';
import { useStore } from '../state/store';
import { Avatar } from './avatar';
import { ReplyIcon } from './icons';
import { MentionChip } from './mention-chip';
import roleName from './role-name.module.css';
import styles from './reply-quote.module.css';
import { t } from '../i18n';

export function ReplyQuote({ reply }: { reply: Message }) {
  const original = reply.referencedMessage;
  const serverId = reply.serverId ?? '';
  const authorId = original?.author?.id ?? '';
  const colorValue = useStore((s) =>
    original && !original.webhookId ? (memberColors(s.members[serverId], s.roles[serverId]).get(authorId) ?? 0) : 0,
  );
  if (!original) {
    return (
      <div className={styles.replyQuote} data-reply-quote="deleted">
        <span className={styles.spine} aria-hidden="true" />
        <span className={styles.deletedIcon} aria-hidden="true">
          <ReplyIcon size={12} />
        </span>
        <span className={styles.deleted}>{t('replyQuote.originalMessageWasDeleted')}</span>
      </div>
    );
  }
  const name = original.author?.name || t('common.unknown');
  // "@name" when the reply pinged the author, as Discord marks it.
  const pinged = reply.mentions?.some((u) => u.id === authorId);
  const text = toPlainText(original.content ?? '', 200);
  const color = nameColor(colorValue);
  return (
    <div className={styles.replyQuote} data-reply-quote={original.id}>
      <span className={styles.spine} aria-hidden="true" />
      <button
        type="button"
        className={styles.replyButton}
        title={t('replyQuote.jumpToTheOriginal')}
        onClick={() => void jumpToMessage(original.channelId, original.id)}
      >
        <span className="visually-hidden">{t('replyQuote.replyingTo')} </span>
        <Avatar id={original.webhookId ?? authorId} name={name} src={original.author?.avatar} size={16} />
        <span className={`${styles.name}${color ? ` ${roleName.colored}` : ''}`} style={nameColorStyle(color)}>
          {pinged ? '@' : ''}
          {name}
        </span>
        <span className={styles.excerpt}>
          {text ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text: their place is their identity
            splitMentions(text).map((p, i) => (typeof p === 'string' ? p : <MentionChip key={i} token={p} plain />))
          ) : (
            <em className={styles.attachmentNote}>
              {original.attachments?.length ? t('replyQuote.clickToSeeAttachment') : t('replyQuote.clickToSeeThe')}
            </em>
          )}
        </span>
      </button>
    </div>
  );
}

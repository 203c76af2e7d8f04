/**
 * Blocked people's messages, folded (docs/api.md#direct-messages, "What a block does"): the
 * service still delivers them, and the client folds each run of them into one line, "2
 * blocked messages — Show", as Discord does. Showing a run is a click; hiding it again too.
 */
import type { PublicUser } from '@parley/protocol';
import type { Message } from '../api/types';
import { t } from '../i18n';
import styles from './blocked-fold.module.css';

/** A run of consecutive messages by blocked people: its ids, oldest first, and whether it is shown. */
export interface Fold {
  ids: string[];
  shown: boolean;
}

const isBlocked = (m: Message, blocked: Record<string, PublicUser> | null) => !m.webhookId && !!m.author && !!blocked?.[m.author.id];

/**
 * The messages the list draws: a hidden run keeps only its first message (drawn as the fold
 * line), a shown one keeps all. `folds` is keyed by each run's first message. A run holding
 * one of `reveal` (a message someone jumped to, or runs shown with a click) is shown.
 */
export function foldBlocked(
  items: Message[],
  blocked: Record<string, PublicUser> | null,
  reveal: ReadonlySet<string>,
): { items: Message[]; folds: Map<string, Fold> } {
  const folds = new Map<string, Fold>();
  if (!blocked || Object.keys(blocked).length === 0) return { items, folds };
  const out: Message[] = [];
  for (let i = 0; i < items.length; ) {
    const m = items[i]!;
    if (!isBlocked(m, blocked)) {
      out.push(m);
      i++;
      continue;
    }
    let j = i;
    while (j < items.length && isBlocked(items[j]!, blocked)) j++;
    const run = items.slice(i, j);
    const shown = run.some((r) => reveal.has(r.id));
    folds.set(m.id, { ids: run.map((r) => r.id), shown });
    if (shown) out.push(...run);
    else out.push(m);
    i = j;
  }
  return { items: out, folds };
}

/** The line a hidden run is drawn as: one of the list's stops, as a message is. */
export function BlockedFold({
  message,
  fold,
  current,
  onToggle,
}: {
  message: Message;
  fold: Fold;
  current: boolean;
  onToggle: (fold: Fold, show: boolean) => void;
}) {
  const count = fold.ids.length;
  const text = t('messageList.blockedMessages', { count });
  if (fold.shown) {
    return (
      <div className={`${styles.fold} ${styles.shown}`} data-blocked-fold="shown">
        <span>{text}</span>
        <span aria-hidden="true">—</span>
        <button type="button" className={styles.toggle} onClick={() => onToggle(fold, false)}>
          {t('messageList.hideBlocked')}
        </button>
      </div>
    );
  }
  return (
    <article
      className={styles.fold}
      data-message-id={message.id}
      data-blocked-fold="hidden"
      data-current={current ? 'true' : undefined}
      // One stop of the list, as a message is (its arrow keys move between them).
      tabIndex={current ? 0 : -1}
      aria-label={text}
    >
      <span className={styles.icon} aria-hidden="true">
        ⊘
      </span>
      <span>{text}</span>
      <span aria-hidden="true">—</span>
      <button type="button" className={styles.toggle} tabIndex={current ? 0 : -1} onClick={() => onToggle(fold, true)}>
        {t('messageList.showBlocked')}
      </button>
    </article>
  );
}

import { Fragment, useState, type ReactNode } from 'react';
import { emojiUrl, missingEmoji, splitEmoji } from '../lib/emoji';

interface Props {
  emoji: string;
  className?: string;
  /** For grids of many (the picker): fetched when scrolled into view. */
  lazy?: boolean;
  /** Decorative (the name is on the button around it): empty alt. */
  decorative?: boolean;
}

/**
 * One emoji from the bundled Twemoji set: an image whose `alt` is the emoji itself, so
 * copying the text and screen readers keep it. An emoji the set does not have (newer
 * than it) fails to load and is drawn as text from then on.
 */
export function Emoji({ emoji, className, lazy, decorative }: Props) {
  const src = emojiUrl(emoji);
  const [missing, setMissing] = useState(() => missingEmoji.has(src));
  if (missing) {
    return (
      <span className={`emoji-text${className ? ` ${className}` : ''}`} aria-hidden={decorative || undefined}>
        {emoji}
      </span>
    );
  }
  return (
    // biome-ignore lint/a11y: onError is no interaction: it draws the text instead of a missing image
    <img
      className={`emoji${className ? ` ${className}` : ''}`}
      src={src}
      alt={decorative ? '' : emoji}
      draggable={false}
      loading={lazy ? 'lazy' : undefined}
      decoding="async"
      onError={() => {
        missingEmoji.add(src);
        setMissing(true);
      }}
    />
  );
}

/** Text with its emoji drawn from the set. */
export function EmojiText({ text }: { text: string }): ReactNode {
  const parts = splitEmoji(text);
  if (parts.length === 1 && typeof parts[0] === 'string') return text;
  // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text: their place is their identity
  return <>{parts.map((p, i) => (typeof p === 'string' ? <Fragment key={i}>{p}</Fragment> : <Emoji key={i} emoji={p.emoji} />))}</>;
}

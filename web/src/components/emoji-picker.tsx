import { useEffect, useRef } from 'react';
import styles from './emoji-picker.module.css';

/** A short list of the reactions people reach for most, with names for screen readers. */
export const QUICK_EMOJI: [string, string][] = [
  ['👍', 'thumbs up'],
  ['👎', 'thumbs down'],
  ['❤️', 'red heart'],
  ['😂', 'tears of joy'],
  ['😄', 'grinning'],
  ['🎉', 'party popper'],
  ['😮', 'surprised'],
  ['😢', 'crying'],
  ['🙏', 'folded hands'],
  ['👀', 'eyes'],
  ['🔥', 'fire'],
  ['✅', 'check mark'],
  ['❌', 'cross mark'],
  ['🚀', 'rocket'],
  ['💯', 'hundred points'],
  ['🤔', 'thinking'],
  ['👏', 'clapping'],
  ['😅', 'sweat smile'],
  ['🙌', 'raising hands'],
  ['⭐', 'star'],
  ['🐛', 'bug'],
  ['⚠️', 'warning'],
  ['💡', 'light bulb'],
  ['➕', 'plus'],
];

interface PickerProps {
  onPick: (emoji: string) => void;
  onClose: () => void;
}

/** A small popover grid; arrow keys move, Enter picks, Escape closes. */
export function EmojiPicker({ onPick, onClose }: PickerProps) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLButtonElement>('button')?.focus();
    const onDown = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) onClose();
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [onClose]);
  const cols = 6;
  return (
    <div
      ref={ref}
      className={styles.emojiPicker}
      role="dialog"
      aria-label="Add a reaction"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          onClose();
          return;
        }
        const buttons = [...(ref.current?.querySelectorAll<HTMLButtonElement>('button') ?? [])];
        const idx = buttons.indexOf(document.activeElement as HTMLButtonElement);
        const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: cols, ArrowUp: -cols }[e.key];
        if (step !== undefined && idx >= 0) {
          e.preventDefault();
          buttons[(idx + step + buttons.length) % buttons.length]?.focus();
        }
      }}
    >
      {QUICK_EMOJI.map(([emoji, name]) => (
        <button
          key={emoji}
          type="button"
          className={styles.emojiOption}
          aria-label={`React with ${name}`}
          title={name}
          onClick={() => onPick(emoji)}
        >
          {emoji}
        </button>
      ))}
    </div>
  );
}

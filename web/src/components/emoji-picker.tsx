import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type CSSProperties, type KeyboardEvent } from 'react';
import { loadEmojiData, recentEmoji, rememberEmoji, setSkinTone, skinTone, withTone, type PickerEmoji } from '../lib/emoji';
import { t } from '../i18n';
import { Emoji } from './emoji';
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

type EmojiData = Awaited<ReturnType<typeof loadEmojiData>>;

/** Emoji per row of the grid (the arrow keys move by it). */
const COLS = 8;
/** The skin tones' names, in the order of `TONE_SWATCH`. */
const TONES = ['none', 'light', 'mediumLight', 'medium', 'mediumDark', 'dark'] as const;
const toneName = (i: number) => t(`emoji.tones.${TONES[i] ?? 'none'}`);
const TONE_SWATCH = ['✋', '✋🏻', '✋🏼', '✋🏽', '✋🏾', '✋🏿'];
/** Each group's tab icon. */
const GROUP_ICON: Record<string, string> = {
  recent: '🕘',
  'smileys-emotion': '😀',
  'people-body': '👋',
  'animals-nature': '🐻',
  'food-drink': '🍔',
  'travel-places': '🚗',
  activities: '⚽',
  objects: '💡',
  symbols: '❤️',
  flags: '🏁',
};

/** The emoji groups the catalog names. */
type GroupKey =
  | 'smileys-emotion'
  | 'people-body'
  | 'animals-nature'
  | 'food-drink'
  | 'travel-places'
  | 'activities'
  | 'objects'
  | 'symbols'
  | 'flags';
const GROUP_KEYS = new Set<string>(Object.keys(GROUP_ICON).filter((k) => k !== 'recent'));

interface Section {
  key: string;
  name: string;
  emoji: PickerEmoji[];
}

/** 0: a shortcode starts with the query; 1: the name does; 2: a word of either does; 3: a tag does; -1: no match. */
function score(e: PickerEmoji, q: string): number {
  if (e.s.some((s) => s.startsWith(q))) return 0;
  const name = e.n.toLowerCase();
  if (name.startsWith(q)) return 1;
  if (name.split(/[\s:,-]+/u).some((w) => w.startsWith(q)) || e.s.some((s) => s.split(/[_-]/u).some((w) => w.startsWith(q)))) return 2;
  if (e.t?.some((t) => t.startsWith(q))) return 3;
  return -1;
}

/** Emoji matching every word of the query, the best first (then in the set's order). */
export function searchEmoji(data: EmojiData, query: string, limit = Number.POSITIVE_INFINITY): PickerEmoji[] {
  const words = query.toLowerCase().replace(/:/g, ' ').split(/\s+/u).filter(Boolean);
  if (!words.length) return [];
  const found: { e: PickerEmoji; r: number; i: number }[] = [];
  let i = 0;
  for (const g of data.groups) {
    for (const e of g.emoji) {
      let r = 0;
      for (const w of words) {
        const s = score(e, w);
        if (s < 0) {
          r = -1;
          break;
        }
        r += s;
      }
      if (r >= 0) found.push({ e, r, i });
      i++;
    }
  }
  found.sort((a, b) => a.r - b.r || a.i - b.i);
  return found.slice(0, limit).map((f) => f.e);
}

interface PickerProps {
  onPick: (emoji: string) => void;
  onClose: () => void;
  /** What the picker is for, as its dialog is named: "Add a reaction" (buttons "React with …") or "Insert emoji". */
  purpose?: 'react' | 'insert';
}

/**
 * The emoji picker (issue 13): every emoji of the bundled set by group, a search over
 * names, shortcodes and keywords, the person's recent picks first, a skin tone, and a
 * preview of the emoji under the pointer or focus. Its data is a chunk of its own,
 * fetched the first time a picker opens. It is placed beside the element it opened
 * from (its parent), below it or else above, within the window.
 *
 * Keyboard: the search box has focus; Down moves into the grid, where the arrow keys
 * move (one tab stop for the whole grid), Enter picks, Up from the first row goes back
 * to the search; Escape closes.
 */
export function EmojiPicker({ onPick, onClose, purpose = 'react' }: PickerProps) {
  const ref = useRef<HTMLDivElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const search = useRef<HTMLInputElement>(null);
  const [data, setData] = useState<EmojiData | null>(null);
  const [failed, setFailed] = useState(false);
  const [query, setQuery] = useState('');
  const [tone, setTone] = useState(skinTone);
  const [tonesOpen, setTonesOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [preview, setPreview] = useState<PickerEmoji | null>(null);
  // Unplaced for the first moment: see-through (not hidden, which would refuse the focus).
  const [place, setPlace] = useState<CSSProperties>({ opacity: 0 });
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  const id = useId();

  useEffect(() => {
    let live = true;
    loadEmojiData().then(
      (d) => live && setData(d),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, []);

  useEffect(() => {
    search.current?.focus();
    const onDown = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) closeRef.current();
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, []);

  // Beside the opener: below it when it fits, else above; never past the window's edges.
  useLayoutEffect(() => {
    const el = ref.current;
    const anchor = el?.parentElement;
    if (!el || !anchor) return;
    const place = () => {
      const a = anchor.getBoundingClientRect();
      const w = el.offsetWidth;
      const h = el.offsetHeight;
      const vw = document.documentElement.clientWidth;
      const vh = window.innerHeight;
      const left = Math.max(8, Math.min(a.right - w, vw - w - 8));
      const below = a.bottom + 4;
      const top = below + h <= vh - 8 ? below : Math.max(8, a.top - h - 4);
      setPlace({ left, top });
    };
    place();
    window.addEventListener('resize', place);
    return () => window.removeEventListener('resize', place);
  }, []);

  const sections: Section[] = useMemo(() => {
    if (!data) return [];
    if (query.trim()) return [{ key: 'search', name: t('emoji.searchResults'), emoji: searchEmoji(data, query) }];
    const all = new Map<string, PickerEmoji>();
    for (const g of data.groups) for (const e of g.emoji) all.set(e.c, e);
    const recent = recentEmoji()
      .map((c) => all.get(c))
      .filter((e): e is PickerEmoji => !!e);
    // Group names from the catalog (the data's are English); a group it does not know keeps the data's.
    const groups = data.groups.map((g) => ({ ...g, name: GROUP_KEYS.has(g.key) ? t(`emoji.groups.${g.key as GroupKey}`) : g.name }));
    return [...(recent.length ? [{ key: 'recent', name: t('emoji.recentlyUsed'), emoji: recent }] : []), ...groups];
  }, [data, query]);

  const flat = useMemo(() => sections.flatMap((s) => s.emoji), [sections]);
  const activeIndex = Math.min(active, Math.max(0, flat.length - 1));
  const shown = preview ?? flat[activeIndex] ?? null;

  const pick = (e: PickerEmoji) => {
    const emoji = withTone(e, tone);
    rememberEmoji(e.c);
    onPick(emoji);
  };

  // Enter on a search typed before the emoji data arrived picks its first match once it does
  // (a fast typist, or a slow connection, would otherwise see Enter do nothing).
  const enterWhenLoaded = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies(pick): the pick of this render, once the data is in
  useEffect(() => {
    if (!enterWhenLoaded.current || !data) return;
    enterWhenLoaded.current = false;
    if (query.trim() && flat[0]) pick(flat[0]);
  }, [data, flat, query]);

  const focusCell = (i: number) => {
    const next = Math.max(0, Math.min(flat.length - 1, i));
    setActive(next);
    scroller.current?.querySelector<HTMLButtonElement>(`[data-index="${next}"]`)?.focus();
  };

  const onGridKey = (e: KeyboardEvent) => {
    const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: COLS, ArrowUp: -COLS }[e.key];
    if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      focusCell(e.key === 'Home' ? 0 : flat.length - 1);
      return;
    }
    if (step === undefined) return;
    e.preventDefault();
    if (e.key === 'ArrowUp' && activeIndex < COLS) {
      search.current?.focus();
      return;
    }
    focusCell(activeIndex + step);
  };

  const jumpTo = (key: string) => {
    const box = scroller.current;
    const heading = box?.querySelector<HTMLElement>(`[data-section="${key}"]`);
    if (box && heading) box.scrollTop = heading.offsetTop;
  };

  const label = purpose === 'react' ? t('emoji.addReaction') : t('composer.insertEmoji');
  let index = 0;
  return (
    // biome-ignore lint/a11y: its handlers keep the focus inside and close it on Escape; its buttons take the keys
    <div
      ref={ref}
      className={styles.emojiPicker}
      style={place}
      // Clicks on its empty parts keep the focus inside (the message toolbar shows while it has it).
      tabIndex={-1}
      role="dialog"
      aria-label={label}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          e.preventDefault();
          if (tonesOpen) setTonesOpen(false);
          else onClose();
        }
      }}
    >
      <div className={styles.top}>
        <input
          ref={search}
          className={`input ${styles.search}`}
          type="search"
          placeholder={t('emoji.searchPlaceholder')}
          aria-label={t('emoji.searchLabel')}
          aria-controls={`${id}-grid`}
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setActive(0);
          }}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown' && flat.length) {
              e.preventDefault();
              focusCell(0);
            } else if (e.key === 'Enter' && query.trim() && flat[0]) {
              e.preventDefault();
              pick(flat[0]);
            } else if (e.key === 'Enter' && query.trim() && !data) {
              e.preventDefault();
              enterWhenLoaded.current = true;
            }
          }}
        />
        <div className={styles.tones}>
          <button
            type="button"
            className={styles.toneButton}
            aria-label={t('emoji.skinToneIs', { tone: toneName(tone) })}
            aria-expanded={tonesOpen}
            title={t('emoji.skinTone')}
            onClick={() => setTonesOpen((o) => !o)}
          >
            <Emoji emoji={TONE_SWATCH[tone] ?? '✋'} decorative />
          </button>
          {tonesOpen && (
            // biome-ignore lint/a11y: a group of buttons, not of form fields (which a fieldset is for)
            <div className={styles.toneMenu} role="group" aria-label={t('emoji.skinTone')}>
              {TONE_SWATCH.map((swatch, i) => (
                <button
                  key={swatch}
                  type="button"
                  className={styles.toneButton}
                  aria-label={toneName(i)}
                  aria-pressed={i === tone}
                  onClick={() => {
                    setTone(i);
                    setSkinTone(i);
                    setTonesOpen(false);
                  }}
                >
                  <Emoji emoji={swatch} decorative />
                </button>
              ))}
            </div>
          )}
        </div>
      </div>
      {!query.trim() && data && (
        <div className={styles.groups} role="toolbar" aria-label={t('emoji.groupsLabel')}>
          {sections.map((s) => (
            <button
              key={s.key}
              type="button"
              className={styles.groupButton}
              aria-label={s.name}
              title={s.name}
              onClick={() => jumpTo(s.key)}
            >
              <Emoji emoji={GROUP_ICON[s.key] ?? '❔'} decorative />
            </button>
          ))}
        </div>
      )}
      {/* biome-ignore lint/a11y: leaving with the mouse ends a hover preview; the keys preview what has the focus */}
      <div ref={scroller} className={styles.scroller} id={`${id}-grid`} onMouseLeave={() => setPreview(null)}>
        {!data &&
          (failed ? (
            <p className={styles.note} role="alert">
              {t('emoji.couldNotLoad')}
            </p>
          ) : (
            <p className={styles.note} role="status">
              {t('emoji.loading')}
            </p>
          ))}
        {data && flat.length === 0 && (
          <p className={styles.note} role="status">
            {t('emoji.noMatch', { query: query.trim() })}
          </p>
        )}
        {sections.map((s) =>
          s.emoji.length ? (
            <section key={s.key} className={styles.section} aria-labelledby={`${id}-${s.key}`}>
              <h3 className={styles.sectionName} id={`${id}-${s.key}`} data-section={s.key}>
                {s.name}
              </h3>
              {/* biome-ignore lint/a11y: a group of buttons, not of form fields (which a fieldset is for); the arrow keys move the focus between them */}
              <div className={styles.grid} role="group" aria-labelledby={`${id}-${s.key}`} onKeyDown={onGridKey}>
                {s.emoji.map((e) => {
                  const i = index++;
                  const shown = withTone(e, tone);
                  return (
                    <button
                      key={e.c}
                      type="button"
                      className={styles.emojiOption}
                      data-index={i}
                      data-emoji={shown}
                      tabIndex={i === activeIndex ? 0 : -1}
                      aria-label={purpose === 'react' ? t('emoji.reactWith', { name: e.n }) : e.n}
                      onClick={() => pick(e)}
                      onFocus={() => setActive(i)}
                      onMouseEnter={() => setPreview(e)}
                    >
                      <Emoji emoji={shown} decorative lazy />
                    </button>
                  );
                })}
              </div>
            </section>
          ) : null,
        )}
      </div>
      <div className={styles.preview} aria-hidden="true">
        {shown && (
          <>
            <Emoji emoji={withTone(shown, tone)} decorative />
            <span className={styles.previewText}>
              <span className={styles.previewName}>{shown.n}</span>
              {shown.s[0] && <span className={styles.previewCode}>:{shown.s[0]}:</span>}
            </span>
          </>
        )}
      </div>
    </div>
  );
}

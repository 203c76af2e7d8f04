import { forwardRef, useEffect, useId, useImperativeHandle, useLayoutEffect, useRef, useState } from 'react';
import type { Channel, SendMessageBody, UploadResult } from '../api/types';
import { loadLatest, sendTyping, uploadFile, uploadLimit } from '../state/actions';
import { type Outgoing, queueSend, useOutbox } from '../state/outbox';
import { cancelReply, onReplyStarted, type ReplyDraft, setReplyPing, startReplyAgain, useConversation } from '../state/conversation';
import { can, P, usePermissions } from '../state/permissions';
import { store, useStore } from '../state/store';
import { toast, toastError } from '../state/toasts';
import { codePoints, formatSize } from '../lib/format';
import { type DraftMention, encodeDraft } from '../lib/mentions';
import { loadDraft, saveDraft } from '../lib/drafts';
import { useAutocomplete } from './composer-suggestions';
import { CommandForm } from './command-form';
import { CommandPalette, commandOptionId, slashQuery, useCommandMatches } from './command-palette';
import { expandCommand, getInteractions, loadCommands, type RunnableCommand, runnableName } from '../state/interaction-store';
import { EmojiPicker } from './emoji-picker';
import { CloseIcon, PlusIcon, SmileIcon } from './icons';
import styles from './composer.module.css';
import { Trans } from 'react-i18next';
import { t } from '../i18n';

const MAX_CONTENT = 4000;
/** The composer's text box (there is one on a page): the channel list's skip link goes to it. */
export const COMPOSER_INPUT_ID = 'composer-input';
const MAX_FILES = 10;
const TYPING_EVERY_MS = 6000;

/**
 * Unsent text per channel survives switching channels; a copy in localStorage (with the
 * picked names and the reply being written) survives a reload (lib/drafts.ts).
 */
const drafts = new Map<string, string>();

/**
 * Mentions are written as names and sent as ids. Picking `@alice` from the autocomplete
 * puts the readable `@alice` in the textarea and remembers, for this draft, that
 * `@alice` stands for `<@123>`; sending turns each remembered name back into its syntax
 * (outside code, whole names only: see `encodeDraft`). So the textarea never shows raw
 * ids, editing around a name cannot corrupt hidden markup, and a name typed by hand
 * without picking it stays text, as it would on Discord. Kept per channel, like drafts.
 */
const draftMentions = new Map<string, DraftMention[]>();

/** After a reload: the channel's stored draft goes back in the composer (its reply: see the composer's effect). */
function restoreDraft(channelId: string): string {
  const stored = loadDraft(channelId);
  if (!stored) return '';
  if (stored.text) {
    drafts.set(channelId, stored.text);
    draftMentions.set(channelId, stored.mentions);
  }
  return stored.text;
}

interface Pending {
  key: number;
  name: string;
  size: number;
  /** `refused`: over the service's upload limit, known from the file's size; never sent. */
  status: 'uploading' | 'done' | 'refused';
  result?: UploadResult;
  /** Why it was refused (the limit, as the service states it). */
  error?: string;
}

export interface ComposerHandle {
  addFiles(files: FileList | File[]): void;
  focus(): void;
}

interface Props {
  channel: Channel;
  /** Up arrow in an empty composer edits your last message. */
  onEditLast: () => void;
  /** How the composer names the conversation (default `#name`; a DM's is `@name` or the group's). */
  label?: string;
}

let nextKey = 1;

/**
 * Toasts sit just above the composer, within its width, so they never cover the input or
 * the Send button (toasts.module.css reads these properties of <html>).
 */
function useToastAnchor(form: React.RefObject<HTMLFormElement | null>): void {
  useLayoutEffect(() => {
    const el = form.current;
    if (!el) return;
    const root = document.documentElement;
    const place = () => {
      const r = el.getBoundingClientRect();
      root.style.setProperty('--toast-bottom', `${Math.max(0, window.innerHeight - r.top) + 8}px`);
      root.style.setProperty('--toast-left', `${r.left + 8}px`);
      root.style.setProperty('--toast-right', `${Math.max(0, window.innerWidth - r.right) + 8}px`);
      root.dataset.composer = '';
    };
    place();
    const observer = new ResizeObserver(place);
    observer.observe(el);
    window.addEventListener('resize', place);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', place);
      delete root.dataset.composer;
    };
  }, [form]);
}

/**
 * Touch screens (a coarse pointer): a soft keyboard's Enter is the only way to start a new
 * line, so there Enter writes one and the Send button sends. Elsewhere Enter sends and
 * Shift+Enter starts a line.
 */
const TOUCH_QUERY = '(pointer: coarse)';

function useTouchInput(): boolean {
  const [touch, setTouch] = useState(() => !!window.matchMedia?.(TOUCH_QUERY).matches);
  useEffect(() => {
    const mq = window.matchMedia?.(TOUCH_QUERY);
    if (!mq) return;
    const on = () => setTouch(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);
  return touch;
}

/**
 * The composer, or, without SEND_MESSAGES in the channel, a note saying so (the history
 * above stays readable). Without ATTACH_FILES there is no attach button and dropped or
 * pasted files are refused with a word of explanation.
 */
export const Composer = forwardRef<ComposerHandle, Props>(function Composer(props, handle) {
  const { channel } = props;
  const bits = usePermissions(channel.serverId, channel.id);
  // Until the roles arrive nothing is withheld; the service decides in any case.
  const known = useStore((s) => !!s.roles[channel.serverId] && !!s.me);
  if (known && !can(bits, P.SEND_MESSAGES)) {
    return (
      <div className={styles.composer}>
        <p className={styles.noPermission} data-testid="no-send-permission">
          {t('composer.youDoNotHave')}
        </p>
      </div>
    );
  }
  return <ComposerForm {...props} ref={handle} canAttach={!known || can(bits, P.ATTACH_FILES)} />;
});

const ComposerForm = forwardRef<ComposerHandle, Props & { canAttach: boolean }>(function ComposerForm(
  { channel, onEditLast, canAttach, label },
  handle,
) {
  const [text, setTextState] = useState(() => drafts.get(channel.id) ?? restoreDraft(channel.id));
  const [files, setFiles] = useState<Pending[]>([]);
  const [emojiOpen, setEmojiOpen] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const form = useRef<HTMLFormElement>(null);
  useToastAnchor(form);
  const fileInput = useRef<HTMLInputElement>(null);
  const lastTyping = useRef(0);
  const reply = useConversation((s) => s.replies[channel.id]);
  const touch = useTouchInput();
  // After a reload the reply being written comes back too (before the effect below saves over it).
  // biome-ignore lint/correctness/useExhaustiveDependencies(channel.id): once, on opening the channel
  useEffect(() => {
    const stored = loadDraft(channel.id)?.reply;
    if (stored) startReplyAgain(channel.id, stored);
  }, []);
  // What is written (and the reply it answers) is kept for after a reload; sending clears both.
  useEffect(() => {
    const r = reply
      ? { messageId: reply.messageId, authorId: reply.authorId, authorName: reply.authorName, ping: reply.ping, noPing: reply.noPing }
      : undefined;
    saveDraft(channel.id, { text, mentions: draftMentions.get(channel.id) ?? [], ...(r ? { reply: r } : {}) });
  }, [channel.id, text, reply]);

  // Autocomplete of `@`, `#` and `:`, as in the edit box.
  const autocomplete = useAutocomplete({
    text,
    setText: (v) => setText(v),
    area,
    channel,
    onMention: (mention) => {
      const known = (draftMentions.get(channel.id) ?? []).filter((m) => m.display !== mention.display);
      draftMentions.set(channel.id, [...known, mention]);
    },
  });
  const caret = autocomplete.caret;

  // Commands: `/` at the start lists them; picking one turns the composer into its form.
  const [command, setCommand] = useState<RunnableCommand | null>(null);
  const [slashDismissed, setSlashDismissed] = useState(false);
  const [active, setActive] = useState(0);
  const paletteId = useId();
  const slash = caret !== null && !slashDismissed && !files.length ? slashQuery(text) : null;
  const commands = useCommandMatches(channel.id, slash);
  // An empty match closes the palette, so `/shrug` can still be sent as text; a lone `/` says why nothing is listed.
  const paletteOpen = slash !== null && (commands.items.length > 0 || slash === '');
  const paletteActive = Math.min(active, Math.max(0, commands.items.length - 1));
  // biome-ignore lint/correctness/useExhaustiveDependencies(slash): another query starts at its first command
  useEffect(() => {
    setActive(0);
  }, [slash]);
  const focusAfterCommand = useRef(false);
  useEffect(() => {
    if (!command && focusAfterCommand.current) {
      focusAfterCommand.current = false;
      area.current?.focus();
    }
  }, [command]);
  // The channel's commands are fetched with the composer, so `/` lists them at once.
  useEffect(() => {
    void loadCommands(channel.id);
  }, [channel.id]);
  const pickCommand = (c: RunnableCommand) => {
    setText('');
    setCommand(c);
  };

  const setText = (v: string) => {
    setTextState(v);
    if (v) drafts.set(channel.id, v);
    else {
      drafts.delete(channel.id);
      draftMentions.delete(channel.id);
    }
  };

  // The emoji picker's pick goes in at the caret (or replaces the selection); focus returns to the text.
  const insertEmoji = (emoji: string) => {
    const el = area.current;
    const start = el?.selectionStart ?? text.length;
    const end = el?.selectionEnd ?? text.length;
    autocomplete.placeCaret(start + emoji.length);
    setText(text.slice(0, start) + emoji + text.slice(end));
    setEmojiOpen(false);
    el?.focus();
  };

  // The Reply action puts the cursor here.
  useEffect(() => onReplyStarted(() => area.current?.focus()), []);

  // Opening a channel puts the cursor in its composer (not on touch screens, where it
  // would pop up the keyboard).
  useEffect(() => {
    if (window.matchMedia?.('(pointer: fine)').matches) area.current?.focus({ preventScroll: true });
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies(text): the textarea grows with its text
  useLayoutEffect(() => {
    const el = area.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, Math.round(window.innerHeight * 0.4))}px`;
  }, [text]);

  const addFiles = (list: FileList | File[]) => {
    const incoming = [...list];
    if (!incoming.length) return;
    if (!canAttach) {
      toast(t('composer.cannotAttachHere'), 'error');
      return;
    }
    const room = MAX_FILES - files.length;
    if (incoming.length > room) toast(t('composer.youCanAttachUp', { MAX_FILES }), 'error');
    for (const file of incoming.slice(0, Math.max(0, room))) {
      const key = nextKey++;
      setFiles((prev) => [...prev, { key, name: file.name, size: file.size, status: 'uploading' }]);
      const settle = (change: Partial<Pending>) => setFiles((prev) => prev.map((p) => (p.key === key ? { ...p, ...change } : p)));
      // A file over the limit is refused from the size the browser knows, before a byte is sent.
      uploadLimit()
        .then((max) => {
          if (max !== undefined && file.size > max) {
            settle({ status: 'refused', error: t('composer.fileTooLarge', { limit: formatSize(max) }) });
            return;
          }
          return uploadFile(file).then((result) => settle({ status: 'done', result }));
        })
        .catch((err) => {
          setFiles((prev) => prev.filter((p) => p.key !== key));
          toastError(err);
        });
    }
    area.current?.focus();
  };

  useImperativeHandle(handle, () => ({ addFiles, focus: () => area.current?.focus() }));

  const uploading = files.some((f) => f.status === 'uploading');
  const length = codePoints(text);
  const tooLong = length > MAX_CONTENT;

  const submit = async () => {
    if (uploading) {
      toast(t('composer.waitForTheUpload'));
      return;
    }
    const content = text;
    const sentFiles = files;
    const attachments = sentFiles.flatMap((f) => (f.result ? [{ url: f.result.url, filename: f.result.filename || f.name }] : []));
    if (!content.trim() && !attachments.length) return;
    if (tooLong) {
      toast(t('composer.messagesCanBeAt', { MAX_CONTENT, length }), 'error');
      return;
    }
    const mentions = draftMentions.get(channel.id) ?? [];
    const replying = reply;
    setText('');
    setFiles([]);
    cancelReply(channel.id);
    lastTyping.current = 0;
    try {
      // Trailing spaces (an inserted name or emoji leaves one) are not part of the message.
      await queueSend(
        channel.id,
        { text: content.trim(), files: attachments.length },
        content.trim() ? encodeDraft(content, mentions).trimEnd() : '',
        attachments,
        replyFields(replying),
      );
      // Sent while reading older history: back to the present, where it landed.
      if (store.getState().messages[channel.id]?.hasNewer) void loadLatest(channel.id);
    } catch (err) {
      toastError(err);
      // Give the text back so nothing typed is lost.
      setTextState((current) => (current ? current : content));
      if (!drafts.get(channel.id)) {
        drafts.set(channel.id, content);
        draftMentions.set(channel.id, mentions);
      }
      setFiles((current) => (current.length ? current : sentFiles));
      if (replying) startReplyAgain(channel.id, replying);
    }
  };

  if (command) {
    return (
      <div className={styles.composer}>
        <CommandForm
          key={`${command.id} ${runnableName(command)}`}
          channel={channel}
          command={command}
          onClose={() => {
            focusAfterCommand.current = true;
            setCommand(null);
          }}
        />
      </div>
    );
  }

  return (
    <form
      ref={form}
      className={styles.composer}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {paletteOpen && slash !== null && (
        <CommandPalette
          id={paletteId}
          query={slash}
          items={commands.items}
          loading={commands.loading}
          active={paletteActive}
          onHover={setActive}
          onPick={pickCommand}
        />
      )}
      {autocomplete.list}
      <OutboxList channelId={channel.id} />
      {reply && <ReplyBar channelId={channel.id} reply={reply} onDone={() => area.current?.focus()} />}
      {files.length > 0 && (
        <ul className={styles.pendingFiles} aria-label={t('composer.attachmentsToSend')}>
          {files.map((f) => (
            <li key={f.key} className={`${styles.pendingFile} ${f.status === 'done' ? '' : styles[f.status]}`}>
              <span className={styles.pendingName}>{f.name}</span>
              <span className={styles.pendingSize}>
                {f.status === 'uploading' ? t('composer.uploading') : formatSize(f.result?.size ?? f.size)}
              </span>
              {f.error && (
                <span className={styles.pendingError} role="alert">
                  {f.error}
                </span>
              )}
              <button
                type="button"
                className="icon-button"
                aria-label={t('composer.removeF', { f: f.name })}
                onClick={() => setFiles((prev) => prev.filter((p) => p.key !== f.key))}
              >
                <CloseIcon />
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className={reply ? `${styles.composerRow} ${styles.replying}` : styles.composerRow}>
        {canAttach && (
          <>
            <button
              type="button"
              className={`icon-button ${styles.composerAttach}`}
              aria-label={t('composer.attachAFile')}
              title={t('composer.attachAFile')}
              onClick={() => fileInput.current?.click()}
            >
              <PlusIcon size={20} />
            </button>
            <input
              ref={fileInput}
              type="file"
              multiple
              hidden
              aria-label={t('composer.chooseFilesToAttach')}
              data-testid="file-input"
              onChange={(e) => {
                if (e.currentTarget.files) addFiles(e.currentTarget.files);
                e.currentTarget.value = '';
              }}
            />
          </>
        )}
        <textarea
          ref={area}
          id={COMPOSER_INPUT_ID}
          className={styles.composerInput}
          rows={1}
          value={text}
          placeholder={t('composer.messageTo', { to: label ?? `#${channel.name}` })}
          aria-label={t('composer.messageTo', { to: label ?? `#${channel.name}` })}
          aria-describedby="composer-help"
          // The autocomplete, as ARIA 1.2 allows it on a text box: the textarea keeps its
          // multi-line textbox role (a chat input is announced as one, and is always one),
          // names its listbox popup, and points at the active suggestion while it is open.
          // (role="combobox" would drop aria-multiline and announce every message as a combo box.)
          {...autocomplete.inputProps}
          {...(!autocomplete.open && paletteOpen
            ? {
                'aria-controls': paletteId,
                'aria-activedescendant': commands.items.length ? commandOptionId(paletteId, paletteActive) : undefined,
              }
            : {})}
          onChange={(e) => {
            // `/name ` (or `/name group sub `) typed out in full (one command of that name): straight to its form.
            const typed = /^\/(\S+(?: \S+){0,2}) $/u.exec(e.target.value)?.[1]?.toLowerCase();
            const same = typed
              ? (getInteractions().commands[channel.id]?.items ?? []).flatMap(expandCommand).filter((c) => runnableName(c) === typed)
              : [];
            if (same.length === 1 && same[0]) {
              pickCommand(same[0]);
              return;
            }
            setText(e.target.value);
            autocomplete.changed(e.target.value, e.target.selectionStart);
            setSlashDismissed(false);
            const now = Date.now();
            if (e.target.value.trim() && now - lastTyping.current > TYPING_EVERY_MS) {
              lastTyping.current = now;
              sendTyping(channel.id);
            }
          }}
          onPaste={(e) => {
            if (e.clipboardData.files.length) {
              e.preventDefault();
              addFiles(e.clipboardData.files);
            }
          }}
          onKeyDown={(e) => {
            if (e.nativeEvent.isComposing) return;
            if (paletteOpen) {
              const n = commands.items.length;
              if (n && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
                e.preventDefault();
                setActive((paletteActive + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
                return;
              }
              if ((e.key === 'Enter' && !e.shiftKey) || (e.key === 'Tab' && !e.shiftKey)) {
                const c = commands.items[paletteActive];
                if (c) {
                  e.preventDefault();
                  pickCommand(c);
                  return;
                }
              }
              if (e.key === 'Escape') {
                e.preventDefault();
                setSlashDismissed(true);
                return;
              }
            }
            if (autocomplete.onKeyDown(e)) return;
            if (e.key === 'Escape' && reply) {
              e.preventDefault();
              cancelReply(channel.id);
              return;
            }
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing && !touch) {
              e.preventDefault();
              void submit();
            } else if (e.key === 'ArrowUp' && !e.altKey && !text && !files.length) {
              e.preventDefault();
              onEditLast();
            }
          }}
        />
        <div className={styles.composerEmoji}>
          <button
            type="button"
            className="icon-button"
            aria-label={t('composer.insertEmoji')}
            title={t('composer.insertEmoji')}
            aria-expanded={emojiOpen}
            onClick={() => setEmojiOpen((o) => !o)}
          >
            <SmileIcon />
          </button>
          {emojiOpen && (
            <EmojiPicker
              purpose="insert"
              onPick={insertEmoji}
              onClose={() => {
                setEmojiOpen(false);
                area.current?.focus();
              }}
            />
          )}
        </div>
        <button
          type="submit"
          className={`button primary ${styles.composerSend}`}
          disabled={uploading || tooLong || (!text.trim() && !files.length)}
        >
          {t('composer.send')}
        </button>
      </div>
      <div id="composer-help" className={styles.composerHelp}>
        <span>
          {touch ? (
            <Trans i18nKey="composer.help.touch" components={{ enter: <kbd /> }} />
          ) : (
            <Trans i18nKey="composer.help.keyboard" components={{ enter: <kbd />, shift: <kbd /> }} />
          )}{' '}
          <Trans i18nKey="composer.help.triggers" components={{ k: <kbd /> }} />
        </span>
        {length > MAX_CONTENT - 500 && (
          <span className={tooLong ? `${styles.charCount} ${styles.over}` : styles.charCount} aria-live="polite">
            {length}/{MAX_CONTENT}
          </span>
        )}
      </div>
    </form>
  );
});

/** What a reply adds to the message sent: its target, and whether the author is pinged. */
function replyFields(reply: ReplyDraft | undefined): Pick<SendMessageBody, 'messageReference' | 'allowedMentions'> {
  if (!reply) return {};
  const fields: Pick<SendMessageBody, 'messageReference' | 'allowedMentions'> = { messageReference: { messageId: reply.messageId } };
  // Without allowedMentions everything pings, the author included; with it, only what
  // `parse` lists: every kind written in the text still pings, the author does not.
  if (!reply.ping && !reply.noPing) fields.allowedMentions = { parse: ['users', 'roles', 'everyone'], repliedUser: false };
  return fields;
}

/** "Replying to <name>" above the input, with the ping toggle and a way out (Esc works too). */
function ReplyBar({ channelId, reply, onDone }: { channelId: string; reply: ReplyDraft; onDone: () => void }) {
  return (
    <div className={styles.replyBar} role="status" aria-live="polite">
      <span className={styles.replyText}>
        <Trans i18nKey="composer.replyingTo" values={{ name: reply.authorName }} components={{ b: <strong /> }} />
      </span>
      {!reply.noPing && (
        <button
          type="button"
          className={reply.ping ? `${styles.pingToggle} ${styles.pingOn}` : styles.pingToggle}
          aria-pressed={reply.ping}
          aria-label={t('composer.mentionAuthorname', { authorName: reply.authorName })}
          title={
            reply.ping
              ? t('composer.authornameWillBeNotified', { authorName: reply.authorName })
              : t('composer.authornameWillNotBe', { authorName: reply.authorName })
          }
          onClick={() => {
            setReplyPing(channelId, !reply.ping);
            onDone();
          }}
        >
          <span aria-hidden="true">@</span> {reply.ping ? t('composer.on') : t('composer.off')}
        </button>
      )}
      <button
        type="button"
        className={`icon-button ${styles.replyCancel}`}
        aria-label={t('composer.cancelReply')}
        title={t('composer.cancelReplyEsc')}
        onClick={() => {
          cancelReply(channelId);
          onDone();
        }}
      >
        <CloseIcon />
      </button>
    </div>
  );
}

/**
 * Messages sent from here that the service does not have yet: greyed, with a spinner, and
 * the reason for a wait with its countdown (a rate limit, a lost connection).
 */
function OutboxList({ channelId }: { channelId: string }) {
  const outgoing = useOutbox(channelId);
  if (!outgoing.length) return null;
  return (
    <ul className={styles.outbox} aria-label={t('composer.messagesBeingSent')} data-testid="outbox">
      {outgoing.map((o) => (
        <OutboxItem key={o.id} item={o} />
      ))}
    </ul>
  );
}

function OutboxItem({ item }: { item: Outgoing }) {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!item.retryAt) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [item.retryAt]);
  const seconds = item.retryAt ? Math.ceil((item.retryAt - now) / 1000) : 0;
  const note =
    seconds > 0 && item.state === 'rate-limited'
      ? t('composer.outbox.slowDown', { seconds })
      : seconds > 0 && item.state === 'offline'
        ? t('composer.outbox.offline', { seconds })
        : t('composer.outbox.sending');
  const text = item.text || t('composer.outbox.files', { count: item.files });
  return (
    <li className={styles.outgoing} data-state={seconds > 0 ? item.state : 'sending'}>
      <span className={styles.outSpinner} aria-hidden="true" />
      <span className={styles.outText}>{text}</span>
      <span className={styles.outNote} role="status">
        {note}
      </span>
    </li>
  );
}

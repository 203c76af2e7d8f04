import { forwardRef, useEffect, useImperativeHandle, useLayoutEffect, useRef, useState } from 'react';
import type { Channel, UploadResult } from '../api/types';
import { sendMessage, sendTyping, uploadFile } from '../state/actions';
import { can, P, usePermissions } from '../state/permissions';
import { useStore } from '../state/store';
import { toast, toastError } from '../state/toasts';
import { codePoints, formatSize } from '../lib/format';
import { CloseIcon, PlusIcon } from './icons';
import styles from './composer.module.css';

const MAX_CONTENT = 4000;
const MAX_FILES = 10;
const TYPING_EVERY_MS = 6000;

/** Unsent text per channel survives switching channels. */
const drafts = new Map<string, string>();

interface Pending {
  key: number;
  name: string;
  size: number;
  status: 'uploading' | 'done';
  result?: UploadResult;
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
          You do not have permission to send messages in this channel.
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
  const [text, setTextState] = useState(() => drafts.get(channel.id) ?? '');
  const [files, setFiles] = useState<Pending[]>([]);
  const area = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const lastTyping = useRef(0);

  const setText = (v: string) => {
    setTextState(v);
    if (v) drafts.set(channel.id, v);
    else drafts.delete(channel.id);
  };

  // Opening a channel puts the cursor in its composer (not on touch screens, where it
  // would pop up the keyboard).
  useEffect(() => {
    if (window.matchMedia?.('(pointer: fine)').matches) area.current?.focus({ preventScroll: true });
  }, []);

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
      toast('You do not have permission to attach files in this channel.', 'error');
      return;
    }
    const room = MAX_FILES - files.length;
    if (incoming.length > room) toast(`You can attach up to ${MAX_FILES} files to one message.`, 'error');
    for (const file of incoming.slice(0, Math.max(0, room))) {
      const key = nextKey++;
      setFiles((prev) => [...prev, { key, name: file.name, size: file.size, status: 'uploading' }]);
      uploadFile(file)
        .then((result) => setFiles((prev) => prev.map((p) => (p.key === key ? { ...p, status: 'done', result } : p))))
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
      toast('Wait for the upload to finish, then send.');
      return;
    }
    const content = text;
    const sentFiles = files;
    const attachments = sentFiles.flatMap((f) => (f.result ? [{ url: f.result.url, filename: f.result.filename || f.name }] : []));
    if (!content.trim() && !attachments.length) return;
    if (tooLong) {
      toast(`Messages can be at most ${MAX_CONTENT} characters (this one has ${length}).`, 'error');
      return;
    }
    setText('');
    setFiles([]);
    lastTyping.current = 0;
    try {
      await sendMessage(channel.id, content.trim() ? content : '', attachments);
    } catch (err) {
      toastError(err);
      // Give the text back so nothing typed is lost.
      setTextState((current) => (current ? current : content));
      if (!drafts.get(channel.id)) drafts.set(channel.id, content);
      setFiles((current) => (current.length ? current : sentFiles));
    }
  };

  return (
    <form
      className={styles.composer}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {files.length > 0 && (
        <ul className={styles.pendingFiles} aria-label="Attachments to send">
          {files.map((f) => (
            <li key={f.key} className={f.status === 'uploading' ? `${styles.pendingFile} ${styles.uploading}` : styles.pendingFile}>
              <span className={styles.pendingName}>{f.name}</span>
              <span className={styles.pendingSize}>{f.status === 'uploading' ? 'Uploading…' : formatSize(f.result?.size ?? f.size)}</span>
              <button
                type="button"
                className="icon-button"
                aria-label={`Remove ${f.name}`}
                onClick={() => setFiles((prev) => prev.filter((p) => p.key !== f.key))}
              >
                <CloseIcon />
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className={styles.composerRow}>
        {canAttach && (
          <>
            <button
              type="button"
              className={`icon-button ${styles.composerAttach}`}
              aria-label="Attach a file"
              title="Attach a file"
              onClick={() => fileInput.current?.click()}
            >
              <PlusIcon size={20} />
            </button>
            <input
              ref={fileInput}
              type="file"
              multiple
              hidden
              aria-label="Choose files to attach"
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
          className={styles.composerInput}
          rows={1}
          value={text}
          placeholder={`Message ${label ?? `#${channel.name}`}`}
          aria-label={`Message ${label ?? `#${channel.name}`}`}
          aria-describedby="composer-help"
          onChange={(e) => {
            setText(e.target.value);
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
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void submit();
            } else if (e.key === 'ArrowUp' && !text && !files.length) {
              e.preventDefault();
              onEditLast();
            }
          }}
        />
        <button
          type="submit"
          className={`button primary ${styles.composerSend}`}
          disabled={uploading || tooLong || (!text.trim() && !files.length)}
        >
          Send
        </button>
      </div>
      <div id="composer-help" className={styles.composerHelp}>
        <span>
          <kbd>Enter</kbd> to send, <kbd>Shift</kbd>+<kbd>Enter</kbd> for a new line. Markdown works.
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

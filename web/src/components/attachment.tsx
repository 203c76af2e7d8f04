import { useEffect, useState } from 'react';
import type { Attachment } from '../api/types';
import { safeImageSrc } from '../markdown/parse';
import { CodeBlock } from '../markdown/code-block';
import { formatSize } from '../lib/format';
import { drawsPdfPages } from '../state/actions';
import { t } from '../i18n';
import { FileIcon } from './icons';
import { LIGHTBOX_ATTR, openInLightbox } from './lightbox';
import styles from './attachment.module.css';

const IMAGE_EXT = /\.(png|jpe?g|gif|webp|avif|bmp)$/i;
const AUDIO_EXT = /\.(mp3|wav|ogg|oga|opus|flac|m4a|aac)$/i;
const VIDEO_EXT = /\.(mp4|m4v|webm|ogv|mov)$/i;

/** File extensions shown as code, with the highlighter's language (web/src/markdown/highlight.ts); `''` stays plain. */
const TEXT_LANG: Record<string, string> = {
  txt: '',
  log: '',
  csv: '',
  tsv: '',
  ini: '',
  toml: '',
  conf: '',
  env: '',
  md: 'markdown',
  markdown: 'markdown',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  json: 'json',
  py: 'python',
  rb: 'ruby',
  rs: 'rust',
  go: 'go',
  java: 'java',
  kt: 'kotlin',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  css: 'css',
  diff: 'diff',
  patch: 'diff',
  php: 'php',
  sql: 'sql',
  xml: 'xml',
  html: 'xml',
  svg: 'xml',
  yaml: 'yaml',
  yml: 'yaml',
  sh: 'bash',
  bash: 'bash',
};

/** How much of a text file the preview fetches (a byte range), and how many of its lines it shows. */
const TEXT_PREVIEW_BYTES = 16 * 1024;
const TEXT_PREVIEW_LINES = 12;

type Kind = 'image' | 'audio' | 'video' | 'text' | 'pdf' | 'file';

function extension(name: string): string {
  const m = /\.([a-z0-9]+)$/i.exec(name);
  return m ? m[1]!.toLowerCase() : '';
}

/** What the client can show of an attachment, by its content type, else by its name. */
function kindOf(a: Attachment, name: string): Kind {
  const type = (a.contentType ?? '').toLowerCase();
  if (/^image\/(png|jpeg|gif|webp|avif|bmp|svg\+xml)$/.test(type) || (!type && IMAGE_EXT.test(name))) return 'image';
  if (type.startsWith('audio/') || AUDIO_EXT.test(name)) return 'audio';
  if (type.startsWith('video/') || VIDEO_EXT.test(name)) return 'video';
  if (extension(name) in TEXT_LANG || type.startsWith('text/') || type === 'application/json') return 'text';
  if (type === 'application/pdf' || extension(name) === 'pdf') return 'pdf';
  return 'file';
}

/** The download card: the file's name and size, a link that saves it. */
function FileCard({ href, name, size }: { href: string; name: string; size: string }) {
  return (
    <a className={styles.attachmentFile} href={href} target="_blank" rel="noopener noreferrer" download={name}>
      <span className={styles.fileIcon}>
        <FileIcon />
      </span>
      <span className={styles.attachmentMeta}>
        <span className={styles.attachmentName}>{name}</span>
        {size && <span className={styles.attachmentSize}>{size}</span>}
      </span>
    </a>
  );
}

/**
 * The first lines of a text file, highlighted as a code block would be. Only its first
 * bytes are fetched (a `Range` request, from the same URL the download uses).
 */
function TextPreview({ href, lang, size }: { href: string; lang: string; size: number | undefined }) {
  const [state, setState] = useState<{ text: string; more: boolean } | 'failed' | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    fetch(href, { headers: { Range: `bytes=0-${TEXT_PREVIEW_BYTES - 1}` }, signal: abort.signal })
      .then(async (res) => {
        if (!res.ok) throw new Error(String(res.status));
        // A server that ignored the range sends it all: read no more than the preview needs.
        const reader = res.body?.getReader();
        const chunks: Uint8Array[] = [];
        let got = 0;
        while (reader && got < TEXT_PREVIEW_BYTES) {
          const { done, value } = await reader.read();
          if (done) break;
          chunks.push(value);
          got += value.length;
        }
        void reader?.cancel().catch(() => undefined);
        const bytes = new Uint8Array(got);
        let at = 0;
        for (const c of chunks) {
          bytes.set(c, at);
          at += c.length;
        }
        const text = new TextDecoder().decode(bytes.subarray(0, TEXT_PREVIEW_BYTES));
        const lines = text.split(/\r?\n/);
        const cut = lines.length > TEXT_PREVIEW_LINES || (size !== undefined && size > TEXT_PREVIEW_BYTES);
        const shown = lines.slice(0, TEXT_PREVIEW_LINES).join('\n');
        setState({ text: cut ? shown : shown.replace(/\n$/, ''), more: cut });
      })
      .catch(() => {
        if (!abort.signal.aborted) setState('failed');
      });
    return () => abort.abort();
  }, [href, size]);
  if (state === 'failed') return null;
  if (!state) return <div className={styles.textLoading} aria-hidden="true" />;
  return (
    <div className={styles.textPreview} data-testid="text-preview">
      <CodeBlock value={state.text} lang={lang || undefined} />
      {state.more && <span className={styles.textMore}>{t('attachment.moreInFile')}</span>}
    </div>
  );
}

/**
 * An attachment: images inline (a click opens them in the lightbox); audio and video
 * played in place; text and code as their first lines; anything else as a download card.
 * Every preview uses the attachment's own URL, as the download does.
 */
export function AttachmentView({ attachment }: { attachment: Attachment }) {
  const href = safeImageSrc(attachment.url);
  const name = typeof attachment.filename === 'string' && attachment.filename ? attachment.filename : 'file';
  const size = formatSize(attachment.size);
  if (!href) {
    return <span className={`${styles.attachmentFile} unavailable`}>{name}</span>;
  }
  const kind = kindOf(attachment, name);
  if (kind === 'image') {
    return (
      <a
        className={styles.attachmentImageLink}
        href={href}
        target="_blank"
        rel="noopener noreferrer"
        title={size ? `${name} (${size})` : name}
        {...{ [LIGHTBOX_ATTR]: name }}
        onClick={openInLightbox}
      >
        <img className={styles.attachmentImage} src={href} alt={name} loading="lazy" />
      </a>
    );
  }
  if (kind === 'video') {
    return (
      <figure className={styles.mediaPreview}>
        {/* biome-ignore lint/a11y/useMediaCaption: people's own uploads come without captions */}
        <video className={styles.video} src={href} controls preload="metadata" aria-label={name} />
        <figcaption>
          <FileCard href={href} name={name} size={size} />
        </figcaption>
      </figure>
    );
  }
  if (kind === 'audio') {
    return (
      <figure className={`${styles.mediaPreview} ${styles.audioBox}`}>
        <figcaption>
          <FileCard href={href} name={name} size={size} />
        </figcaption>
        {/* biome-ignore lint/a11y/useMediaCaption: people's own uploads come without captions */}
        <audio className={styles.audio} src={href} controls preload="metadata" aria-label={name} />
      </figure>
    );
  }
  if (kind === 'text') {
    return (
      <div className={styles.textAttachment}>
        <FileCard href={href} name={name} size={size} />
        <TextPreview href={href} lang={TEXT_LANG[extension(name)] ?? ''} size={attachment.size} />
      </div>
    );
  }
  if (kind === 'pdf') {
    return (
      <figure className={styles.mediaPreview}>
        <PdfPage href={href} name={name} />
        <figcaption>
          <FileCard href={href} name={name} size={size} />
        </figcaption>
      </figure>
    );
  }
  return <FileCard href={href} name={name} size={size} />;
}

/**
 * A PDF's first page, drawn by the service (`<url>/page-1.png`, docs/api.md#uploads) when it
 * draws pages at all; a click opens the PDF in a new tab. Nothing is shown while the page
 * is not known to exist, or if it fails to load: the card below stands alone then.
 */
function PdfPage({ href, name }: { href: string; name: string }) {
  const [drawn, setDrawn] = useState<boolean | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    void drawsPdfPages().then((yes) => live && setDrawn(yes));
    return () => {
      live = false;
    };
  }, []);
  if (!drawn || failed) return null;
  return (
    <a className={styles.pdfPage} href={href} target="_blank" rel="noopener noreferrer" title={name}>
      {/* biome-ignore lint/a11y: onError is no interaction: it drops a page that could not be drawn */}
      <img src={`${href}/page-1.png`} alt={t('attachment.firstPageOf', { name })} loading="lazy" onError={() => setFailed(true)} />
    </a>
  );
}

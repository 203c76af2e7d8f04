import type { Attachment } from '../api/types';
import { safeImageSrc } from '../markdown/parse';
import { formatSize } from '../lib/format';
import { FileIcon } from './icons';
import { LIGHTBOX_ATTR, openInLightbox } from './lightbox';
import styles from './attachment.module.css';

const IMAGE_EXT = /\.(png|jpe?g|gif|webp|avif|bmp)$/i;

function isImage(a: Attachment): boolean {
  if (a.contentType) return /^image\/(png|jpeg|gif|webp|avif|bmp|svg\+xml)$/i.test(a.contentType);
  return IMAGE_EXT.test(a.filename ?? '');
}

/** Images inline (a click opens them in the lightbox), anything else as a download link with its name and size. */
export function AttachmentView({ attachment }: { attachment: Attachment }) {
  const href = safeImageSrc(attachment.url);
  const name = typeof attachment.filename === 'string' && attachment.filename ? attachment.filename : 'file';
  const size = formatSize(attachment.size);
  if (!href) {
    return <span className={`${styles.attachmentFile} unavailable`}>{name}</span>;
  }
  if (isImage(attachment)) {
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

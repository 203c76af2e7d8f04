import type { Attachment } from '../api/types';
import { safeImageSrc } from '../markdown/parse';
import { formatSize } from '../lib/format';
import { FileIcon } from './icons';

const IMAGE_EXT = /\.(png|jpe?g|gif|webp|avif|bmp)$/i;

function isImage(a: Attachment): boolean {
  if (a.contentType) return /^image\/(png|jpeg|gif|webp|avif|bmp|svg\+xml)$/i.test(a.contentType);
  return IMAGE_EXT.test(a.filename ?? '');
}

/** Images inline, anything else as a download link with its name and size. */
export function AttachmentView({ attachment }: { attachment: Attachment }) {
  const href = safeImageSrc(attachment.url);
  const name = typeof attachment.filename === 'string' && attachment.filename ? attachment.filename : 'file';
  const size = formatSize(attachment.size);
  if (!href) {
    return <span className="attachment-file unavailable">{name}</span>;
  }
  if (isImage(attachment)) {
    return (
      <a className="attachment-image-link" href={href} target="_blank" rel="noopener noreferrer" title={size ? `${name} (${size})` : name}>
        <img className="attachment-image" src={href} alt={name} loading="lazy" />
      </a>
    );
  }
  return (
    <a className="attachment-file" href={href} target="_blank" rel="noopener noreferrer" download={name}>
      <span className="file-icon">
        <FileIcon />
      </span>
      <span className="attachment-meta">
        <span className="attachment-name">{name}</span>
        {size && <span className="attachment-size">{size}</span>}
      </span>
    </a>
  );
}

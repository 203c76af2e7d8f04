/** Discord-style embed cards, rendered with the same safety rules as messages. */
import type { Embed as EmbedData } from '../api/types';
import { InlineMarkdown, Markdown } from '../markdown/render';
import { safeHref, safeImageSrc } from '../markdown/parse';
import { LIGHTBOX_ATTR, openInLightbox } from './lightbox';
import { colorToCss, formatMessageTime } from '../lib/format';
import styles from './embed.module.css';
import { t } from '../i18n';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function Embed({ embed }: { embed: EmbedData }) {
  const color = colorToCss(embed.color);
  const title = str(embed.title);
  const titleHref = safeHref(embed.url);
  const description = str(embed.description);
  const authorName = str(embed.author?.name);
  const authorHref = safeHref(embed.author?.url);
  const authorIcon = safeImageSrc(embed.author?.icon_url);
  const footerText = str(embed.footer?.text);
  const footerIcon = safeImageSrc(embed.footer?.icon_url);
  const image = safeImageSrc(embed.image?.url);
  const thumbnail = safeImageSrc(embed.thumbnail?.url);
  const fields = Array.isArray(embed.fields) ? embed.fields.filter((f) => f && (str(f.name) || str(f.value))) : [];
  const timestamp = str(embed.timestamp);

  return (
    <article
      className={styles.embed}
      style={color ? { borderInlineStartColor: color } : undefined}
      aria-label={title ? t('embed.embedTitle', { title }) : t('embed.embed')}
    >
      <div className={thumbnail ? `${styles.embedGrid} ${styles.hasThumb}` : styles.embedGrid}>
        <div className="embed-main">
          {authorName && (
            <div className={styles.embedAuthor}>
              {authorIcon && <img src={authorIcon} alt="" className={styles.embedAuthorIcon} loading="lazy" referrerPolicy="no-referrer" />}
              {authorHref ? (
                <a href={authorHref} target="_blank" rel="noopener noreferrer nofollow ugc">
                  {authorName}
                </a>
              ) : (
                <span>{authorName}</span>
              )}
            </div>
          )}
          {title && (
            <div className={styles.embedTitle}>
              {titleHref ? (
                <a href={titleHref} target="_blank" rel="noopener noreferrer nofollow ugc">
                  {title}
                </a>
              ) : (
                <span>{title}</span>
              )}
            </div>
          )}
          {description && <Markdown source={description} className={styles.embedDescription} />}
          {fields.length > 0 && (
            <div className={styles.embedFields}>
              {fields.map((f, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: an embed's fields never move; their place is their identity
                <div key={i} className={f.inline ? `${styles.embedField} ${styles.inline}` : styles.embedField}>
                  <div className={styles.embedFieldName}>
                    <InlineMarkdown source={str(f.name)} />
                  </div>
                  <Markdown source={str(f.value)} className={styles.embedFieldValue} />
                </div>
              ))}
            </div>
          )}
        </div>
        {thumbnail && <img className={styles.embedThumbnail} src={thumbnail} alt="" loading="lazy" referrerPolicy="no-referrer" />}
      </div>
      {image && (
        <a
          href={image}
          target="_blank"
          rel="noopener noreferrer nofollow"
          className={styles.embedImageLink}
          {...{ [LIGHTBOX_ATTR]: '' }}
          onClick={openInLightbox}
        >
          <img
            className={styles.embedImage}
            src={image}
            alt={title ? t('embed.imageForTitle', { title }) : t('embed.embeddedImage')}
            loading="lazy"
            referrerPolicy="no-referrer"
          />
        </a>
      )}
      {(footerText || timestamp) && (
        <div className={styles.embedFooter}>
          {footerIcon && <img src={footerIcon} alt="" className={styles.embedFooterIcon} loading="lazy" referrerPolicy="no-referrer" />}
          {footerText && <span>{footerText}</span>}
          {footerText && timestamp && <span aria-hidden="true"> • </span>}
          {timestamp && <time dateTime={timestamp}>{formatMessageTime(timestamp)}</time>}
        </div>
      )}
    </article>
  );
}

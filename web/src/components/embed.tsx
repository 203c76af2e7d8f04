/** Discord-style embed cards, rendered with the same safety rules as messages. */
import type { Embed as EmbedData } from '../api/types';
import { InlineMarkdown, Markdown } from '../markdown/render';
import { safeHref, safeImageSrc } from '../markdown/parse';
import { colorToCss, formatMessageTime } from '../lib/format';

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
    <article className="embed" style={color ? { borderInlineStartColor: color } : undefined} aria-label={title ? `Embed: ${title}` : 'Embed'}>
      <div className={`embed-grid${thumbnail ? ' has-thumb' : ''}`}>
        <div className="embed-main">
          {authorName && (
            <div className="embed-author">
              {authorIcon && <img src={authorIcon} alt="" className="embed-author-icon" loading="lazy" referrerPolicy="no-referrer" />}
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
            <div className="embed-title">
              {titleHref ? (
                <a href={titleHref} target="_blank" rel="noopener noreferrer nofollow ugc">
                  {title}
                </a>
              ) : (
                <span>{title}</span>
              )}
            </div>
          )}
          {description && <Markdown source={description} className="embed-description" />}
          {fields.length > 0 && (
            <div className="embed-fields">
              {fields.map((f, i) => (
                <div key={i} className={`embed-field${f.inline ? ' inline' : ''}`}>
                  <div className="embed-field-name">
                    <InlineMarkdown source={str(f.name)} />
                  </div>
                  <Markdown source={str(f.value)} className="embed-field-value" />
                </div>
              ))}
            </div>
          )}
        </div>
        {thumbnail && <img className="embed-thumbnail" src={thumbnail} alt="" loading="lazy" referrerPolicy="no-referrer" />}
      </div>
      {image && (
        <a href={image} target="_blank" rel="noopener noreferrer nofollow" className="embed-image-link">
          <img className="embed-image" src={image} alt={title ? `Image for ${title}` : 'Embedded image'} loading="lazy" referrerPolicy="no-referrer" />
        </a>
      )}
      {(footerText || timestamp) && (
        <div className="embed-footer">
          {footerIcon && <img src={footerIcon} alt="" className="embed-footer-icon" loading="lazy" referrerPolicy="no-referrer" />}
          {footerText && <span>{footerText}</span>}
          {footerText && timestamp && <span aria-hidden="true"> • </span>}
          {timestamp && <time dateTime={timestamp}>{formatMessageTime(timestamp)}</time>}
        </div>
      )}
    </article>
  );
}

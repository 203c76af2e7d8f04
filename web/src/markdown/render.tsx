/**
 * Renders the parsed Markdown tree as React elements. Every piece of user text ends up
 * as a text child (React escapes it), links carry only hrefs that `safeHref` accepted,
 * and nothing here uses dangerouslySetInnerHTML.
 */
import { Fragment, memo, useState, type ReactNode } from 'react';
import { EmojiText } from '../components/emoji';
import { MentionChip, MessageLinkChip } from '../components/mention-chip';
import { messageLinkTarget } from '../router';
import { t } from '../i18n';
import { CodeBlock } from './code-block';
import { splitMentions } from '../lib/mentions';
import { isEmojiOnly, parseInline, parseMarkdown, type Block, type Inline } from './parse';

function renderInline(nodes: Inline[], keyPrefix = ''): ReactNode[] {
  return nodes.map((n, idx) => {
    const key = `${keyPrefix}${idx}`;
    switch (n.type) {
      case 'text':
        return renderText(n.value, key);
      case 'br':
        return <br key={key} />;
      case 'code':
        return (
          <code key={key} className="md-code">
            {n.value}
          </code>
        );
      case 'strong':
        return <strong key={key}>{renderInline(n.children, `${key}.`)}</strong>;
      case 'em':
        return <em key={key}>{renderInline(n.children, `${key}.`)}</em>;
      case 'u':
        return <u key={key}>{renderInline(n.children, `${key}.`)}</u>;
      case 'del':
        return <del key={key}>{renderInline(n.children, `${key}.`)}</del>;
      case 'spoiler':
        return <Spoiler key={key}>{renderInline(n.children, `${key}.`)}</Spoiler>;
      case 'link': {
        // A bare link to a message of this instance: its channel as a chip, opened in the app.
        const target = isBare(n) ? messageLinkTarget(n.href) : null;
        if (target) return <MessageLinkChip key={key} {...target} />;
        return (
          <a key={key} href={n.href} target="_blank" rel="noopener noreferrer nofollow ugc" title={n.href}>
            {renderInline(n.children, `${key}.`)}
          </a>
        );
      }
      default:
        return null;
    }
  });
}

/** A link written as its address (not `[text](url)`): its one text child is the address itself. */
function isBare(n: Extract<Inline, { type: 'link' }>): boolean {
  const only = n.children.length === 1 ? n.children[0] : undefined;
  return only?.type === 'text' && only.value === n.href;
}

/**
 * Text, with mentions (`<@id>`, `<@&id>`, `<#id>`, `@everyone`, `@here`) as chips and
 * emoji as the bundled set's images. Code spans and blocks are separate nodes, so
 * mentions and emoji in code stay text, as the service reads them.
 */
function renderText(value: string, key: string): ReactNode {
  const parts = splitMentions(value);
  return (
    <Fragment key={key}>
      {/* biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text: their place is their identity */}
      {parts.map((p, j) => (typeof p === 'string' ? <EmojiText key={j} text={p} /> : <MentionChip key={j} token={p} />))}
    </Fragment>
  );
}

function Spoiler({ children }: { children: ReactNode }) {
  const [shown, setShown] = useState(false);
  if (shown) return <span className="md-spoiler md-spoiler-shown">{children}</span>;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a spoiler wraps with the text around it, which a <button> does not
    <span
      className="md-spoiler"
      role="button"
      tabIndex={0}
      aria-label={t('markdown.spoiler')}
      onClick={() => setShown(true)}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          setShown(true);
        }
      }}
    >
      <span aria-hidden="true">{children}</span>
    </span>
  );
}

function renderBlocks(blocks: Block[], keyPrefix = ''): ReactNode[] {
  return blocks.map((b, idx) => {
    const key = `${keyPrefix}${idx}`;
    switch (b.type) {
      case 'paragraph':
        return (
          <p key={key} className="md-p">
            {renderInline(b.children, `${key}.`)}
          </p>
        );
      case 'heading': {
        const Tag = b.level === 1 ? 'h3' : b.level === 2 ? 'h4' : 'h5';
        return (
          <Tag key={key} className={`md-h md-h${b.level}`}>
            {renderInline(b.children, `${key}.`)}
          </Tag>
        );
      }
      case 'codeblock':
        return <CodeBlock key={key} value={b.value} lang={b.lang || undefined} />;
      case 'quote':
        return (
          <blockquote key={key} className="md-quote">
            {renderBlocks(b.children, `${key}.`)}
          </blockquote>
        );
      case 'list': {
        // biome-ignore lint/suspicious/noArrayIndexKey: a list's items have no ids; their place is their identity
        const items = b.items.map((item, j) => <li key={j}>{renderBlocks(item, `${key}.${j}.`)}</li>);
        return b.ordered ? (
          <ol key={key} className="md-list" start={b.start !== 1 ? b.start : undefined}>
            {items}
          </ol>
        ) : (
          <ul key={key} className="md-list">
            {items}
          </ul>
        );
      }
      case 'hr':
        return <hr key={key} className="md-hr" />;
      default:
        return null;
    }
  });
}

interface MarkdownProps {
  source: string;
  className?: string;
  /** Appended to the last paragraph (e.g. the "(edited)" marker), or after the blocks. */
  trailing?: ReactNode;
}

/** Block Markdown (messages, embed descriptions and field values). */
export const Markdown = memo(function Markdown({ source, className, trailing }: MarkdownProps) {
  const big = isEmojiOnly(source);
  const blocks = parseMarkdown(source);
  const last = blocks[blocks.length - 1];
  let body: ReactNode[];
  if (trailing && last?.type === 'paragraph') {
    body = renderBlocks(blocks.slice(0, -1));
    body.push(
      <p key="last" className="md-p">
        {renderInline(last.children, 'last.')}
        {trailing}
      </p>,
    );
  } else {
    body = renderBlocks(blocks);
    if (trailing) body.push(<span key="trailing">{trailing}</span>);
  }
  return <div className={`md${big ? ' md-jumbo' : ''}${className ? ` ${className}` : ''}`}>{body}</div>;
});

/** Inline-only Markdown (embed titles, field names). */
export const InlineMarkdown = memo(function InlineMarkdown({ source }: { source: string }) {
  return <>{renderInline(parseInline(source))}</>;
});

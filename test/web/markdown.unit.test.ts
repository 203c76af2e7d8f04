/** The web client's Markdown parser: what becomes markup, and what must stay text. */
import { describe, expect, it } from 'vitest';
import { isEmojiOnly, parseInline, parseMarkdown, safeHref, type Inline } from '../../web/src/markdown/parse.js';

/** Flattens inline nodes to a compact string: **x** -> <strong>x</strong>, etc. */
function show(nodes: Inline[]): string {
  return nodes
    .map((n) => {
      switch (n.type) {
        case 'text':
          return n.value;
        case 'br':
          return '<br>';
        case 'code':
          return `<code>${n.value}</code>`;
        case 'link':
          return `<a ${n.href}>${show(n.children)}</a>`;
        default:
          return `<${n.type}>${show(n.children)}</${n.type}>`;
      }
    })
    .join('');
}

describe('inline Markdown', () => {
  it.each([
    ['**bold** and *it* and _it_', '<strong>bold</strong> and <em>it</em> and <em>it</em>'],
    ['__under__ ~~gone~~ ||secret||', '<u>under</u> <del>gone</del> <spoiler>secret</spoiler>'],
    ['***both***', '<strong><em>both</em></strong>'],
    ['*a **b** c*', '<em>a <strong>b</strong> c</em>'],
    ['snake_case_name stays', 'snake_case_name stays'],
    ['2 * 3 * 4', '2 * 3 * 4'],
    ['`**not bold**`', '<code>**not bold**</code>'],
    ['``a ` b``', '<code>a ` b</code>'],
    ['\\*not italic\\*', '*not italic*'],
    ['line one\nline two', 'line one<br>line two'],
    ['**unclosed', '**unclosed'],
  ])('%j', (src, expected) => {
    expect(show(parseInline(src))).toBe(expected);
  });

  it('links only to http, https and mailto', () => {
    expect(show(parseInline('[docs](https://example.com/a_(b))'))).toBe('<a https://example.com/a_(b)>docs</a>');
    expect(show(parseInline('mail [me](mailto:a@example.com)'))).toBe('mail <a mailto:a@example.com>me</a>');
    expect(show(parseInline('see https://example.com/x, then'))).toBe('see <a https://example.com/x>https://example.com/x</a>, then');
    expect(show(parseInline('<https://example.com>'))).toBe('<a https://example.com/>https://example.com</a>');
    for (const bad of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,<script>x</script>',
      'vbscript:x',
      '/relative',
      '//evil.example',
    ]) {
      const nodes = parseInline(`[x](${bad})`);
      expect(
        nodes.some((n) => n.type === 'link'),
        bad,
      ).toBe(false);
    }
  });

  // The linear-time rewrite keeps the original parser's choices in odd corners too.
  it.each([
    ['*a `b* ``c*', '<em>a `b* ``c</em>'], // a closer search skips `` to the next run of 2+
    ['~~a ``b~~ ```c', '~~a ``b~~ ```c'],
    ['**a***', '<strong>a*</strong>'],
    ['***a** b*', '<strong>*a</strong> b*'],
    ['_a_b_', '<em>a_b</em>'],
    ['*[a*](https://x.io)', '<em>[a</em>](<a https://x.io/>https://x.io</a>)'],
    ['[a `b](https://x.io) c`', '<a https://x.io/>a `b</a> c`'],
    ['\\`a` `b`', '`a<code> </code>b`'],
    ['see http://x.io/(a)).', 'see <a http://x.io/(a)>http://x.io/(a)</a>).'],
    ['http://%/https://ok.example/', 'http://%/<a https://ok.example/>https://ok.example/</a>'],
    ['http://x.io[x](https://a.io)https://e.com/a', 'http://x.io<a https://a.io/>x</a><a https://e.com/a>https://e.com/a</a>'],
    ['HTTPS://EXAMPLE.COM/A', '<a https://example.com/A>HTTPS://EXAMPLE.COM/A</a>'],
    ['<http:x<https://ok.example>', '<http:x<a https://ok.example/>https://ok.example</a>'],
  ])('corner case %j', (src, expected) => {
    expect(show(parseInline(src))).toBe(expected);
  });

  it('does not let an autolink contain <, as in CommonMark', () => {
    // This once made one link of "https://a.example/x<y"; allowing it let
    // "<http:<http:<http:…>" cost time quadratic in its length.
    expect(show(parseInline('<https://a.example/x<y>'))).toBe('<<a https://a.example/x>https://a.example/x</a><y>');
  });

  it('keeps raw HTML as text', () => {
    const src = '<script>alert(1)</script><img src=x onerror=alert(2)>';
    expect(parseInline(src)).toEqual([{ type: 'text', value: src }]);
  });

  it('safeHref rejects everything but absolute http(s) and mailto URLs', () => {
    expect(safeHref('https://example.com')).toBe('https://example.com/');
    expect(safeHref(' http://example.com/x ')).toBe('http://example.com/x');
    expect(safeHref('mailto:x@example.com')).toBe('mailto:x@example.com');
    expect(safeHref('mailto:x@example.com', false)).toBeNull();
    expect(safeHref('javascript:alert(1)')).toBeNull();
    expect(safeHref('java\nscript:alert(1)')).toBeNull();
    expect(safeHref('attachment://a.png')).toBeNull();
    expect(safeHref(undefined)).toBeNull();
  });
});

describe('block Markdown', () => {
  it('parses code blocks, quotes, lists and headings', () => {
    const blocks = parseMarkdown(
      ['# Title', '```js', 'const a = "<b>";', '```', '> quoted', '> more', '', '- a', '- b', '  - c', '1. one', '2. two'].join('\n'),
    );
    expect(blocks.map((b) => b.type)).toEqual(['heading', 'codeblock', 'quote', 'list', 'list']);
    expect(blocks[1]).toEqual({ type: 'codeblock', lang: 'js', value: 'const a = "<b>";' });
    const bullets = blocks[3];
    expect(bullets?.type === 'list' && bullets.items.length).toBe(2);
    expect(bullets?.type === 'list' && bullets.items[1]?.[1]?.type).toBe('list');
    expect(blocks[4]).toMatchObject({ type: 'list', ordered: true, start: 1 });
  });

  it('reads heading, fence and list lines as before', () => {
    expect(parseMarkdown(`# a${' '.repeat(50)}b ##`)).toEqual([
      { type: 'heading', level: 1, children: [{ type: 'text', value: `a${' '.repeat(50)}b` }] },
    ]);
    expect(parseMarkdown('## #')).toEqual([{ type: 'heading', level: 2, children: [{ type: 'text', value: '#' }] }]);
    expect(parseMarkdown('#### no')).toEqual([{ type: 'paragraph', children: [{ type: 'text', value: '#### no' }] }]);
    expect(parseMarkdown('~~~ py \nx\n~~~~')).toEqual([{ type: 'codeblock', lang: 'py', value: 'x' }]);
    expect(parseMarkdown('````\nx\n```')).toEqual([
      {
        type: 'paragraph',
        children: [
          { type: 'text', value: '````' },
          { type: 'br' },
          { type: 'text', value: 'x' },
          { type: 'br' },
          { type: 'text', value: '```' },
        ],
      },
    ]);
    expect(parseMarkdown(' - - -')).toEqual([{ type: 'hr' }]);
    expect(parseMarkdown('3) x\n4) y')).toMatchObject([
      { type: 'list', ordered: true, start: 3, items: [[{ type: 'paragraph' }], [{ type: 'paragraph' }]] },
    ]);
    expect(parseMarkdown('1234567890. x')[0]?.type).toBe('paragraph');
  });

  it('treats an unclosed fence as text', () => {
    expect(parseMarkdown('```\nnot closed')).toEqual([
      { type: 'paragraph', children: [{ type: 'text', value: '```' }, { type: 'br' }, { type: 'text', value: 'not closed' }] },
    ]);
  });

  it('survives pathological input quickly', () => {
    const started = Date.now();
    parseMarkdown('*a'.repeat(2000));
    parseMarkdown('>'.repeat(4000));
    parseMarkdown('[['.repeat(2000));
    parseMarkdown('- '.repeat(2000));
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('spots emoji-only messages', () => {
    expect(isEmojiOnly('🎉🎉')).toBe(true);
    expect(isEmojiOnly('👍🏽 ❤️')).toBe(true);
    expect(isEmojiOnly('ok 👍')).toBe(false);
    expect(isEmojiOnly('123')).toBe(false);
  });
});

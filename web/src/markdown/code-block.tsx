/**
 * A fenced code block. Plain at once; when the fence names a language, the highlighter
 * (`highlight.ts`, a chunk of its own) loads on first need and the block is redrawn with
 * its tokens. The text is the same either way, so copying and layout do not change.
 */
import { useEffect, useState, type ReactNode } from 'react';
import type { Token } from './highlight';

let loading: Promise<typeof import('./highlight')> | undefined;
const loadHighlighter = () => {
  loading ??= import('./highlight');
  return loading;
};

function render(tokens: Token[], prefix = ''): ReactNode[] {
  return tokens.map((t, i) =>
    typeof t === 'string' ? (
      t
    ) : (
      <span
        // biome-ignore lint/suspicious/noArrayIndexKey: the tokens of one highlighted text: their place is their identity
        key={`${prefix}${i}`}
        className={t.className || undefined}
      >
        {render(t.children, `${prefix}${i}.`)}
      </span>
    ),
  );
}

export function CodeBlock({ value, lang }: { value: string; lang: string | undefined }) {
  const [tokens, setTokens] = useState<Token[] | null>(null);
  useEffect(() => {
    setTokens(null);
    if (!lang) return;
    let live = true;
    loadHighlighter()
      .then((h) => {
        if (live) setTokens(h.highlight(value, lang.toLowerCase()));
      })
      .catch(() => {
        // The chunk failed to load (offline, a redeploy): the block stays plain.
      });
    return () => {
      live = false;
    };
  }, [value, lang]);
  return (
    <pre className="md-pre" data-lang={lang || undefined} data-highlighted={tokens ? '' : undefined}>
      <code>{tokens ? render(tokens) : value}</code>
    </pre>
  );
}

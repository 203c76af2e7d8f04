/**
 * Syntax highlighting for code blocks, loaded on demand (its own chunk: `code-block.tsx`
 * imports this module only when a block names a language). highlight.js's core with the
 * languages people paste most; a block in any other language stays plain.
 *
 * highlight.js answers with HTML. That HTML is never inserted as markup: it is parsed
 * into a detached document and turned into a tree of plain text and class names, which
 * React then renders as text and spans. Only `hljs-*` class names survive.
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import markdown from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const languages = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  kotlin,
  markdown,
  php,
  python,
  ruby,
  rust,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language);

/** A highlighted piece: text, or a span with highlight.js's classes around more pieces. */
export type Token = string | { className: string; children: Token[] };

/** Blocks longer than this stay plain: highlighting is for reading, not for pasted logs. */
const MAX_LENGTH = 20_000;

/** The block as tokens, or null when the language is unknown (or the block too long). */
export function highlight(code: string, lang: string): Token[] | null {
  if (code.length > MAX_LENGTH || !hljs.getLanguage(lang)) return null;
  const html = hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  const doc = new DOMParser().parseFromString(`<pre>${html}</pre>`, 'text/html');
  return toTokens(doc.body.firstChild as Element);
}

function toTokens(parent: Node): Token[] {
  const out: Token[] = [];
  for (const node of Array.from(parent.childNodes)) {
    if (node.nodeType === Node.TEXT_NODE) out.push(node.textContent ?? '');
    else if (node.nodeType === Node.ELEMENT_NODE) {
      const className = ((node as Element).getAttribute('class') ?? '')
        .split(/\s+/)
        .filter((c) => /^hljs-[\w-]+_*$/.test(c))
        .join(' ');
      const children = toTokens(node);
      out.push(className ? { className, children } : { className: '', children });
    }
  }
  return out;
}

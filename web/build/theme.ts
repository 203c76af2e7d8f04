/** What of PostCSS's nodes this plugin touches (Vite runs it; its types are not a dependency of ours). */
interface Rule {
  selectors: string[];
}
interface AtRule {
  params: string;
  parent?: { type: string };
  nodes?: unknown[];
  themed?: boolean;
  clone(): AtRule;
  walkRules(fn: (rule: Rule) => void): void;
  after(nodes: unknown[]): void;
}

/** The attribute the client sets on <html> when a theme is chosen in its settings (web/src/lib/theme.ts). */
const ATTR = 'data-theme';

/** `:root` (or `html`) with `cond`, or an element under it, keeping the selector's specificity. */
function under(selector: string, cond: string): string {
  const root = /^(:root|html)\b/.exec(selector);
  if (root) return `${root[1]}:where(${cond})${selector.slice(root[0].length)}`;
  return `:where(:root${cond}) ${selector}`;
}

function scoped(rule: Rule, cond: string): void {
  rule.selectors = rule.selectors.map((s) => under(s, cond));
}

/**
 * The dark theme follows the system (`@media (prefers-color-scheme: dark)`, as every sheet
 * writes it) unless a theme is chosen in the client: each such block applies only when
 * `<html>` has no `data-theme="light"`, and a copy of it outside the media query applies
 * with `data-theme="dark"`. So sheets go on writing dark rules the one way.
 */
export function themeSwitch() {
  return {
    postcssPlugin: 'parley-theme-switch',
    AtRule: {
      media(node: unknown) {
        const at = node as AtRule;
        if (at.params.replace(/\s+/g, '') !== '(prefers-color-scheme:dark)' || at.parent?.type !== 'root') return;
        // The copy put after it is visited too: once is enough.
        if (at.themed) return;
        at.themed = true;
        const forced = at.clone();
        forced.walkRules((rule) => scoped(rule, `[${ATTR}="dark"]`));
        at.walkRules((rule) => scoped(rule, `:not([${ATTR}="light"])`));
        at.after(forced.nodes ?? []);
      },
    },
  };
}

/**
 * The message catalog (issue 13): no user-visible text is written into the client's code,
 * every key the code uses is in the English catalog, and the catalog holds no unused key.
 * Static checks over web/src with the TypeScript compiler API; no browser.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = path.join(ROOT, 'web', 'src');

/** Files not converted yet (none now; a branch that rewrites a file may list it here until it merges). */
const PENDING: string[] = [];
/** Where the catalog itself lives. */
const CATALOG_DIR = 'i18n/';

/** Attributes whose value people read or hear. */
const TEXT_ATTRIBUTES = new Set(['aria-label', 'title', 'placeholder', 'alt', 'label']);
/** Helpers whose first argument (a string, or an object of strings) is shown to people; toast's second is its kind. */
const TEXT_CALLS = new Set(['toast', 'confirm']);
/** A deliberate exception: this comment on the line of the text, or the line before. */
const IGNORE = 'i18n-ignore';
const LETTER = /\p{L}/u;
/** Operators whose operands can be the text itself (`name ?? 'Someone'`); others (`kind === 'error'`) compare codes. */
const TEXT_OPERATORS = new Set([
  ts.SyntaxKind.PlusToken,
  ts.SyntaxKind.QuestionQuestionToken,
  ts.SyntaxKind.BarBarToken,
  ts.SyntaxKind.AmpersandAmpersandToken,
]);

function sourceFiles(dir = SRC): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out.sort();
}

function rel(file: string): string {
  return path.relative(SRC, file).split(path.sep).join('/');
}

function parse(file: string, text = fs.readFileSync(file, 'utf8')): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

/** The name of a called function: `t`, `toast`, `i18n.t` -> `t`. */
function calleeName(call: ts.CallExpression): string | undefined {
  const e = call.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return undefined;
}

/** Is this node the key argument of t()? Text there is a key, not prose. */
function isKeyArgument(node: ts.Node): boolean {
  const parent = node.parent;
  return !!parent && ts.isCallExpression(parent) && calleeName(parent) === 't' && parent.arguments[0] === node;
}

/** String and template literals with letters in an expression, not counting keys given to t(). */
function textLiterals(expr: ts.Node): ts.Node[] {
  const found: ts.Node[] = [];
  const visit = (node: ts.Node) => {
    // Keys given to t(), and JSX (its text and attributes are checked on their own).
    if (isKeyArgument(node) || ts.isJsxElement(node) || ts.isJsxFragment(node) || ts.isJsxSelfClosingElement(node)) return;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (LETTER.test(node.text)) found.push(node);
      return;
    }
    if (ts.isTemplateExpression(node)) {
      const parts = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)];
      if (parts.some((p) => LETTER.test(p))) found.push(node);
    }
    // A property name, or a comparison operand, is code, not text.
    if (ts.isPropertyAssignment(node)) return visit(node.initializer);
    // Arguments to other calls are codes (`text(c, 'name')`); text goes through t() or toast/confirm, checked apart.
    if (ts.isCallExpression(node)) return visit(node.expression);
    if (ts.isBinaryExpression(node) && !TEXT_OPERATORS.has(node.operatorToken.kind)) return;
    ts.forEachChild(node, visit);
  };
  visit(expr);
  return found;
}

interface Finding {
  file: string;
  line: number;
  text: string;
}

/** Hard-coded user-visible text in one file's source. */
function findHardCodedText(file: string, text?: string): Finding[] {
  const sf = parse(file, text);
  const lines = sf.text.split('\n');
  const findings: Finding[] = [];
  const report = (node: ts.Node) => {
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
    if (lines[line]?.includes(IGNORE) || lines[line - 1]?.includes(IGNORE)) return;
    findings.push({ file: rel(file), line: line + 1, text: node.getText(sf).trim().slice(0, 80) });
  };
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node) && LETTER.test(node.text)) report(node);
    else if (ts.isJsxExpression(node) && node.expression && !ts.isJsxAttribute(node.parent)) {
      // {cond ? 'Saving…' : 'Save'} between tags is text too.
      for (const lit of textLiterals(node.expression)) report(lit);
    } else if (ts.isJsxAttribute(node) && TEXT_ATTRIBUTES.has(node.name.getText(sf)) && node.initializer) {
      for (const lit of textLiterals(node.initializer)) report(lit);
    } else if (ts.isCallExpression(node) && TEXT_CALLS.has(calleeName(node) ?? '')) {
      const [arg] = node.arguments;
      if (arg) for (const lit of textLiterals(arg)) report(lit);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return findings;
}

/** Keys the code asks for: t('a.b'), i18nKey="a.b"; a template key t(`a.${x}.b`) is a pattern. */
function usedKeys(): { keys: Map<string, string>; patterns: Map<string, RegExp> } {
  const keys = new Map<string, string>();
  const patterns = new Map<string, RegExp>();
  for (const file of sourceFiles()) {
    const sf = parse(file);
    const visit = (node: ts.Node) => {
      let arg: ts.Node | undefined;
      if (ts.isCallExpression(node) && calleeName(node) === 't') arg = node.arguments[0];
      if (ts.isJsxAttribute(node) && node.name.getText(sf) === 'i18nKey' && node.initializer) {
        arg = ts.isJsxExpression(node.initializer) ? node.initializer.expression : node.initializer;
      }
      // cond ? 'a.b' : 'a.c': both are used.
      const literals: ts.Node[] = [];
      const unwrap = (n: ts.Node | undefined) => {
        if (n && ts.isConditionalExpression(n)) unwrap(n.whenTrue), unwrap(n.whenFalse);
        else if (n && ts.isParenthesizedExpression(n)) unwrap(n.expression);
        else if (n) literals.push(n);
      };
      unwrap(arg);
      for (const lit of literals) use(lit);
      ts.forEachChild(node, visit);
    };
    const use = (arg: ts.Node) => {
      if (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg)) keys.set(arg.text, rel(file));
      else if (ts.isTemplateExpression(arg)) {
        const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        const source = quote(arg.head.text) + arg.templateSpans.map((s) => `[^.]+${quote(s.literal.text)}`).join('');
        patterns.set(arg.getText(sf), new RegExp(`^${source}$`));
      } else {
        throw new Error(`${rel(file)}: a key that is neither a literal nor a template: ${arg.getText(sf)}`);
      }
    };
    visit(sf);
  }
  return { keys, patterns };
}

/** Every key of the English catalog, with i18next's plural suffixes taken off. */
async function catalogKeys(): Promise<Set<string>> {
  const { english } = await import('../../web/src/i18n/en/index.js');
  const out = new Set<string>();
  const walk = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const key = prefix + k.replace(/_(zero|one|two|few|many|other)$/, '');
      if (typeof v === 'string') out.add(key);
      else walk(v as Record<string, unknown>, `${key}.`);
    }
  };
  walk(english as Record<string, unknown>, '');
  return out;
}

describe('message catalog', () => {
  it('finds hard-coded text (the check itself)', () => {
    const sample = [
      'export const A = () => <p title="Close">Hello there</p>;',
      'export const B = () => <p aria-label={`${n} new`} alt={x ? "A cat" : t("x.y")}>{t("a.b")}</p>;',
      'toast("Saved", "error");',
      'confirm({ title: t("a"), confirmLabel: "Delete" });',
      '// i18n-ignore',
      'export const C = () => <b>Parley</b>;',
      'export const D = () => <i className="x" data-testid="y">{"\\u00a0"} · {count}</i>;',
      'export const E = () => <p>{busy ? "Saving…" : t("a.save")}{kind === "error" && <b className="z" />}</p>;',
    ].join('\n');
    const found = findHardCodedText(path.join(SRC, 'sample.tsx'), sample).map((f) => f.text);
    expect(found).toEqual(['"Close"', 'Hello there', '`${n} new`', '"A cat"', '"Saved"', '"Delete"', '"Saving…"']);
  });

  it('has no hard-coded user-visible text in web/src', () => {
    const findings = sourceFiles()
      .filter((file) => !PENDING.some((p) => rel(file).startsWith(p)) && !rel(file).startsWith(CATALOG_DIR))
      .flatMap((file) => findHardCodedText(file));
    expect(findings.map((f) => `${f.file}:${f.line} ${f.text}`)).toEqual([]);
  });

  it('has every key the code uses, and none it does not', async () => {
    const catalog = await catalogKeys();
    const { keys, patterns } = usedKeys();
    const missing = [...keys].filter(([key]) => !catalog.has(key)).map(([key, file]) => `${file}: ${key}`);
    expect(missing).toEqual([]);
    for (const [source, re] of patterns) {
      expect(
        [...catalog].some((k) => re.test(k)),
        `no key matches ${source}`,
      ).toBe(true);
    }
    const unused = [...catalog].filter((key) => !keys.has(key) && ![...patterns.values()].some((re) => re.test(key)));
    expect(unused).toEqual([]);
  });

  it('picks the first of the browser languages it has a catalog for, else English', async () => {
    const { pickLanguage } = await import('../../web/src/i18n/pick.js');
    expect(pickLanguage(['de-AT', 'fr'], ['de', 'fr'])).toBe('de');
    expect(pickLanguage(['pt-BR', 'pt'], ['pt-BR', 'pt'])).toBe('pt-BR');
    expect(pickLanguage(['fr-CA'], ['de'])).toBe('en');
    expect(pickLanguage(['en-GB', 'de'], ['de'])).toBe('en');
    expect(pickLanguage([], ['de'])).toBe('en');
  });

  it('renders plurals and interpolation from the English catalog', async () => {
    // The catalog as the app sets it up (web/src/i18n/index.ts), on a fresh i18next instance.
    const { default: i18next } = await import('i18next');
    const { english } = await import('../../web/src/i18n/en/index.js');
    const i18n = i18next.createInstance();
    await i18n.init({ lng: 'en', resources: { en: { translation: english } }, interpolation: { escapeValue: false } });
    const t = i18n.t.bind(i18n) as (key: string, options?: Record<string, unknown>) => string;
    expect(t('pinsPanel.pinnedMessages', { count: 1 })).toBe('1 pinned message');
    expect(t('pinsPanel.pinnedMessages', { count: 3 })).toBe('3 pinned messages');
    expect(t('titles.channel', { channel: 'general', server: 'Home' })).toBe('#general · Home · Parley');
  });
});

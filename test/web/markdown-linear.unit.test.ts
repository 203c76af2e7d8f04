/**
 * The web client's Markdown parser runs on text anyone can post, in every reader's
 * browser: its time must grow linearly with the input, it must never throw, and it
 * must not invent or lose text. Property and fuzz tests (fast-check) with a fixed seed;
 * FUZZ_SEED=<integer> explores other inputs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTENT_MAX, EMBED_LIMITS } from '../../src/webhooks/types.js';
import { parseInline, parseMarkdown, safeHref, type Block, type Inline } from '../../web/src/markdown/parse.js';

const SEED = seedFromEnv(process.env.FUZZ_SEED, 0x5eed_2024);

function seedFromEnv(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got ${JSON.stringify(raw)}`);
  return seed;
}

/** Where the client parses untrusted text, and the most it accepts there. */
interface Context {
  name: string;
  size: number;
  parse: (source: string) => unknown;
}

const CONTEXTS: Context[] = [
  { name: 'message', size: CONTENT_MAX, parse: parseMarkdown },
  { name: 'embed description', size: EMBED_LIMITS.description, parse: parseMarkdown },
  { name: 'embed field value', size: EMBED_LIMITS.fieldValue, parse: parseMarkdown },
  { name: 'embed field name', size: EMBED_LIMITS.fieldName, parse: parseInline },
];

/** `unit` repeated and cut to exactly `size` characters. */
function fill(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/**
 * Everyday chat text with a little of each kind of markup: what a channel is mostly
 * made of, and the yardstick for the time budget. (Bare prose parses into one text
 * node, so measured against it alone a budget would reflect how many nodes an input
 * yields rather than how the time grows.)
 */
const ORDINARY = [
  'Morning all! The **deploy** went out at 09:40, see https://status.example.com/runs/42 for the log.',
  'Could someone look at `config.yml`? I think the _timeout_ is too low, ~~30s~~ 10s now.',
  '',
  '> was it the cache again?',
  'probably, [the docs](https://example.com/docs/cache) say so',
  '',
  '- restart the workers',
  '- clear __both__ queues',
  '1. then check ||the secret dashboard||',
  '',
  '```sh',
  'npm run deploy -- --dry-run',
  '```',
  'Thanks, back in 5 min.',
  '',
].join('\n');

/**
 * Inputs that made earlier parsers (or naive ones) re-scan the rest of the text for
 * each opener, or backtrack inside a regular expression: each repeated to the limit.
 */
const ADVERSARIAL: [name: string, build: (size: number) => string][] = [
  ...[
    'a(_',
    ' *~',
    '[',
    '(',
    '`',
    '` a',
    '*a',
    '**',
    '**a',
    '_a_ ',
    'a_',
    '*a**b',
    '~~a',
    '__a',
    '||a',
    '<http',
    '<http:',
    '](',
    '[](',
    '[a](',
    '[*a',
    '*[',
    '*`',
    '[`',
    '_ `a',
    '\\',
    '\\`',
    'http://%/',
    // URLs that fail to parse (non-ASCII ones the slow way, through a thrown error)
    'http://%\u00e9/',
    'https://a:b/',
    '[a](http:\u00e9%)',
    '[a](b)',
    '<http:\u00e9%>',
    '<\u00e9>',
    'mailto:',
    'h',
    '>\n',
    '> ',
    '- a\n',
    '```a\n',
    '>>> a\n',
    '- - -\n',
    '# a #\n',
    '  - a\n',
  ].map((unit): [string, (size: number) => string] => [JSON.stringify(unit), (size) => fill(unit, size)]),
  ['"<http:…>"', (size) => `${fill('<http:', size - 1)}>`],
  ['"http://x" + ")"*n', (size) => `http://x${')'.repeat(size - 8)}`],
  ['"http://x" + "."*n', (size) => `http://x${'.'.repeat(size - 8)}`],
  ['"["*n + "]"*n', (size) => '['.repeat(size >> 1) + ']'.repeat(size - (size >> 1))],
  ['"*"*n + "a"', (size) => `${'*'.repeat(size - 1)}a`],
  ['descending ` runs', (size) => fill(Array.from({ length: 60 }, (_, k) => `${'`'.repeat(60 - k)}*`).join(''), size)],
  ['"# a" + spaces + "b"', (size) => `# a${' '.repeat(size - 4)}b`],
  ['"# a" + "#"*n + " b"', (size) => `# a${'#'.repeat(size - 5)} b`],
  ['"```" + spaces + "!"', (size) => `\`\`\`${' '.repeat(size - 4)}!`],
  ['"- " + spaces + "a…\\u2028"', (size) => `- ${' '.repeat((size >> 1) - 2)}${'a'.repeat(size - (size >> 1) - 1)}\u2028`],
  ['"- a\\n" + spaces + "\\u2028"', (size) => `- a\n${' '.repeat(size - 5)}\u2028`],
  ['quote nesting', (size) => fill('>', size)],
];

// Time budget: at most FACTOR times ordinary text of the same length, and never over
// CEILING_MS. Linear inputs stay well inside; the quadratic and worse ones this file
// was written against took 20x to 100000x as long as ordinary text at these sizes.
const FACTOR = 20;
const CEILING_MS = 40;

/** Best average time of one call, over a few batches (a loaded machine only adds time). */
function bestMs(run: () => unknown, batches = 5): number {
  const timeOnce = () => {
    const start = performance.now();
    run();
    return performance.now() - start;
  };
  let once = timeOnce();
  // Over the ceiling: a pause of a loaded machine, or truly slow. Two more tries tell
  // them apart (slow input stays slow) without repeating something that slow many times.
  for (let retry = 0; retry < 2 && once > CEILING_MS; retry++) once = Math.min(once, timeOnce());
  if (once > CEILING_MS) return once;
  const reps = Math.max(1, Math.min(50, Math.floor(2 / Math.max(once, 0.01))));
  let best = once;
  for (let b = 0; b < batches; b++) {
    const start = performance.now();
    for (let r = 0; r < reps; r++) run();
    best = Math.min(best, (performance.now() - start) / reps);
  }
  return best;
}

const baselines = new Map<string, number>();

/** How long ordinary text of this context's size takes (measured once). */
function baselineMs(ctx: Context): number {
  const key = `${ctx.name}:${ctx.size}`;
  let ms = baselines.get(key);
  if (ms === undefined) {
    const source = fill(ORDINARY, ctx.size);
    bestMs(() => ctx.parse(source)); // warm up
    ms = bestMs(() => ctx.parse(source), 7);
    baselines.set(key, ms);
  }
  return ms;
}

function expectWithinBudget(ctx: Context, source: string, label: string): void {
  const base = baselineMs(ctx);
  const ms = bestMs(() => ctx.parse(source));
  const budget = Math.min(CEILING_MS, FACTOR * base);
  expect(
    ms,
    `${label} (${source.length} chars as ${ctx.name}): ${ms.toFixed(3)} ms, ordinary text ${base.toFixed(3)} ms`,
  ).toBeLessThanOrEqual(budget);
}

describe('Markdown parsing time is linear in the input', () => {
  for (const ctx of CONTEXTS) {
    it.each(ADVERSARIAL)(`%s at the ${ctx.name} limit`, (name, build) => {
      const source = build(ctx.size);
      expect(source).toHaveLength(ctx.size);
      expectWithinBudget(ctx, source, name);
    });
  }

  // Pieces of Markdown syntax, each repeated up to the whole limit, mixed at random.
  const PIECES = [
    '*',
    '**',
    '***',
    '_',
    '__',
    '~',
    '~~',
    '|',
    '||',
    '`',
    '``',
    '```',
    '\\',
    '[',
    ']',
    '(',
    ')',
    '](',
    '[]',
    '<',
    '>',
    '<http',
    'http://',
    'https://x.io/',
    'mailto:',
    'mailto://',
    '%',
    ':',
    '/',
    '@',
    '#',
    '# ',
    '> ',
    '>>>',
    '- ',
    '* ',
    '1. ',
    '---',
    '\n',
    '\n\n',
    ' ',
    '  ',
    '\t',
    'a',
    'é',
    'a(_',
    ' *~',
    '*a',
    '_a_',
    'a_b',
    '\u2028',
    '\u00a0',
    '"',
    '.',
  ];
  const adversarialInput = fc
    .record({
      ctx: fc.constantFrom(...CONTEXTS),
      parts: fc.array(
        fc.tuple(fc.constantFrom(...PIECES), fc.integer({ min: 1, max: 1500 })).map(([piece, n]) => piece.repeat(n)),
        { minLength: 1, maxLength: 6 },
      ),
    })
    .map(({ ctx, parts }) => ({ ctx, source: fill(parts.join(''), ctx.size) }));

  it('holds for random mixtures of syntax at the limits', () => {
    fc.assert(
      fc.property(adversarialInput, ({ ctx, source }) => {
        expectWithinBudget(ctx, source, JSON.stringify(source.slice(0, 60)));
      }),
      { seed: SEED, numRuns: 60 },
    );
  });
});

// ---------------------------------------------------------------------------
// Totality and shape

/** Characters with a meaning in the parser, and some that are easy to mishandle. */
const SYNTAX_CHARS = [...'*_~|`\\[]()<>#->+.!:/@%"\' \t\n\r1aAhHmM', '\u2028', '\u2029', '\u00a0', '\u0085', '\u0000', 'é', '🎉', '\ud83d'];
const syntaxString = (maxLength: number) => fc.string({ unit: fc.constantFrom(...SYNTAX_CHARS), maxLength });
const SYNTAX_WORDS = [
  'http://',
  'https://',
  'mailto:',
  'javascript:',
  'x.io',
  '```',
  '~~~',
  '> ',
  '>>> ',
  '- ',
  '1. ',
  '# ',
  '---',
  '[x](',
  ')',
  '<https://a.b>',
  '**',
  '||',
  '\n\n',
];
const syntaxText = fc.oneof(
  syntaxString(300),
  fc.array(fc.oneof(fc.constantFrom(...SYNTAX_WORDS), syntaxString(4)), { maxLength: 80 }).map((a) => a.join('')),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

const INLINE_TYPES = new Set(['text', 'br', 'code', 'strong', 'em', 'u', 'del', 'spoiler', 'link']);
const BLOCK_TYPES = new Set(['paragraph', 'heading', 'codeblock', 'quote', 'list', 'hr']);

function checkInlines(nodes: Inline[]): void {
  expect(Array.isArray(nodes)).toBe(true);
  for (const n of nodes) {
    expect(INLINE_TYPES.has(n.type), n.type).toBe(true);
    if (n.type === 'text') {
      // Newlines become `br` nodes, and empty text is never emitted.
      expect(n.value.length).toBeGreaterThan(0);
      expect(n.value).not.toContain('\n');
    } else if (n.type === 'code') {
      expect(typeof n.value).toBe('string');
    } else if (n.type === 'link') {
      // Only http(s) and mailto, already normalised, ever reach an href.
      expect(safeHref(n.href)).toBe(n.href);
      expect(['http:', 'https:', 'mailto:']).toContain(new URL(n.href).protocol);
      checkInlines(n.children);
    } else if (n.type !== 'br') {
      expect(n.children.length).toBeGreaterThan(0);
      checkInlines(n.children);
    }
  }
}

function checkBlocks(blocks: Block[]): void {
  expect(Array.isArray(blocks)).toBe(true);
  for (const b of blocks) {
    expect(BLOCK_TYPES.has(b.type), b.type).toBe(true);
    if (b.type === 'paragraph') checkInlines(b.children);
    else if (b.type === 'heading') {
      expect([1, 2, 3]).toContain(b.level);
      checkInlines(b.children);
    } else if (b.type === 'quote') checkBlocks(b.children);
    else if (b.type === 'list') {
      expect(Number.isInteger(b.start)).toBe(true);
      for (const item of b.items) checkBlocks(item);
    } else if (b.type === 'codeblock') {
      expect(typeof b.value).toBe('string');
      expect(typeof b.lang).toBe('string');
    }
  }
}

describe('Markdown parsing is total', () => {
  it('never throws and always returns a well-formed tree', () => {
    fc.assert(
      fc.property(syntaxText, (source) => {
        checkBlocks(parseMarkdown(source));
        checkInlines(parseInline(source));
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });
});

// ---------------------------------------------------------------------------
// Text is kept

/** The text a reader sees, in order: newlines for line breaks, code as written. */
function inlineText(nodes: Inline[]): string {
  return nodes
    .map((n) => {
      if (n.type === 'text' || n.type === 'code') return n.value;
      if (n.type === 'br') return '\n';
      return inlineText(n.children);
    })
    .join('');
}

/** Block text in document order (a code block's language counts, ahead of its code). */
function blockText(blocks: Block[]): string {
  return blocks
    .map((b) => {
      switch (b.type) {
        case 'paragraph':
        case 'heading':
          return inlineText(b.children);
        case 'codeblock':
          return b.lang + b.value;
        case 'quote':
          return blockText(b.children);
        case 'list':
          return b.items.map(blockText).join('');
        case 'hr':
          return '';
      }
    })
    .join('');
}

/** Whether `sub` can be had from `full` by deleting characters. */
function isSubsequence(sub: string, full: string): boolean {
  let k = 0;
  for (let j = 0; j < full.length && k < sub.length; j++) if (full[j] === sub[k]) k++;
  return k === sub.length;
}

const letters = (s: string) => s.replace(/[^\p{L}]/gu, '');

describe('Markdown parsing keeps the text', () => {
  it('never invents, repeats or reorders characters', () => {
    fc.assert(
      fc.property(syntaxText, (source) => {
        const normalised = source.replace(/\r\n?/g, '\n');
        expect(isSubsequence(blockText(parseMarkdown(source)), normalised)).toBe(true);
        expect(isSubsequence(inlineText(parseInline(source)), source)).toBe(true);
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });

  // Letters are never syntax, so all of them must reach the reader. Excluded, as the
  // places where words are markup: `:` (no URL, so no link target can form and eat
  // text) and runs of three backticks (whose first line is a language name).
  const noUrlText = fc
    .array(
      fc.oneof(
        fc.constantFrom(
          'a',
          'b',
          'Z',
          'é',
          'ß',
          'word',
          ' ',
          '\n',
          '\n\n',
          '\t',
          '1',
          '2. ',
          '1) ',
          '# ',
          '### ',
          '> ',
          '>>> ',
          '- ',
          '* ',
          '---',
          '~~~',
        ),
        fc.constantFrom(...'*_~|`\\[]()<>#-+.!/@%"\''),
      ),
      { maxLength: 120 },
    )
    .map((a) => a.join('').replace(/`{3,}/g, '``'));

  it('keeps every letter, in order', () => {
    fc.assert(
      fc.property(noUrlText, (source) => {
        expect(letters(blockText(parseMarkdown(source)))).toBe(letters(source));
        expect(letters(inlineText(parseInline(source)))).toBe(letters(source));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });
});

import { type ActionRow, COMPONENT_LIMITS } from '@parley/protocol';
import { badRequest } from '../errors.js';

/**
 * The rules of components on a message (docs/commands.md#components) beyond what the request
 * schema already holds (5 rows of 1 to 5, lengths): a select fills its row; every button
 * but a link has a `customId` and no `url`, a link has an http(s) `url` and no
 * `customId`; custom ids are unique on the message; a select's values are unique and its
 * `minValues ≤ maxValues ≤` its options. `interactive: false` (webhook messages, which no
 * bot answers) allows link buttons only. Returns the rows as stored: only the known
 * fields, so nothing unexpected is kept.
 */
export function checkComponents(rows: readonly ActionRow[], interactive: boolean): ActionRow[] {
  const bad = (where: string, why: string) => badRequest(`components${where}: ${why}`, 'invalid_components');
  if (rows.length > COMPONENT_LIMITS.rows) throw bad('', `at most ${COMPONENT_LIMITS.rows} rows`);
  const ids = new Set<string>();
  const claim = (where: string, id: string) => {
    if (ids.has(id)) throw bad(where, `customId "${id}" is used twice`);
    ids.add(id);
  };
  return rows.map((row, r) => {
    if (row.components.length === 0 || row.components.length > COMPONENT_LIMITS.perRow)
      throw bad(`[${r}]`, `a row holds 1 to ${COMPONENT_LIMITS.perRow} components`);
    const selects = row.components.filter((c) => c.type === 'select').length;
    if (selects > 0 && row.components.length > 1) throw bad(`[${r}]`, 'a select must be alone in its row');
    return {
      type: 'row' as const,
      components: row.components.map((c, i) => {
        const where = `[${r}].components[${i}]`;
        if (c.type === 'button') {
          noControl(where, c.label);
          if (c.style === 'link') {
            if (c.customId !== undefined) throw bad(where, 'a link button has a url and no customId');
            if (!c.url || c.url.length > COMPONENT_LIMITS.url || !isHttpUrl(c.url)) throw bad(where, 'a link button needs an http(s) url');
          } else {
            if (c.url !== undefined) throw bad(where, 'only link buttons have a url');
            if (!interactive) throw bad(where, 'webhook messages carry link buttons only (no bot answers their clicks)');
            if (!c.customId || c.customId.length > COMPONENT_LIMITS.customId)
              throw bad(where, 'a button needs a customId of 1 to 100 characters');
            claim(where, c.customId);
          }
          return {
            type: 'button' as const,
            style: c.style,
            label: c.label,
            ...(c.customId !== undefined ? { customId: c.customId } : {}),
            ...(c.url !== undefined ? { url: c.url } : {}),
            ...(c.emoji ? { emoji: c.emoji } : {}),
            ...(c.disabled ? { disabled: true } : {}),
          };
        }
        if (!interactive) throw bad(where, 'webhook messages carry link buttons only (no bot answers their clicks)');
        claim(where, c.customId);
        const values = new Set<string>();
        for (const o of c.options) {
          noControl(where, o.label);
          if (values.has(o.value)) throw bad(where, `option value "${o.value}" is used twice`);
          values.add(o.value);
        }
        const min = c.minValues ?? 1;
        const max = c.maxValues ?? 1;
        if (min > max) throw bad(where, 'minValues must not be more than maxValues');
        if (max > c.options.length) throw bad(where, 'maxValues must not be more than the number of options');
        return {
          type: 'select' as const,
          customId: c.customId,
          options: c.options.map((o) => ({
            label: o.label,
            value: o.value,
            ...(o.description !== undefined ? { description: o.description } : {}),
            ...(o.default ? { default: true } : {}),
          })),
          ...(c.placeholder !== undefined ? { placeholder: c.placeholder } : {}),
          ...(c.minValues !== undefined ? { minValues: c.minValues } : {}),
          ...(c.maxValues !== undefined ? { maxValues: c.maxValues } : {}),
          ...(c.disabled ? { disabled: true } : {}),
        };
      }),
    };
  });

  function noControl(where: string, text: string) {
    if (text.trim() === '' || text.includes('\u0000')) throw bad(where, 'labels must not be blank');
    if ([...text].length > COMPONENT_LIMITS.label) throw bad(where, `labels are at most ${COMPONENT_LIMITS.label} characters`);
  }
}

function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** The component with `customId` on a message's rows, if any (link buttons have none). */
export function findComponent(rows: readonly ActionRow[], customId: string) {
  for (const row of rows) for (const c of row.components) if (c.customId === customId) return c;
  return undefined;
}

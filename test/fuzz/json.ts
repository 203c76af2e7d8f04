/**
 * JSON values as the fuzzer builds them: beyond what JSON.stringify can write, they may
 * hold duplicate keys, `__proto__` keys, number literals JavaScript cannot represent,
 * and strings carrying bytes that are not UTF-8.
 */
export type J = null | boolean | number | string | J[] | { raw: string } | { entries: Array<[string, J]> } | { bytes: Buffer };

export const obj = (entries: Array<[string, J]>): J => ({ entries });
export const raw = (text: string): J => ({ raw: text });

function isEntries(v: object): v is { entries: Array<[string, J]> } {
  // Arrays have an `entries` method: only a plain object with an array counts.
  return !Array.isArray(v) && Array.isArray((v as { entries?: unknown }).entries);
}

/** The entries of an object value, or undefined for anything else. */
export function entriesOf(v: J): Array<[string, J]> | undefined {
  return v !== null && typeof v === 'object' && isEntries(v) ? v.entries : undefined;
}

/** Serialises without recursion limits of our own (callers keep trees shallow; deep nesting is written as raw text). */
export function serialize(v: J): Buffer {
  const parts: Array<string | Buffer> = [];
  const walk = (x: J): void => {
    if (x === null || typeof x === 'boolean') parts.push(String(x));
    else if (typeof x === 'number') parts.push(Number.isFinite(x) ? JSON.stringify(x) : 'null');
    else if (typeof x === 'string') parts.push(JSON.stringify(x));
    else if (Array.isArray(x)) {
      parts.push('[');
      x.forEach((item, i) => {
        if (i > 0) parts.push(',');
        walk(item);
      });
      parts.push(']');
    } else if ('raw' in x) parts.push(x.raw);
    else if ('bytes' in x) parts.push('"', x.bytes, '"');
    else if (isEntries(x)) {
      parts.push('{');
      x.entries.forEach(([k, val], i) => {
        if (i > 0) parts.push(',');
        parts.push(JSON.stringify(k), ':');
        walk(val);
      });
      parts.push('}');
    }
  };
  walk(v);
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
}

/** A flat string→string view of an object's entries, for form and multipart bodies. */
export function flatten(v: J): Array<[string, string]> {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || !isEntries(v)) return [];
  return v.entries.map(([k, val]) => [k, typeof val === 'string' ? val : serialize(val).toString('utf8')]);
}

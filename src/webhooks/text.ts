/**
 * Small, dependency-free helpers shared by the webhook dialect converters:
 * shape checks on untrusted JSON, length counting in code points, URL checks.
 */
import { badRequest } from '../errors.js';
import { jsonTooDeep, tooDeepMessage } from '../json-depth.js';

/** Length in Unicode code points, the unit every Parley limit is counted in. */
export function codePointLength(s: string): number {
  let n = 0;
  // Iterating a string yields code points, so surrogate pairs count once.
  for (const _ of s) n++;
  return n;
}

/** Cut `s` to at most `max` code points, ending with an ellipsis when cut. */
export function truncate(s: string, max: number): string {
  if (codePointLength(s) <= max) return s;
  return `${[...s].slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** A JSON object (not null, not an array). */
export function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Absolute http: or https: URL. */
export function isHttpUrl(s: string): boolean {
  if (!/^https?:\/\//i.test(s)) return false;
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Read an optional string field. null, undefined and "" mean absent (several real
 * senders, e.g. Gitea, serialise unset fields as empty strings); any other non-string
 * is a 400 naming `path`.
 */
export function optionalString(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw badRequest(`${path} must be a string`);
  return value === '' ? undefined : value;
}

/** Read an optional http(s) URL field; empty means absent, anything else invalid is a 400. */
export function optionalHttpUrl(value: unknown, path: string): string | undefined {
  const s = optionalString(value, path);
  if (s === undefined) return undefined;
  const trimmed = s.trim();
  if (trimmed === '') return undefined;
  if (!isHttpUrl(trimmed)) throw badRequest(`${path} must be an http(s) URL`);
  return trimmed;
}

/** Parse the JSON carried in a form field (Slack's `payload=`, Discord's `payload_json`). */
export function parseJsonField(raw: string, field: string): unknown {
  // The same nesting limit as a JSON request body (src/json-depth.ts).
  if (jsonTooDeep(raw)) throw badRequest(tooDeepMessage(field), 'json_too_deep');
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw badRequest(`${field} is not valid JSON`, 'invalid_json');
  }
}

/**
 * Backslash-escape the characters that would otherwise start Markdown formatting or
 * links. An underscore inside a word (snake_case) cannot start emphasis and is kept.
 */
export function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*~[\]<>]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, (c) => `\\${c}`);
}

/** First line of a (commit) message. */
export function firstLine(s: string): string {
  const i = s.search(/\r?\n/);
  return i === -1 ? s : s.slice(0, i);
}

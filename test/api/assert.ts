/** Assertions and small helpers shared by the HTTP suites in test/api. */
import { sql } from 'kysely';
import { expect } from 'vitest';
import { ERROR_CATALOG, type ErrorCode } from '../../src/errors.js';
import { call, type Res } from '../factories.js';
import type { TestServer } from '../harness.js';

/** An id with the right shape (a snowflake) that names nothing. */
export const UNKNOWN_ID = '1234567890123456789';

/** ISO 8601 UTC timestamp as the API writes them. */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A stack frame line as Node prints it ("    at fn (file:1:2)"). */
const STACK_LINE = /^\s*at\s.+/m;

/**
 * The contract's error shape: `status`, a JSON body that is exactly
 * `{ error: <non-empty string>, code: <a catalog code whose status is status> }`, and
 * nothing that looks like a stack trace. Each of `expected` is either a pattern the
 * message must match or the exact code.
 */
export function expectError(r: Res, status: number, ...expected: Array<RegExp | ErrorCode>): void {
  expect(r.status, `${r.status} ${r.text}`).toBe(status);
  expect(r.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(r.body).toBeTypeOf('object');
  expect(Object.keys(r.body as object).sort()).toEqual(['code', 'error']);
  expect(r.body.error).toBeTypeOf('string');
  expect(r.body.error.length).toBeGreaterThan(0);
  expectCatalogCode(r.body.code, status);
  expect(r.text).not.toMatch(STACK_LINE);
  expect(r.text).not.toMatch(/node_modules|\.ts:\d+|\.js:\d+/);
  for (const e of expected) {
    if (typeof e === 'string') expect(r.body.code, r.text).toBe(e);
    else expect(r.body.error).toMatch(e);
  }
}

/** `code` is a code of the catalog, and the catalog gives it `status`. */
export function expectCatalogCode(code: unknown, status: number): void {
  expect(code).toBeTypeOf('string');
  expect(Object.keys(ERROR_CATALOG), `unknown code ${String(code)}`).toContain(code);
  expect(ERROR_CATALOG[code as ErrorCode].status, `status of ${String(code)}`).toBe(status);
}

/** A 429 as docs/api.md#rate-limits describes it: Retry-After, `{ error, code: 'rate_limited', retryAfter }` and the X-RateLimit-* headers. */
export function expectRateLimited(r: Res, limit: number, windowSeconds: number): void {
  expect(r.status, r.text).toBe(429);
  expect(r.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(Object.keys(r.body).sort()).toEqual(['code', 'error', 'retryAfter']);
  expect(r.body.code).toBe('rate_limited');
  expect(r.body.error).toBeTypeOf('string');
  expect(r.body.error.length).toBeGreaterThan(0);
  expect(r.body.retryAfter).toBeTypeOf('number');
  expect(r.body.retryAfter).toBeGreaterThan(0);
  expect(r.body.retryAfter).toBeLessThanOrEqual(windowSeconds);
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
  expectRateHeaders(r, limit, 0, windowSeconds);
}

/** X-RateLimit-Limit / -Remaining / -Reset-After (seconds, decimal) with the expected values. */
export function expectRateHeaders(r: Res, limit: number, remaining: number, windowSeconds: number): void {
  expect(r.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(r.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  const resetAfter = r.headers.get('x-ratelimit-reset-after') ?? '';
  expect(resetAfter).toMatch(/^\d+(\.\d+)?$/);
  expect(Number(resetAfter)).toBeGreaterThan(0);
  expect(Number(resetAfter)).toBeLessThanOrEqual(windowSeconds);
}

/** No X-RateLimit-* header at all (RATE_LIMITS=off). */
export function expectNoRateHeaders(r: Res): void {
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset-after', 'retry-after']) {
    expect(r.headers.get(h), h).toBeNull();
  }
}

/** A channel's history as `auth` sees it (newest first); fails the test unless it is a 200. */
export async function history(base: string, auth: string, channelId: string, query = 'limit=100'): Promise<any[]> {
  const r = await call(base, 'GET', `/channels/${channelId}/messages?${query}`, { auth });
  expect(r.status, r.text).toBe(200);
  expect(Array.isArray(r.body)).toBe(true);
  return r.body;
}

/**
 * Every row of every table of the server's database, as "table: {json}" lines. Goes
 * through the server's own store, so it reads SQLite and PostgreSQL alike.
 */
export async function dumpDatabase(srv: TestServer): Promise<string[]> {
  const db = srv.app.ctx.store.db;
  const rows: string[] = [];
  let tables = await db.introspection.getTables();
  // On PostgreSQL the introspection lists every schema's tables, other suites' running
  // beside this one included: keep this server's own (its search_path's first schema).
  if (tables.some((t) => t.schema !== undefined && t.schema !== 'main')) {
    const { rows: current } = await sql<{ s: string }>`select current_schema() as s`.execute(db);
    tables = tables.filter((t) => t.schema === current[0]?.s);
  }
  for (const table of tables) {
    const { rows: found } = await sql`select * from ${sql.table(table.name)}`.execute(db);
    for (const row of found) rows.push(`${table.name}: ${JSON.stringify(row)}`);
  }
  return rows;
}

/** The number of rows of one table of the server's database. */
export async function countRows(srv: TestServer, table: string): Promise<number> {
  const db = srv.app.ctx.store.db;
  const { rows } = await sql<{ n: string | number }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

import { PostgresDialect, sql } from 'kysely';
import type { DialectAdapter, FullText } from './types.js';

function pgCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
}

/** Node's socket errors: the server is not there, or went away mid-conversation. */
const SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * The server is unreachable, shutting down or out of connections: SQLSTATE class 08
 * (connection exception), 57P01-57P03 (admin or crash shutdown, cannot connect now),
 * 53300 (too many connections), a socket error, or `pg`'s own errors for a connection
 * that ended (they carry no code, only their words).
 */
function postgresUnavailable(err: unknown): boolean {
  const code = pgCode(err);
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return true;
  if (SOCKET_ERRORS.has(code)) return true;
  const message = err instanceof Error ? err.message : '';
  return /^Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect/.test(message);
}

/**
 * PostgreSQL through a `pg` pool; commits are durable with the server's default
 * synchronous_commit. `pg` is loaded here, on first use: an instance on SQLite never
 * has it resident.
 */
export async function postgresAdapter(databaseUrl: string): Promise<DialectAdapter> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  // An idle client's error (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Nor may a checked-out one's: the pool listens only to idle clients, so a connection cut
  // between two statements of a transaction (pg_terminate_backend, a failover) was an
  // uncaught 'error' event that ended the process. Its pending or next query fails and the
  // request answers 5xx; on release the pool drops the client, which is no longer queryable
  // (test/ops/database-outage.test.ts).
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return {
    name: 'postgresql',
    kysely: new PostgresDialect({ pool }),
    concurrentWriters: true,
    isUniqueViolation: (err) => pgCode(err) === '23505',
    isForeignKeyViolation: (err) => pgCode(err) === '23503',
    // 22021: invalid byte sequence (NUL), 22P05: untranslatable character.
    isInvalidText: (err) => pgCode(err) === '22021' || pgCode(err) === '22P05',
    isUnavailable: postgresUnavailable,
    joinIds: (column) => `string_agg(${column}::text, ',')`,
    fullText: postgresFullText,
    jsonRows: (table, json) => sql`json_populate_recordset(null::${sql.table(table)}, ${json}::json)`,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    currentSchema: async (db) => (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]!.schema,
  };
}

/** ASCII punctuation, each turned into a space before parsing (see `message_search_document`). */
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * A GIN index on `message_search_document(content)`: no stored column (which every
 * `select *` of messages would carry), and nothing to keep in step but the index itself.
 *
 * The document is a message's content under the `simple` configuration (lower case, no
 * stemming, no stop words), with ASCII punctuation made spaces first, so that PostgreSQL's
 * parser sees plain words as FTS5 does (it would otherwise keep `example.com/path`,
 * `a@b.com` or `foo-bar` whole). It is a function of ours, in PL/pgSQL so that it is never
 * inlined, because its declared cost is what the planner needs to know: with the bare
 * expression it took re-parsing a message for nearly free, and answered a search for a
 * moderately rare word by reading the newest messages one by one, parsing each (210 ms
 * where the index takes 20 ms on a million messages, bench/README.md).
 */
export const postgresFullText: FullText = {
  name: 'postgresql tsvector (GIN index messages_search)',
  async migrate(db) {
    await sql`create function message_search_document(content text) returns tsvector
      language plpgsql immutable strict parallel safe cost 1000 as $$
      begin
        return to_tsvector('simple'::regconfig, translate(content, ${sql.raw(quoted(PUNCTUATION))}, ${sql.raw(quoted(' '.repeat(PUNCTUATION.length)))}));
      end $$`.execute(db);
    // Building the index reads the messages already there.
    await sql`create index messages_search on messages using gin (message_search_document(content))`.execute(db);
  },
  // Filters stay conditions on `m` (the GIN index holds words only).
  match(terms) {
    if (terms.length === 0) return undefined;
    // Each term quoted (so never an operator), maybe a prefix (`:*`); all of them must match.
    const query = terms.map((t) => `'${t.word.replaceAll("'", "''").replaceAll('\\', '\\\\')}'${t.prefix ? ':*' : ''}`).join(' & ');
    return {
      from: sql`messages m`,
      where: sql<boolean>`message_search_document(m.content) @@ to_tsquery('simple'::regconfig, ${query})`,
      key: sql`m.id`,
    };
  },
  // A GIN index takes new rows into its pending list (`fastupdate`) and merges them in
  // bulk by itself.
  async deferIndexing() {},
  async indexFilters() {},
  async separateIndex() {},
  async indexBytes(db) {
    const { rows } = await sql<{ n: string | number }>`select pg_relation_size('messages_search') as n`.execute(db);
    return Number(rows[0]?.n ?? 0);
  },
};

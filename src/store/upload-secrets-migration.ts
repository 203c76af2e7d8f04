import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

/** Bytes of randomness in an upload's URL secret: 256 bits, 43 base64url characters, the shape of every secret the log scrubber removes (src/http/log-redaction.ts). */
export const UPLOAD_SECRET_BYTES = 32;

/** A fresh URL secret for an upload (docs/security.md, "Files"). */
export const newUploadSecret = (): string => randomBytes(UPLOAD_SECRET_BYTES).toString('base64url');

/** `<prefix>/uploads/<id>/<name>` as earlier versions wrote it (the name one segment, nothing after it). */
const OLD_UPLOAD_URL = /\/uploads\/([0-9]{1,19})\/([^/?#]+)$/;

const PAGE = 500;

/**
 * 0016: every upload gets a URL secret (docs/security.md#files-are-for-those-who-may-see-them), and the links already
 * handed out are rewritten to carry it, so they keep working: messages' attachments and
 * author avatars, people's and bots' avatars, server icons and webhook avatars. The old
 * shape is not served any more: it is guessable from the id alone. `claimed` records that
 * something referenced the upload once: a claimed upload nothing references any more is
 * not served (docs/security.md). A server icon that is an upload is linked, as avatars are
 * (0006), so it counts as a reference.
 */
export async function migrateToUploadSecrets(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('uploads').addColumn('secret', 'text').execute();
  await db.schema
    .alterTable('uploads')
    .addColumn('claimed', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('servers')
    .addColumn('icon_upload_id', 'bigint', (c) => c.references('uploads.id'))
    .execute();
  // Quotas sum a caller's uploads; the sweep asks which icons use an upload.
  await db.schema.createIndex('uploads_uploader').on('uploads').column('uploader_id').execute();
  await db.schema.createIndex('servers_icon_upload').on('servers').column('icon_upload_id').execute();

  // One secret per existing upload, paged by id.
  let after: string | null = null;
  for (;;) {
    let q = db.selectFrom('uploads').select('id').orderBy('id').limit(PAGE);
    if (after !== null) q = q.where('id', '>', after);
    const rows: Array<{ id: string | number | bigint }> = await q.execute();
    if (rows.length === 0) break;
    after = String(rows[rows.length - 1]!.id);
    for (const r of rows) await db.updateTable('uploads').set({ secret: newUploadSecret() }).where('id', '=', r.id).execute();
  }

  /** The secrets of the uploads `urls` name (old shape), by id. */
  const secretsOf = async (urls: Array<string | null | undefined>): Promise<Map<string, string>> => {
    const ids = [...new Set(urls.flatMap((u) => (u ? (OLD_UPLOAD_URL.exec(u)?.[1] ?? []) : [])))];
    if (ids.length === 0) return new Map();
    const found: Array<{ id: unknown; secret: string }> = await db
      .selectFrom('uploads')
      .select(['id', 'secret'])
      .where('id', 'in', ids)
      .execute();
    return new Map(found.map((u) => [String(u.id), u.secret]));
  };
  const rewrite = (url: string | null | undefined, secrets: Map<string, string>): string | null | undefined => {
    const m = url ? OLD_UPLOAD_URL.exec(url) : null;
    const secret = m && secrets.get(m[1]!);
    return m && secret ? `${url!.slice(0, m.index)}/uploads/${m[1]}/${secret}/${m[2]}` : url;
  };

  // Messages: attachments and the author's avatar as it was when they posted.
  let lastMessage: string | null = null;
  for (;;) {
    let q = db
      .selectFrom('messages')
      .select(['id', 'attachments', 'author_avatar as avatar'])
      .where((eb) => eb.or([eb('attachments', '<>', '[]'), eb('author_avatar', 'like', '%/uploads/%')]))
      .orderBy('id')
      .limit(PAGE);
    if (lastMessage !== null) q = q.where('id', '>', lastMessage);
    const rows: Array<{ id: unknown; attachments: string; avatar: string | null }> = await q.execute();
    if (rows.length === 0) break;
    lastMessage = String(rows[rows.length - 1]!.id);
    const parsed = rows.map((r) => ({ row: r, list: parseList(r.attachments) }));
    const secrets = await secretsOf(parsed.flatMap((p) => [p.row.avatar, ...p.list.map((a) => a.url)]));
    if (secrets.size === 0) continue;
    for (const { row, list } of parsed) {
      let changed = false;
      for (const a of list) {
        const next = rewrite(a.url, secrets);
        if (next !== a.url) {
          a.url = next as string;
          changed = true;
        }
      }
      const avatar = rewrite(row.avatar, secrets);
      if (changed || avatar !== row.avatar)
        await db
          .updateTable('messages')
          .set({ ...(changed ? { attachments: JSON.stringify(list) } : {}), author_avatar: avatar ?? null })
          .where('id', '=', row.id)
          .execute();
    }
  }

  // Avatars, icons and webhook avatars: few rows next to messages, read whole.
  for (const [table, column] of [
    ['users', 'avatar'],
    ['servers', 'icon'],
    ['webhooks', 'avatar'],
  ] as const) {
    const rows: Array<{ id: unknown; url: string }> = await db
      .selectFrom(table)
      .select(['id', `${column} as url`])
      .where(column, 'like', '%/uploads/%')
      .execute();
    const secrets = await secretsOf(rows.map((r) => r.url));
    for (const r of rows) {
      const next = rewrite(r.url, secrets);
      if (next !== r.url)
        await db
          .updateTable(table)
          .set({ [column]: next })
          .where('id', '=', r.id)
          .execute();
      if (table === 'servers' && next !== r.url) {
        const id = OLD_UPLOAD_URL.exec(r.url)![1]!;
        await db.updateTable('servers').set({ icon_upload_id: id }).where('id', '=', r.id).execute();
      }
    }
  }

  // What something references now has been claimed.
  await sql`update uploads set claimed = 1 where exists (select 1 from message_attachments m where m.upload_id = uploads.id)
    or exists (select 1 from users u where u.avatar_upload_id = uploads.id)
    or exists (select 1 from servers s where s.icon_upload_id = uploads.id)`.execute(db);
}

function parseList(json: string): Array<{ url: string }> {
  try {
    const list: unknown = JSON.parse(json);
    return Array.isArray(list) ? list.filter((a): a is { url: string } => typeof (a as { url?: unknown } | null)?.url === 'string') : [];
  } catch {
    return [];
  }
}

import { Store } from '../src/store/index.ts';
import { sql } from 'kysely';
const s = await Store.open({ dataDir: '/tmp/ddl-db-' + Date.now() });
const r = await sql<any>`select type, name, sql from sqlite_master where tbl_name in ('channels') or sql like '%channels%'`.execute(s.db);
for (const row of r.rows) console.log(row.type, row.name, '\n ', row.sql);
process.exit(0);

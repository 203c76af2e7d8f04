// Fails (exit 1) unless PostgreSQL at DATABASE_URL and Redis at REDIS_URL answer.
// CI runs this first so a missing service is a failure, never a silently skipped suite.
import net from 'node:net';
import pg from 'pg';

const problems = [];
const dbUrl = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL;
if (!dbUrl) problems.push('DATABASE_URL is not set');
if (!redisUrl) problems.push('REDIS_URL is not set');

if (dbUrl) {
  const client = new pg.Client({ connectionString: dbUrl, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (err) {
    problems.push(`PostgreSQL at ${dbUrl} is unreachable: ${err.message}`);
  } finally {
    await client.end().catch(() => {});
  }
}

if (redisUrl) {
  const u = new URL(redisUrl);
  const reply = await new Promise((resolve) => {
    const sock = net.connect({ host: u.hostname, port: Number(u.port || 6379) });
    sock.setTimeout(5000, () => {
      sock.destroy();
      resolve('timeout');
    });
    sock.on('error', (e) => resolve(e.message));
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => {
      sock.end();
      resolve(d.toString().trim());
    });
  });
  if (reply !== '+PONG') problems.push(`Redis at ${redisUrl} did not answer PING (${reply})`);
}

if (problems.length) {
  console.error(`services missing:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('PostgreSQL and Redis are reachable');

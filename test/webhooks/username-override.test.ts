/**
 * The per-message `username` override of webhook executions (Discord's `username`,
 * Slack's `username`), over HTTP: characters that disguise a name are removed, the rest
 * trimmed and held to 80 characters, and the webhook's own name stands in when nothing
 * is left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createWebhook, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';

let srv: TestServer;
let w: Awaited<ReturnType<typeof world>>;
let hookPath: string;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  w = await world(srv.url);
  const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Integrations');
  hookPath = new URL(hook.url).pathname;
});
afterAll(() => srv?.close());

/** The author name a Discord-body execution with `username` is shown under. */
async function viaDiscord(username: string): Promise<string> {
  const r = await call(srv.url, 'POST', hookPath, { body: { content: 'hello', username } });
  expect(r.status, r.text).toBe(200);
  return r.body.author.name;
}

/** The author name a Slack-body execution with `username` is shown under (Slack answers only "ok"). */
async function viaSlack(username: string): Promise<string> {
  const text = `slack ${Math.random()}`;
  const r = await call(srv.url, 'POST', `${hookPath}/slack`, { body: { text, username } });
  expect(r.status, r.text).toBe(200);
  const page = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages?limit=20`, { auth: w.owner.auth });
  const message = (page.body as Array<{ content: string; author: { name: string } }>).find((m) => m.content === text);
  expect(message, 'the Slack message in the channel').toBeDefined();
  return message!.author.name;
}

const CASES: Array<[string, string, string]> = [
  ['a right-to-left override', 'invoice\u202Efdp.exe', 'invoicefdp.exe'],
  ['bidi isolates and marks', '\u2066Admin\u2069\u200F', 'Admin'],
  ['control characters and a line break', 'Deploy\u0007\u001b[31m bot\nprod', 'Deploy[31m botprod'],
  ['zero-width spaces around the name', '\u200B CI \uFEFF', 'CI'],
  ['nothing but disguising characters', '\u202E\u200B\u2066\u0007', 'Integrations'],
  ['only spaces once cleaned', ' \u202E \u200B ', 'Integrations'],
  ['an emoji ZWJ sequence (kept)', 'Ops 👩‍💻', 'Ops 👩‍💻'],
];

describe.each([
  ['Discord', viaDiscord],
  ['Slack', viaSlack],
] as const)('%s dialect: username override', (_dialect, send) => {
  for (const [label, username, shown] of CASES) {
    it(`${label}: shown as ${JSON.stringify(shown)}`, async () => {
      expect(await send(username)).toBe(shown);
    });
  }
});

describe('80 characters at most', () => {
  it('Discord: 80 is accepted, 81 is a 400 (as Discord answers)', async () => {
    expect(await viaDiscord('d'.repeat(80))).toBe('d'.repeat(80));
    const r = await call(srv.url, 'POST', hookPath, { body: { content: 'too long', username: 'd'.repeat(81) } });
    expect(r.status, r.text).toBe(400);
    expect(r.body.error).toMatch(/username/);
  });

  it('Slack: a longer name is cut to 80 (as Slack cuts), and the cut keeps no disguising character', async () => {
    expect([...(await viaSlack('s'.repeat(120)))].length).toBe(80);
    const shown = await viaSlack(Array.from({ length: 60 }, () => 'ab\u202E').join(''));
    expect([...shown].length).toBeLessThanOrEqual(80);
    expect(shown).toMatch(/^(ab)+a?…$/);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDiscordPayload } from '../../src/webhooks/discord.js';
import { parseGithubEvent } from '../../src/webhooks/github.js';
import { parseSlackForm, parseSlackPayload } from '../../src/webhooks/slack.js';
import { call, createWebhook, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';

const FIXTURES = path.join(import.meta.dirname, '../../src/webhooks/fixtures');
const fixtures = (dialect: string) =>
  fs
    .readdirSync(path.join(FIXTURES, dialect))
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ name: f.replace(/\.json$/, ''), body: JSON.parse(fs.readFileSync(path.join(FIXTURES, dialect, f), 'utf8')) }));

let srv: TestServer;
let w: Awaited<ReturnType<typeof world>>;
let hookPath: string;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  w = await world(srv.url);
  const hook = await createWebhook(srv.url, w.owner, w.server.id, w.channel.id, 'Integrations');
  hookPath = new URL(hook.url).pathname;
});
afterAll(() => srv.close());

async function latest() {
  const r = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages?limit=1`, { auth: w.owner.auth });
  return r.body[0];
}

describe('Discord dialect over HTTP: one test per fixture', () => {
  for (const f of fixtures('discord')) {
    it(f.name, async () => {
      const r = await call(srv.url, 'POST', hookPath, { body: f.body });
      expect(r.status).toBe(200);
      const expected = parseDiscordPayload(f.body);
      expect(r.body.webhookId).toBeTruthy();
      expect(r.body.author.bot).toBe(true);
      expect(r.body.author.name).toBe(expected.username ?? 'Integrations');
      expect(r.body.content).toBe(expected.content);
      expect(r.body.embeds).toEqual(JSON.parse(JSON.stringify(expected.embeds)));
      expect((await latest()).id).toBe(r.body.id);
    });
  }
});

describe('Slack dialect over HTTP: one test per fixture', () => {
  for (const f of fixtures('slack')) {
    it(f.name, async () => {
      const isForm = typeof f.body.payload === 'string';
      const r = isForm
        ? await call(srv.url, 'POST', `${hookPath}/slack`, {
            raw: new URLSearchParams(f.body).toString(),
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          })
        : await call(srv.url, 'POST', `${hookPath}/slack`, { body: f.body });
      expect(r.status).toBe(200);
      expect(r.text).toBe('ok');
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
      const expected = isForm ? parseSlackForm(f.body) : parseSlackPayload(f.body);
      const m = await latest();
      expect(m.content).toBe(expected.content);
      expect(m.embeds).toEqual(JSON.parse(JSON.stringify(expected.embeds)));
      expect(m.author.name).toBe(expected.username ?? 'Integrations');
    });
  }
});

describe('GitHub dialect over HTTP: one test per fixture', () => {
  for (const f of fixtures('github')) {
    const event = f.name.split('-')[0]!;
    it(f.name, async () => {
      const before = await latest();
      const r = await call(srv.url, 'POST', `${hookPath}/github`, { body: f.body, headers: { 'x-github-event': event } });
      const expected = parseGithubEvent(event, f.body);
      if (expected === null) {
        expect(r.status).toBe(204);
        expect((await latest()).id).toBe(before.id);
        return;
      }
      expect(r.status).toBe(200);
      expect(r.body.content).toBe(expected.content);
      expect(r.body.content).toMatch(/https:\/\/github\.com\//);
      expect((await latest()).id).toBe(r.body.id);
    });
  }

  it('an event Parley does not render is 204 and posts nothing', async () => {
    const before = await latest();
    const r = await call(srv.url, 'POST', `${hookPath}/github`, { body: { zen: 'x' }, headers: { 'x-github-event': 'star' } });
    expect(r.status).toBe(204);
    expect((await latest()).id).toBe(before.id);
  });

  it('a missing X-GitHub-Event header is a 400', async () => {
    const r = await call(srv.url, 'POST', `${hookPath}/github`, { body: { zen: 'x' } });
    expect(r.status).toBe(400);
    expect(typeof r.body.error).toBe('string');
  });
});

describe('Discord specifics', () => {
  it('multipart with payload_json and files: files become attachments, attachment:// resolves in embeds', async () => {
    const form = new FormData();
    form.append(
      'payload_json',
      JSON.stringify({ content: 'with files', embeds: [{ title: 'chart', image: { url: 'attachment://chart.png' } }] }),
    );
    form.append('files[0]', new Blob([Buffer.from([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), 'chart.png');
    form.append('files[1]', new Blob(['log line\n'], { type: 'text/plain' }), 'build.log');
    const r = await call(srv.url, 'POST', hookPath, { raw: form });
    expect(r.status).toBe(200);
    expect(r.body.attachments.map((a: { filename: string }) => a.filename)).toEqual(['chart.png', 'build.log']);
    expect(r.body.attachments[0].url).toMatch(new RegExp(`^${srv.url}/uploads/`));
    expect(r.body.embeds[0].image.url).toBe(r.body.attachments[0].url);
    const file = await fetch(r.body.attachments[1].url);
    expect(await file.text()).toBe('log line\n');
  });

  it('multipart with only a file and no content is accepted', async () => {
    const form = new FormData();
    form.append('file', new Blob(['x']), 'x.txt');
    const r = await call(srv.url, 'POST', hookPath, { raw: form });
    expect(r.status).toBe(200);
    expect(r.body.content).toBe('');
    expect(r.body.attachments).toHaveLength(1);
  });

  it('a form with no payload and no file is a 400 and posts nothing', async () => {
    const before = await latest();
    const form = new FormData();
    form.append('unrelated', 'x');
    const r = await call(srv.url, 'POST', hookPath, { raw: form });
    expect(r.status).toBe(400);
    expect((await latest()).id).toBe(before.id);
  });

  it('malformed multipart is a 400, not a 500', async () => {
    const r = await call(srv.url, 'POST', hookPath, {
      raw: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\ntrunc',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
    });
    expect(r.status).toBe(400);
    expect(typeof r.body.error).toBe('string');
  });

  it('files sent with an invalid payload_json are discarded with the 400', async () => {
    const fs = await import('node:fs');
    const stored = () => (fs.existsSync(`${srv.dataDir}/uploads`) ? fs.readdirSync(`${srv.dataDir}/uploads`).length : 0);
    const before = stored();
    const form = new FormData();
    form.append('files[0]', new Blob(['orphan']), 'orphan.txt');
    form.append('payload_json', '{"embeds": "not an array"}');
    const r = await call(srv.url, 'POST', hookPath, { raw: form });
    expect(r.status).toBe(400);
    expect(stored()).toBe(before);
  });

  it('?wait=false answers 204 and still posts', async () => {
    const r = await call(srv.url, 'POST', `${hookPath}?wait=false`, { body: { content: 'no wait' } });
    expect(r.status).toBe(204);
    expect((await latest()).content).toBe('no wait');
  });

  it('username and avatar_url override the author for that message only; the BOT badge and webhookId stay', async () => {
    const r = await call(srv.url, 'POST', hookPath, {
      body: { content: 'hi', username: 'Deployer', avatar_url: 'https://example.com/a.png' },
    });
    expect(r.body.author).toMatchObject({ name: 'Deployer', bot: true, avatar: 'https://example.com/a.png' });
    expect(r.body.webhookId).toBeTruthy();
    const next = await call(srv.url, 'POST', hookPath, { body: { content: 'again' } });
    expect(next.body.author.name).toBe('Integrations');
  });

  it('oversized embeds, too many embeds and wrong types are 400s that post nothing', async () => {
    const before = await latest();
    const bad = [
      { embeds: [{ title: 'x'.repeat(257) }] },
      { embeds: Array.from({ length: 11 }, () => ({ title: 't' })) },
      { embeds: [{ description: 'd'.repeat(4096) }, { description: 'd'.repeat(2000) }] },
      { content: 5 },
      { embeds: 'nope' },
      { embeds: [{ fields: [{ name: 'n' }] }] },
    ];
    for (const body of bad) {
      const r = await call(srv.url, 'POST', hookPath, { body });
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(typeof r.body.error).toBe('string');
    }
    expect((await latest()).id).toBe(before.id);
  });

  it('GET returns the webhook without its token', async () => {
    const r = await call(srv.url, 'GET', hookPath);
    expect(r.status).toBe(200);
    expect(r.body.name).toBe('Integrations');
    expect(r.body.token).toBeUndefined();
    expect(JSON.stringify(r.body)).not.toContain(hookPath.split('/')[3]);
  });

  it('Slack Block Kit rich_text is accepted and rendered, blocks in their order', async () => {
    const r = await call(srv.url, 'POST', `${hookPath}/slack`, {
      body: {
        text: 'fallback for notifications',
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: 'Release 1.2' } },
          {
            type: 'rich_text',
            elements: [
              { type: 'rich_text_section', elements: [{ type: 'text', text: 'shipped', style: { bold: true } }] },
              {
                type: 'rich_text_list',
                style: 'bullet',
                elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'faster search' }] }],
              },
            ],
          },
          { type: 'context', elements: [{ type: 'mrkdwn', text: 'by _release-bot_' }] },
        ],
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.text).toBe('ok');
    const page = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages?limit=1`, { auth: w.owner.auth });
    expect(page.body[0].content).toBe('**Release 1.2**\n**shipped**\n- faster search\nby *release-bot*');
  });

  it('a Slack form with no payload is a 400', async () => {
    const r = await call(srv.url, 'POST', `${hookPath}/slack`, {
      raw: 'text=hello',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(400);
  });
});

describe('Idempotency-Key across dialects', () => {
  it('concurrent duplicates with one key create exactly one message', async () => {
    const key = `deploy-${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        call(srv.url, 'POST', hookPath, { body: { content: `once ${key}` }, headers: { 'idempotency-key': key } }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    const page = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages?limit=100`, { auth: w.owner.auth });
    expect(page.body.filter((m: { content: string }) => m.content === `once ${key}`)).toHaveLength(1);
  });

  it('a Slack retry with the same key answers ok and posts once', async () => {
    const key = `slack-${Date.now()}`;
    const send = () => call(srv.url, 'POST', `${hookPath}/slack`, { body: { text: `slack ${key}` }, headers: { 'idempotency-key': key } });
    expect((await send()).text).toBe('ok');
    expect((await send()).text).toBe('ok');
    const page = await call(srv.url, 'GET', `/channels/${w.channel.id}/messages?limit=20`, { auth: w.owner.auth });
    expect(page.body.filter((m: { content: string }) => m.content === `slack ${key}`)).toHaveLength(1);
  });
});

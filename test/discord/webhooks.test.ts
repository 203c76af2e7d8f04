/**
 * Discord webhook tools on Parley: discord.js's `WebhookClient` and discord-webhook-node,
 * given only the Discord-style URL `base/api/webhooks/{id}/{token}`; and what a token
 * alone may not do.
 */
// discord.js's own DiscordAPIError (its copy of @discordjs/rest).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AttachmentBuilder, DiscordAPIError, EmbedBuilder, WebhookClient } from 'discord.js';
import { MessageBuilder, Webhook } from 'discord-webhook-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createServer, createWebhook, postMessage, registerUser, type TestUser } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';

let srv: TestServer;
let owner: TestUser;
let channelId: string;
let hook: { id: string; token: string; url: string };
let client: WebhookClient;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  owner = await registerUser(srv.url);
  const created = await createServer(srv.url, owner, 'Hooks');
  channelId = created.general.id;
  hook = await createWebhook(srv.url, owner, created.server.id, channelId, 'Alerts');
  client = new WebhookClient({ id: hook.id, token: hook.token }, { rest: { api: `${srv.url}/api` } });
});
afterAll(async () => {
  client?.destroy();
  await srv?.close();
});

/** The channel's newest message, read natively. */
async function newest() {
  const r = await call(srv.url, 'GET', `/channels/${channelId}/messages?limit=1`, { auth: owner.auth });
  return r.body[0];
}

describe("discord.js's WebhookClient", () => {
  it('sends, fetches, edits and deletes its message', async () => {
    const sent = await client.send({ content: 'deploy started', username: 'CI' });
    expect(sent).toMatchObject({
      content: 'deploy started',
      webhook_id: hook.id,
      channel_id: channelId,
      author: { username: 'CI', bot: true },
    });
    const fetched = await client.fetchMessage(sent.id);
    expect(fetched.content).toBe('deploy started');
    const edited = await client.editMessage(sent.id, {
      content: 'deploy finished',
      embeds: [new EmbedBuilder().setTitle('OK').setColor(0x00ff00)],
    });
    expect(edited.content).toBe('deploy finished');
    expect(edited.embeds).toEqual([{ type: 'rich', title: 'OK', color: 0x00ff00 }]);
    expect((await newest()).content).toBe('deploy finished');
    await client.deleteMessage(sent.id);
    const gone = await client.fetchMessage(sent.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(DiscordAPIError);
    expect((gone as DiscordAPIError).code).toBe(10008);
  });

  it('sends embeds and files', async () => {
    const sent = await client.send({
      embeds: [new EmbedBuilder().setTitle('Report').setDescription('see attached').setImage('attachment://chart.png')],
      files: [new AttachmentBuilder(Buffer.from([0x89, 0x50, 0x4e, 0x47]), { name: 'chart.png' })],
    });
    expect(sent.attachments.map((a) => a.filename)).toEqual(['chart.png']);
    expect(sent.embeds[0]?.image?.url).toBe(sent.attachments[0]!.url);
  });

  it('cannot reach messages it did not post', async () => {
    const other = await postMessage(srv.url, owner.auth, channelId, 'a person wrote this');
    const err = (await client.fetchMessage(other.id).catch((e: unknown) => e)) as DiscordAPIError;
    expect([err.status, err.code]).toEqual([404, 10008]);
    const edit = (await client.editMessage(other.id, { content: 'hijack' }).catch((e: unknown) => e)) as DiscordAPIError;
    expect([edit.status, edit.code]).toEqual([404, 10008]);
  });

  it('a wrong token is Unknown Webhook (10015)', async () => {
    const wrong = new WebhookClient({ id: hook.id, token: 'x'.repeat(43) }, { rest: { api: `${srv.url}/api` } });
    const err = (await wrong.send('nope').catch((e: unknown) => e)) as DiscordAPIError;
    wrong.destroy();
    expect(err).toBeInstanceOf(DiscordAPIError);
    expect([err.status, err.code]).toEqual([404, 10015]);
  });
});

describe('discord-webhook-node on the pasted Discord-style URL', () => {
  it('sends text and an embed (Discord answers 204, which it insists on)', async () => {
    const url = `${srv.url}/api/webhooks/${hook.id}/${hook.token}`;
    const webhook = new Webhook(url);
    webhook.setUsername('Uptime');
    await webhook.send('site is up');
    expect(await newest()).toMatchObject({ content: 'site is up', webhookId: hook.id, author: { name: 'Uptime' } });
    const embed = new MessageBuilder()
      .setTitle('Incident resolved')
      .setDescription('All systems normal')
      .setColor(0x2ecc71)
      .addField('Region', 'eu-west', true)
      .setFooter('statusbot');
    await webhook.send(embed);
    const m = await newest();
    expect(m.embeds[0]).toMatchObject({
      title: 'Incident resolved',
      description: 'All systems normal',
      color: 0x2ecc71,
      fields: [{ name: 'Region', value: 'eu-west', inline: true }],
      footer: { text: 'statusbot' },
    });
  });

  it('sendFile resolves (Discord answers 200 with the message when files are sent) and posts the file once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dwn-'));
    const file = path.join(dir, 'report.txt');
    fs.writeFileSync(file, 'all green');
    try {
      for (const url of [`${srv.url}/api/webhooks/${hook.id}/${hook.token}`, `${srv.url}/webhooks/${hook.id}/${hook.token}?wait=false`]) {
        const webhook = new Webhook(url);
        webhook.setUsername('Reporter');
        await webhook.sendFile(file);
        const m = await newest();
        expect(m).toMatchObject({ webhookId: hook.id, author: { name: 'Reporter' } });
        expect(m.attachments.map((a: { filename: string; size: number }) => [a.filename, a.size])).toEqual([['report.txt', 9]]);
        const bytes = await fetch(m.attachments[0].url);
        expect(await bytes.text()).toBe('all green');
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // Files answer the message; without files, 204 as before (send() insists on it).
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content: 'with a file' }));
    form.append('files[0]', new Blob(['x']), 'x.txt');
    const r = await fetch(`${srv.url}/api/webhooks/${hook.id}/${hook.token}`, { method: 'POST', body: form });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(await r.json()).toMatchObject({ content: 'with a file', webhook_id: hook.id, attachments: [{ filename: 'x.txt', size: 1 }] });
  });

  it('setAvatar, an embed with link, image and timestamp, and a wrong token that throws (nothing posted)', async () => {
    const webhook = new Webhook(`${srv.url}/api/webhooks/${hook.id}/${hook.token}`);
    webhook.setUsername('Grafana');
    webhook.setAvatar('https://example.com/grafana.png');
    const at = new Date('2026-01-02T03:04:05.000Z');
    await webhook.send(
      new MessageBuilder()
        .setText('alert firing')
        .setTitle('CPU high')
        .setURL('https://grafana.example.com/d/1')
        .setImage('https://grafana.example.com/render/1.png')
        .setTimestamp(at),
    );
    const m = await newest();
    expect(m).toMatchObject({ content: 'alert firing', author: { name: 'Grafana', avatar: 'https://example.com/grafana.png' } });
    expect(m.embeds[0]).toMatchObject({
      title: 'CPU high',
      url: 'https://grafana.example.com/d/1',
      image: { url: 'https://grafana.example.com/render/1.png' },
      timestamp: at.toISOString(),
    });
    const wrong = new Webhook(`${srv.url}/api/webhooks/${hook.id}/not-the-token`);
    await expect(wrong.send('nope')).rejects.toThrow();
    expect((await newest()).id).toBe(m.id);
  });

  it('the versioned URL works too', async () => {
    await new Webhook(`${srv.url}/api/v10/webhooks/${hook.id}/${hook.token}`).send('via v10');
    expect((await newest()).content).toBe('via v10');
  });
});

describe('the webhook URL as a credential', () => {
  it('execute answers 204 without wait, the Discord message with wait=true', async () => {
    const plain = await call(srv.url, 'POST', `/api/webhooks/${hook.id}/${hook.token}`, { body: { content: 'no wait' } });
    expect(plain.status).toBe(204);
    const waited = await call(srv.url, 'POST', `/api/webhooks/${hook.id}/${hook.token}?wait=true`, { body: { content: 'wait' } });
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({ content: 'wait', webhook_id: hook.id, channel_id: channelId });
    // The native URL keeps the seed format's answer (docs/webhooks.md#1-the-seed-format): 200 with the native message.
    const seed = await call(srv.url, 'POST', `/webhooks/${hook.id}/${hook.token}`, { body: { content: 'seed' } });
    expect(seed.status).toBe(200);
    expect(seed.body).toMatchObject({ content: 'seed', webhookId: hook.id });
  });

  it('GET answers the webhook, Discord-shaped, without its token (a secret is shown once)', async () => {
    const r = await call(srv.url, 'GET', `/api/webhooks/${hook.id}/${hook.token}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: hook.id, type: 1, channel_id: channelId, name: 'Alerts' });
    expect(r.text).not.toContain(hook.token);
  });

  it('renaming or deleting with only the token is 403 / 50013; a wrong token 404 / 10015', async () => {
    for (const method of ['PATCH', 'DELETE']) {
      const r = await call(srv.url, method, `/api/webhooks/${hook.id}/${hook.token}`, { body: { name: 'pwned' } });
      expect(r.status, r.text).toBe(403);
      expect(r.body.code).toBe(50013);
      const wrong = await call(srv.url, method, `/api/webhooks/${hook.id}/${'y'.repeat(43)}`, { body: { name: 'pwned' } });
      expect(wrong.status).toBe(404);
      expect(wrong.body.code).toBe(10015);
    }
    const still = await call(srv.url, 'GET', `/api/webhooks/${hook.id}/${hook.token}`);
    expect(still.body.name).toBe('Alerts');
  });

  it('an id that is no webhook (an interaction path) is Unknown Webhook for now', async () => {
    for (const [method, path] of [
      ['POST', '/api/webhooks/1234567890123456789/sometoken'],
      ['GET', '/api/webhooks/1234567890123456789/sometoken/messages/@original'],
      ['PATCH', `/api/webhooks/${hook.id}/${hook.token}/messages/@original`],
    ] as const) {
      const r = await call(srv.url, method, path, method === 'GET' ? {} : { body: { content: 'x' } });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.code).toBe(10015);
    }
  });

  it("the seed's own path serves a webhook's messages too", async () => {
    const seed = await call(srv.url, 'POST', `/webhooks/${hook.id}/${hook.token}`, { body: { content: 'seed path' } });
    const base = `/webhooks/${hook.id}/${hook.token}/messages/${seed.body.id}`;
    expect((await call(srv.url, 'GET', base)).body.content).toBe('seed path');
    expect((await call(srv.url, 'PATCH', base, { body: { content: 'seed edited' } })).body.content).toBe('seed edited');
    expect((await call(srv.url, 'DELETE', base)).status).toBe(204);
    expect((await call(srv.url, 'GET', base)).status).toBe(404);
  });
});

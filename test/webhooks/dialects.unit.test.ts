import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { AppError, type ErrorCode } from '../../src/errors.js';
import {
  attachmentRefs,
  parseDiscordForm,
  parseDiscordPayload,
  renderDiscordTimestamps,
  resolveAttachmentRefs,
} from '../../src/webhooks/discord.js';
import { parseGithubEvent, parseGithubForm } from '../../src/webhooks/github.js';
import { flattenPost, renderEmbedsMarkdown } from '../../src/webhooks/render.js';
import { parseSlackForm, parseSlackPayload, slackColor, slackToMarkdown } from '../../src/webhooks/slack.js';
import { normalizeTimestamp, validateEmbeds } from '../../src/webhooks/types.js';
import type { Embed, WebhookPost } from '../../src/webhooks/types.js';

type Json = Record<string, unknown>;

function fixture(dialect: 'discord' | 'slack' | 'github', name: string): Json {
  const url = new URL(`../../src/webhooks/fixtures/${dialect}/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as Json;
}

/** Asserts `fn` throws a 400 AppError with `code` whose message contains `message`. */
function expect400(fn: () => unknown, message: string, code: ErrorCode = 'invalid_body'): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected a 400 containing "${message}"`).toBeInstanceOf(AppError);
  const err = caught as AppError;
  expect(err.status).toBe(400);
  expect(err.code).toBe(code);
  expect(err.message).toContain(message);
}

function notNull(p: WebhookPost | null): WebhookPost {
  expect(p).not.toBeNull();
  return p as WebhookPost;
}

function first(embeds: Embed[]): Embed {
  expect(embeds.length).toBeGreaterThan(0);
  return embeds[0] as Embed;
}

const longString = (n: number, ch = 'a') => ch.repeat(n);

describe('Discord dialect: fixtures', () => {
  it('seed-content: the seed body {content} posts as-is', () => {
    const p = parseDiscordPayload(fixture('discord', 'seed-content'));
    expect(p).toEqual({ content: 'Deploy finished: **v1.4.2** is live on production', embeds: [] });
  });

  it('grafana-firing: content, username and one cleaned rich embed', () => {
    const p = parseDiscordPayload(fixture('discord', 'grafana-firing'));
    expect(p.username).toBe('Grafana');
    expect(p.content).toContain('**Firing**');
    expect(p.content).toContain(' - alertname = HighCPU');
    expect(p.embeds).toEqual([
      {
        title: '[FIRING:1] HighCPU (web-1)',
        url: 'http://grafana.example.com/alerting/list',
        color: 0xd63232,
        footer: { text: 'Grafana v11.2.0', icon_url: 'https://grafana.com/static/assets/img/fav32.png' },
      },
    ]);
    // Discord's "type": "rich" is not one of our keys.
    expect(first(p.embeds)).not.toHaveProperty('type');
  });

  it('grafana-image-payload_json: attachment:// image refs survive and resolve to uploaded URLs', () => {
    const p = parseDiscordPayload(fixture('discord', 'grafana-image-payload_json'), { hasFiles: true });
    expect(p.avatarUrl).toBe('https://grafana.com/static/assets/img/fav32.png');
    expect(p.embeds).toHaveLength(2);
    expect(p.embeds[1]).toEqual({ title: 'HighCPU', color: 0xd63232, image: { url: 'attachment://panel-efgh.png' } });
    expect(attachmentRefs(p.embeds)).toEqual(['panel-efgh.png']);

    const resolved = resolveAttachmentRefs(p.embeds, new Map([['panel-efgh.png', 'http://localhost:8080/uploads/01J/panel-efgh.png']]));
    expect(resolved[1]?.image).toEqual({ url: 'http://localhost:8080/uploads/01J/panel-efgh.png' });
    // A reference to a file that was not uploaded is dropped.
    expect(resolveAttachmentRefs(p.embeds, new Map())[1]).toEqual({ title: 'HighCPU', color: 0xd63232 });
  });

  it('grafana-image-payload_json: arrives as the payload_json field of a multipart form', () => {
    const raw = JSON.stringify(fixture('discord', 'grafana-image-payload_json'));
    const p = parseDiscordForm({ payload_json: raw }, { hasFiles: true });
    expect(p.username).toBe('Grafana');
    expect(p.embeds[0]?.title).toBe('[FIRING:1] HighCPU (web-1)');
  });

  it('uptime-kuma-down: embed-only message, Discord timestamps rendered, zone-less timestamp read as UTC', () => {
    const p = parseDiscordPayload(fixture('discord', 'uptime-kuma-down'));
    expect(p.content).toBe('');
    expect(p.username).toBe('Uptime Kuma');
    const e = first(p.embeds);
    expect(e.title).toBe('❌ Your service My Website went down. ❌');
    expect(e.color).toBe(0xff0000);
    expect(e.timestamp).toBe('2024-05-01T12:00:00.000Z');
    expect(e.fields?.map((f) => f.name)).toEqual(['Service Name', 'Service URL', 'Went Offline', 'Time (Europe/Berlin)', 'Error']);
    expect(e.fields?.[2]?.value).toBe('2024-05-01 12:00 UTC');
    expect(e.fields?.[4]?.value).toBe('Request failed with status code 503');
  });

  it('uptime-kuma-up: prefix content, avatar override, flags ignored', () => {
    const p = parseDiscordPayload(fixture('discord', 'uptime-kuma-up'));
    expect(p.content).toBe('Production monitor');
    expect(p.avatarUrl).toBe('https://github.com/louislam/uptime-kuma/raw/master/public/icon.png');
    const e = first(p.embeds);
    expect(e.color).toBe(0x00ff00);
    expect(e.fields).toHaveLength(7);
    expect(e.fields?.find((f) => f.name === 'Back Online')?.value).toBe('2024-05-01 12:07 UTC');
    expect(e.fields?.find((f) => f.name === 'Ping')?.value).toBe('42 ms');
    expect(p).not.toHaveProperty('flags');
  });

  it('gitea-push: empty username, empty footer and null fields are treated as absent', () => {
    const p = parseDiscordPayload(fixture('discord', 'gitea-push'));
    expect(p.content).toBe('');
    expect(p).not.toHaveProperty('username');
    expect(p.embeds).toEqual([
      {
        title: '[test/repo:main] 2 new commits',
        description: expect.stringContaining(
          '[2020558](http://localhost:3000/test/repo/commit/2020558fe2e34debb818a514715839cabd25e778) chore: This is a commit summary - user1',
        ) as unknown as string,
        url: 'http://localhost:3000/test/repo/compare/2020558fe2e34debb818a514715839cabd25e778...7f3a9c1e0d2b4a5f6e7d8c9b0a1f2e3d4c5b6a7f',
        color: 0x1ac600,
        author: {
          name: 'user1',
          url: 'http://localhost:3000/user1',
          icon_url: 'http://localhost:3000/avatars/5d1f4f5e8a1d7b7c',
        },
      },
    ]);
  });
});

describe('Discord dialect: rules and bad payloads', () => {
  it('refuses a body that is not a JSON object', () => {
    expect400(() => parseDiscordPayload(null), 'body must be a JSON object');
    expect400(() => parseDiscordPayload([{ content: 'x' }]), 'body must be a JSON object');
    expect400(() => parseDiscordPayload('hello'), 'body must be a JSON object');
  });

  it('needs content, embeds or files', () => {
    expect400(() => parseDiscordPayload({}), 'content must not be empty unless embeds or files are sent');
    expect400(() => parseDiscordPayload({ content: '  \n\t ' }), 'content must not be empty');
    expect400(() => parseDiscordPayload({ content: '', embeds: [{}] }), 'content must not be empty');
    expect(parseDiscordPayload({ content: '   ' }, { hasFiles: true })).toEqual({ content: '', embeds: [] });
    expect(parseDiscordPayload({ embeds: [{ description: 'only an embed' }] }).embeds).toEqual([{ description: 'only an embed' }]);
  });

  it('counts the 4000-character content limit in code points', () => {
    const emoji4000 = '😀'.repeat(4000); // 8000 UTF-16 units, 4000 code points
    expect(parseDiscordPayload({ content: emoji4000 }).content).toBe(emoji4000);
    expect400(() => parseDiscordPayload({ content: `${emoji4000}😀` }), 'content must be at most 4000 characters');
  });

  it('refuses wrong types with the field name', () => {
    expect400(() => parseDiscordPayload({ content: 42 }), 'content must be a string');
    expect400(() => parseDiscordPayload({ content: 'x', username: ['bot'] }), 'username must be a string');
    expect400(() => parseDiscordPayload({ content: 'x', embeds: { title: 't' } }), 'embeds must be an array');
    expect400(() => parseDiscordPayload({ content: 'x', embeds: ['t'] }), 'embeds[0] must be an object');
    expect400(() => parseDiscordPayload({ embeds: [{ title: 5 }] }), 'embeds[0].title must be a string');
    expect400(() => parseDiscordPayload({ embeds: [{ title: 't', fields: {} }] }), 'embeds[0].fields must be an array');
    expect400(
      () => parseDiscordPayload({ embeds: [{ title: 't', fields: [{ name: 'a', value: 'b', inline: 'yes' }] }] }),
      'embeds[0].fields[0].inline must be a boolean',
    );
    expect400(() => parseDiscordPayload({ embeds: [{ title: 't', author: 'me' }] }), 'embeds[0].author must be an object');
  });

  it('checks username length and avatar_url scheme', () => {
    expect(parseDiscordPayload({ content: 'x', username: ` ${longString(80)} ` }).username).toBe(longString(80));
    expect(parseDiscordPayload({ content: 'x', username: '   ' })).toEqual({ content: 'x', embeds: [] });
    expect400(() => parseDiscordPayload({ content: 'x', username: longString(81) }), 'username must be at most 80 characters');
    expect400(() => parseDiscordPayload({ content: 'x', avatar_url: 'ftp://example.com/a.png' }), 'avatar_url must be an http(s) URL');
    expect400(() => parseDiscordPayload({ content: 'x', avatar_url: 'javascript:alert(1)' }), 'avatar_url must be an http(s) URL');
  });

  it('enforces per-field embed limits', () => {
    expect400(() => parseDiscordPayload({ embeds: [{ title: longString(257) }] }), 'embeds[0].title must be at most 256 characters');
    expect(parseDiscordPayload({ embeds: [{ title: longString(256) }] }).embeds[0]?.title).toHaveLength(256);
    expect400(
      () => parseDiscordPayload({ embeds: [{ description: longString(4097) }] }),
      'embeds[0].description must be at most 4096 characters',
    );
    expect400(
      () => parseDiscordPayload({ embeds: [{ title: 'ok' }, { title: 't', footer: { text: longString(2049) } }] }),
      'embeds[1].footer.text must be at most 2048 characters',
    );
    expect400(
      () => parseDiscordPayload({ embeds: [{ author: { name: longString(257) } }] }),
      'embeds[0].author.name must be at most 256 characters',
    );
    expect400(
      () => parseDiscordPayload({ embeds: [{ fields: [{ name: longString(257), value: 'v' }] }] }),
      'embeds[0].fields[0].name must be at most 256 characters',
    );
    expect400(
      () => parseDiscordPayload({ embeds: [{ fields: [{ name: 'n', value: longString(1025) }] }] }),
      'embeds[0].fields[0].value must be at most 1024 characters',
    );
  });

  it('limits embeds to 10, fields to 25 and the total to 6000 characters', () => {
    const eleven = Array.from({ length: 11 }, (_, i) => ({ title: `e${i}` }));
    expect400(() => parseDiscordPayload({ embeds: eleven }), 'embeds must have at most 10 items');
    expect(parseDiscordPayload({ embeds: eleven.slice(0, 10) }).embeds).toHaveLength(10);

    const fields = Array.from({ length: 26 }, (_, i) => ({ name: `f${i}`, value: 'v' }));
    expect400(() => parseDiscordPayload({ embeds: [{ title: 't', fields }] }), 'embeds[0].fields must have at most 25 fields');
    expect(parseDiscordPayload({ embeds: [{ title: 't', fields: fields.slice(0, 25) }] }).embeds[0]?.fields).toHaveLength(25);

    const big = { description: longString(3000) };
    expect(parseDiscordPayload({ embeds: [big, big] }).embeds).toHaveLength(2); // exactly 6000
    expect400(() => parseDiscordPayload({ embeds: [big, big, { title: 'x' }] }), 'embeds must have at most 6000 characters in total');
  });

  it('requires non-empty field names and values', () => {
    expect400(() => parseDiscordPayload({ embeds: [{ fields: [{ value: 'v' }] }] }), 'embeds[0].fields[0].name must be a non-empty string');
    expect400(
      () => parseDiscordPayload({ embeds: [{ fields: [{ name: 'n', value: ' ' }] }] }),
      'embeds[0].fields[0].value must be a non-empty string',
    );
  });

  it('validates urls, color and timestamp', () => {
    expect400(() => parseDiscordPayload({ embeds: [{ title: 't', url: 'javascript:alert(1)' }] }), 'embeds[0].url must be an http(s) URL');
    expect400(() => parseDiscordPayload({ embeds: [{ title: 't', url: 'attachment://a.png' }] }), 'embeds[0].url must be an http(s) URL');
    expect400(
      () => parseDiscordPayload({ embeds: [{ image: { url: 'file:///etc/passwd' } }] }),
      'embeds[0].image.url must be an http(s) URL',
    );
    expect400(
      () => parseDiscordPayload({ embeds: [{ title: 't', color: '#ff0000' }] }),
      'embeds[0].color must be an integer between 0 and 16777215',
    );
    expect400(() => parseDiscordPayload({ embeds: [{ title: 't', color: 0x1000000 }] }), 'embeds[0].color');
    expect400(() => parseDiscordPayload({ embeds: [{ title: 't', color: 1.5 }] }), 'embeds[0].color');
    expect400(
      () => parseDiscordPayload({ embeds: [{ title: 't', timestamp: 'yesterday' }] }),
      'embeds[0].timestamp must be an ISO 8601 timestamp',
    );
    expect400(() => parseDiscordPayload({ embeds: [{ title: 't', timestamp: 1714564800 }] }), 'embeds[0].timestamp must be a string');
    expect(parseDiscordPayload({ embeds: [{ title: 't', color: 0 }] }).embeds[0]?.color).toBe(0);
  });
});

describe('parseDiscordForm', () => {
  it('reads plain multipart fields when there is no payload_json', () => {
    expect(parseDiscordForm({ content: 'build.log attached', username: 'CI' }, { hasFiles: true })).toEqual({
      content: 'build.log attached',
      username: 'CI',
      embeds: [],
    });
    expect(parseDiscordForm({}, { hasFiles: true })).toEqual({ content: '', embeds: [] });
    expect400(() => parseDiscordForm({}), 'content must not be empty');
  });

  it('refuses payload_json that is not JSON', () => {
    expect400(() => parseDiscordForm({ payload_json: '{"content": ' }), 'payload_json is not valid JSON', 'invalid_json');
  });
});

describe('validateEmbeds', () => {
  it('returns a cleaned copy with only known keys and drops empty parts', () => {
    const input = [
      {
        type: 'rich',
        title: 'T',
        provider: { name: 'x' },
        video: { url: 'https://example.com/v.mp4' },
        footer: { text: '' },
        author: { name: '', url: 'https://example.com' },
        thumbnail: { url: 'https://example.com/t.png', height: 10 },
        fields: [{ name: 'a', value: 'b', inline: true, extra: 1 }],
      },
      { url: '', description: '' },
    ];
    expect(validateEmbeds(input)).toEqual([
      { title: 'T', thumbnail: { url: 'https://example.com/t.png' }, fields: [{ name: 'a', value: 'b', inline: true }] },
    ]);
    expect(validateEmbeds(undefined)).toEqual([]);
    expect(validateEmbeds(null)).toEqual([]);
  });

  it('names the path it was given', () => {
    expect400(() => validateEmbeds([{ title: 1 }], 'attachments'), 'attachments[0].title must be a string');
  });

  it('normalizes ISO 8601 timestamps to UTC', () => {
    expect(normalizeTimestamp('2024-05-01T14:00:00+02:00')).toBe('2024-05-01T12:00:00.000Z');
    expect(normalizeTimestamp('2024-05-01T12:00:00.123456Z')).toBe('2024-05-01T12:00:00.123Z');
    expect(normalizeTimestamp('2024-05-01')).toBe('2024-05-01T00:00:00.000Z');
    expect(normalizeTimestamp('2024-02-31T00:00:00Z')).toBeUndefined();
    expect(normalizeTimestamp('May 1st')).toBeUndefined();
  });

  it('renders Discord <t:...> markup as UTC text', () => {
    expect(renderDiscordTimestamps('at <t:1714564800> / <t:1714564800:d> / <t:1714564800:T>')).toBe(
      'at 2024-05-01 12:00 UTC / 2024-05-01 / 12:00:00 UTC',
    );
  });
});

describe('Slack dialect: fixtures', () => {
  it('alertmanager-default: title-only attachment becomes a red embed, fallback not repeated', () => {
    const p = parseSlackPayload(fixture('slack', 'alertmanager-default'));
    expect(p.content).toBe('');
    expect(p.username).toBe('AlertManager');
    expect(p.embeds).toEqual([
      {
        title: '[FIRING:1] InstanceDown (10.0.0.5:9100 node critical)',
        url: 'http://alertmanager.example.com:9093/#/alerts?receiver=parley',
        color: 0xe01e5a,
      },
    ]);
  });

  it('alertmanager-custom-text: mrkdwn converted, pretext mention in content, short fields inline', () => {
    const p = parseSlackPayload(fixture('slack', 'alertmanager-custom-text'));
    expect(p.content).toBe('@here disk alert on **db-1**');
    expect(p.avatarUrl).toBe('https://avatars3.githubusercontent.com/u/3380462');
    const e = first(p.embeds);
    expect(e.color).toBe(0x2eb67d);
    expect(e.description).toBe(
      '**Alert:** Disk almost full - `warning`\n' +
        '**Description:** /var/lib/postgresql is 95% full & growing\n' +
        '**Runbook:** [disk_full runbook](https://runbooks.example.com/disk_full)\n' +
        '~~flapping~~ *resolved automatically*',
    );
    expect(e.fields).toEqual([
      { name: 'severity', value: 'warning', inline: true },
      { name: 'instance', value: 'db-1:9100', inline: true },
    ]);
  });

  it('grafana-contact-point: Grafana Markdown kept, <!channel|channel> mention, footer and ts', () => {
    const p = parseSlackPayload(fixture('slack', 'grafana-contact-point'));
    expect(p.content).toBe('@channel');
    const e = first(p.embeds);
    expect(e.title).toBe('[FIRING:1] HighCPU (web-1)');
    expect(e.description?.startsWith('**Firing**\n\nValue: B=97.3')).toBe(true);
    // Bare URL with an underscore is not turned into italics.
    expect(e.description).toContain('matcher=instance%3Dweb_1');
    expect(e.color).toBe(0xd63232);
    expect(e.footer).toEqual({ text: 'Grafana v11.2.0', icon_url: 'https://grafana.com/static/assets/img/fav32.png' });
    expect(e.timestamp).toBe('2024-05-01T12:00:00.000Z');
  });

  it('uptime-kuma-down: Block Kit header/fields/button inside an attachment', () => {
    const p = parseSlackPayload(fixture('slack', 'uptime-kuma-down'));
    expect(p.username).toBe('Uptime Kuma');
    expect(p.content).toBe('Uptime Kuma Alert\n[My Website] [🔴 Down] Request failed with status code 503 @channel');
    const e = first(p.embeds);
    expect(e.title).toBe('Uptime Kuma Alert');
    expect(e.color).toBe(0xe01e5a);
    expect(e.fields).toEqual([
      { name: 'Message', value: '[My Website] [🔴 Down] Request failed with status code 503 @channel' },
      { name: 'Time (UTC)', value: '2024-05-01 12:00:00.000' },
    ]);
    expect(e.description).toBe('[Visit Uptime Kuma](https://status.example.com/dashboard/3)');
  });

  it('gitea-push: Slack links become Markdown links, escaped entities decoded', () => {
    const p = parseSlackPayload(fixture('slack', 'gitea-push'));
    expect(p.username).toBe('Gitea');
    expect(p.avatarUrl).toBe('https://gitea.example.com/assets/img/logo.png');
    expect(p.content).toContain('[test/repo](http://localhost:3000/test/repo)');
    expect(p.content).toContain('[main](http://localhost:3000/test/repo/src/branch/main)');
    expect(p.content).toContain('[2 new commits](http://localhost:3000/test/repo/compare/');
    expect(p.content.endsWith(' pushed by user1')).toBe(true);
    const e = first(p.embeds);
    expect(e).not.toHaveProperty('color'); // Gitea sends "" when no color is set
    expect(e.description?.split('\n')).toEqual([
      '[2020558](http://localhost:3000/test/repo/commit/2020558fe2e34debb818a514715839cabd25e778): chore: bump deps - user1',
      '[7f3a9c1](http://localhost:3000/test/repo/commit/7f3a9c1e0d2b4a5f6e7d8c9b0a1f2e3d4c5b6a7f): fix <br> handling & escaping - user1',
    ]);
  });

  it('gitea-issue: hex color without "#", empty icon_url ignored', () => {
    const p = parseSlackPayload(fixture('slack', 'gitea-issue'));
    expect(p.content).toBe(
      '[[test/repo](http://localhost:3000/test/repo)] Issue opened: [#2 crash](http://localhost:3000/test/repo/issues/2) by [user1](http://localhost:3000/user1)',
    );
    expect(p).not.toHaveProperty('avatarUrl');
    expect(p.embeds).toEqual([
      { title: '#2 crash', url: 'http://localhost:3000/test/repo/issues/2', description: 'issue body', color: 0xeb6420 },
    ]);
  });

  it('jenkins-form: form-encoded payload=, untitled field becomes the embed text', () => {
    const form = fixture('slack', 'jenkins-form') as Record<string, string>;
    const p = parseSlackForm(form);
    expect(p.content).toBe('');
    expect(p.embeds).toEqual([
      {
        description: 'my-app - #42 Success after 1 min 3 sec ([Open](https://jenkins.example.com/job/my-app/42/))',
        color: 0x2eb67d,
      },
    ]);
  });

  it('mattermost-markdown: Markdown text (headings, tables, links) passes through unchanged', () => {
    const body = fixture('slack', 'mattermost-markdown');
    const p = parseSlackPayload(body);
    expect(p.content).toBe(body.text);
    expect(p.username).toBe('test-automation');
    expect(p.embeds).toEqual([]);
  });
});

describe('Slack dialect: mrkdwn and bad payloads', () => {
  it('converts mrkdwn to Markdown', () => {
    expect(slackToMarkdown('see <https://example.com/a_b|the _docs_> or <https://example.com>')).toBe(
      'see [the _docs_](https://example.com/a_b) or https://example.com',
    );
    expect(slackToMarkdown('<!channel> <!here|here> <!everyone> <@U024BE7LH|bob> <@U024BE7LH> <#C024BE7LB|general>')).toBe(
      '@channel @here @everyone @bob @U024BE7LH #general',
    );
    expect(slackToMarkdown('*bold* _italic_ ~strike~ *two words*')).toBe('**bold** *italic* ~~strike~~ **two words**');
    expect(slackToMarkdown('a &lt;b&gt; &amp;amp; c')).toBe('a <b> &amp; c');
    expect(slackToMarkdown('<!date^1392734382^{date_num}|Feb 18, 2014> and <mailto:bob@example.com|Bob>')).toBe(
      'Feb 18, 2014 and [Bob](mailto:bob@example.com)',
    );
  });

  it('leaves code, snake_case, URLs and existing Markdown alone', () => {
    expect(slackToMarkdown('`*not bold*` and ```\n_x_ &amp;\n```')).toBe('`*not bold*` and ```\n_x_ &\n```');
    expect(slackToMarkdown('snake_case_name and 2*3*4')).toBe('snake_case_name and 2*3*4');
    expect(slackToMarkdown('**already** __bold__ ~~gone~~')).toBe('**already** __bold__ ~~gone~~');
    expect(slackToMarkdown('https://example.com/_private_/x')).toBe('https://example.com/_private_/x');
  });

  it('maps Slack colors', () => {
    expect(slackColor('good')).toBe(0x2eb67d);
    expect(slackColor('warning')).toBe(0xecb22e);
    expect(slackColor('danger')).toBe(0xe01e5a);
    expect(slackColor('#439FE0')).toBe(0x439fe0);
    expect(slackColor('f00')).toBe(0xff0000);
    expect(slackColor('blurple')).toBeUndefined();
  });

  it('refuses a form without payload or with a payload that is not JSON', () => {
    expect400(() => parseSlackForm({}), 'form body must have a "payload" field');
    expect400(() => parseSlackForm({ text: 'hi' }), 'form body must have a "payload" field');
    expect400(() => parseSlackForm({ payload: 'text=hi' }), 'payload is not valid JSON', 'invalid_json');
    expect(parseSlackForm({ payload: '{"text":"*hi*"}' }).content).toBe('**hi**');
  });

  it('needs text, blocks or attachments', () => {
    expect400(() => parseSlackPayload({}), 'text must not be empty unless attachments or blocks are sent');
    expect400(() => parseSlackPayload({ text: '   ', attachments: [] }), 'text must not be empty');
    expect400(() => parseSlackPayload({ attachments: [{ color: 'good' }] }), 'text must not be empty');
    expect(parseSlackPayload({ attachments: [{ fallback: 'only fallback' }] }).embeds).toEqual([{ description: 'only fallback' }]);
    expect(parseSlackPayload({ blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*deployed*' } }] }).content).toBe('**deployed**');
  });

  it('refuses wrong types with the field name', () => {
    expect400(() => parseSlackPayload({ text: 42 }), 'text must be a string');
    expect400(() => parseSlackPayload({ text: 'x', attachments: {} }), 'attachments must be an array');
    expect400(() => parseSlackPayload({ text: 'x', attachments: ['a'] }), 'attachments[0] must be an object');
    expect400(() => parseSlackPayload({ attachments: [{ title: 't', fields: 'f' }] }), 'attachments[0].fields must be an array');
    expect400(() => parseSlackPayload({ attachments: [{ title: 't', color: 0xff0000 }] }), 'attachments[0].color must be a string');
    expect400(
      () => parseSlackPayload({ attachments: [{ title: 't', title_link: 'not a url' }] }),
      'attachments[0].title_link must be an http(s) URL',
    );
    expect400(() => parseSlackPayload({ attachments: [{ title: 't', ts: 'noon' }] }), 'attachments[0].ts must be a Unix timestamp');
    expect400(() => parseSlackPayload({ text: 'x', icon_url: 'data:image/png;base64,AAAA' }), 'icon_url must be an http(s) URL');
    expect400(() => parseSlackPayload({ text: 'x', blocks: [7] }), 'blocks[0] must be an object');
  });

  it('limits attachments to 10 and long text to 4000 characters', () => {
    const eleven = Array.from({ length: 11 }, (_, i) => ({ title: `a${i}` }));
    expect400(() => parseSlackPayload({ attachments: eleven }), 'attachments must have at most 10 items');
    const p = parseSlackPayload({ text: longString(5000) });
    expect([...p.content]).toHaveLength(4000);
    expect(p.content.endsWith('…')).toBe(true);
  });
});

describe('Slack dialect: Block Kit order and rich_text', () => {
  it('keeps the blocks in their order, fields beside their section', () => {
    const p = parseSlackPayload({
      text: 'notification only',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: 'first' }, fields: [{ type: 'mrkdwn', text: '*Env*\nprod' }] },
        { type: 'header', text: { type: 'plain_text', text: 'Then a header' } },
        { type: 'section', text: { type: 'plain_text', text: 'last' } },
      ],
    });
    expect(p.content).toBe('first\n**Env**\nprod\n**Then a header**\nlast');
  });

  it('renders rich_text: styles, links, emoji, mentions, lists, quotes and code', () => {
    const p = parseSlackPayload({
      blocks: [
        {
          type: 'rich_text',
          elements: [
            {
              type: 'rich_text_section',
              elements: [
                { type: 'text', text: 'Deploy ' },
                { type: 'text', text: 'done ', style: { bold: true } },
                { type: 'emoji', name: 'white_check_mark', unicode: '2705' },
                { type: 'text', text: ' see ' },
                { type: 'link', url: 'https://ci.example.com/42', text: 'build 42' },
                { type: 'text', text: ', ' },
                { type: 'text', text: 'old', style: { strike: true } },
                { type: 'text', text: ' ' },
                { type: 'text', text: 'npm ci', style: { code: true } },
                { type: 'text', text: ' cc ' },
                { type: 'user', user_id: 'U123' },
                { type: 'text', text: ' ' },
                { type: 'broadcast', range: 'here' },
                { type: 'text', text: '\n' },
              ],
            },
            {
              type: 'rich_text_list',
              style: 'bullet',
              elements: [
                { type: 'rich_text_section', elements: [{ type: 'text', text: 'api' }] },
                { type: 'rich_text_section', elements: [{ type: 'text', text: 'web', style: { italic: true } }] },
              ],
            },
            {
              type: 'rich_text_list',
              style: 'ordered',
              indent: 1,
              elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'nested' }] }],
            },
            { type: 'rich_text_quote', elements: [{ type: 'text', text: 'ship it\nnow' }] },
            { type: 'rich_text_preformatted', elements: [{ type: 'text', text: 'exit 0 *not bold*' }] },
          ],
        },
      ],
    });
    expect(p.content).toBe(
      'Deploy **done** ✅ see [build 42](https://ci.example.com/42), ~~old~~ `npm ci` cc @U123 @here\n' +
        '- api\n- *web*\n' +
        '  1. nested\n' +
        '> ship it\n> now\n' +
        '```\nexit 0 *not bold*\n```',
    );
    // Alert text from elsewhere pings no one, as every Slack message.
    expect(p.allowedMentions).toEqual({ parse: [] });
  });

  it('a list, quote or code block after a section without a line break starts a new line', () => {
    const p = parseSlackPayload({
      blocks: [
        {
          type: 'rich_text',
          elements: [
            { type: 'rich_text_section', elements: [{ type: 'text', text: 'changes:' }] },
            {
              type: 'rich_text_list',
              style: 'bullet',
              elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'one' }] }],
            },
            { type: 'rich_text_section', elements: [{ type: 'text', text: 'done' }] },
          ],
        },
      ],
    });
    expect(p.content).toBe('changes:\n- one\ndone');
  });

  it('a message of rich_text alone is accepted, and rich_text in an attachment fills its embed in order', () => {
    const alone = parseSlackPayload({
      blocks: [{ type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'hi' }] }] }],
    });
    expect(alone.content).toBe('hi');
    const p = parseSlackPayload({
      attachments: [
        {
          color: 'good',
          blocks: [
            { type: 'section', text: { type: 'mrkdwn', text: 'above' } },
            {
              type: 'rich_text',
              elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'rich', style: { bold: true } }] }],
            },
            { type: 'context', elements: [{ type: 'mrkdwn', text: 'below' }] },
          ],
        },
      ],
    });
    expect(first(p.embeds).description).toBe('above\n**rich**\nbelow');
  });

  it('refuses a malformed rich_text block with its path', () => {
    expect400(() => parseSlackPayload({ blocks: [{ type: 'rich_text' }] }), 'blocks[0].elements must be an array');
    expect400(
      () => parseSlackPayload({ blocks: [{ type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [5] }] }] }),
      'blocks[0].elements[0].elements[0] must be an object',
    );
  });
});

describe('GitHub dialect: fixtures', () => {
  it('ping: connection notice with repository, hook and zen', () => {
    const p = notNull(parseGithubEvent('ping', fixture('github', 'ping')));
    expect(p.username).toBe('GitHub');
    expect(p.embeds).toEqual([]);
    expect(p.content).toBe(
      'GitHub webhook connected for [Octocoders/Hello-World](https://github.com/Octocoders/Hello-World) (hook 109948940, events: push, pull_request).\n' +
        '> Anything added dilutes everything else.',
    );
  });

  it('push: pusher, branch, count, compare link and one line per commit', () => {
    const p = notNull(parseGithubEvent('push', fixture('github', 'push')));
    const lines = p.content.split('\n');
    expect(lines[0]).toBe(
      '**Codertocat** pushed 2 commits to [master](https://github.com/Codertocat/Hello-World/tree/master) in ' +
        '[Codertocat/Hello-World](https://github.com/Codertocat/Hello-World) ' +
        '([compare](https://github.com/Codertocat/Hello-World/compare/6113728f27ae...c4295bd74fb0))',
    );
    expect(lines.slice(1)).toEqual([
      '- [`ec26c3e`](https://github.com/Codertocat/Hello-World/commit/ec26c3e57ca3a959ca5aad62de7213c562f8c821) Update README.md - Codertocat',
      '- [`c4295bd`](https://github.com/Codertocat/Hello-World/commit/c4295bd74fb0f4fda03689c3df3f2803b658fd85) Merge pull request #2 from Codertocat/changes - Octo Cat',
    ]);
  });

  it('push-tag-deleted: a deletion is one line naming the tag', () => {
    const p = notNull(parseGithubEvent('push', fixture('github', 'push-tag-deleted')));
    expect(p.content).toBe(
      '**Codertocat** deleted tag `simple-tag` in [Codertocat/Hello-World](https://github.com/Codertocat/Hello-World)',
    );
  });

  it('push-new-branch: a new branch without new commits says "created branch"', () => {
    const p = notNull(parseGithubEvent('push', fixture('github', 'push-new-branch')));
    expect(p.content).toBe(
      '**Codertocat** created branch [feature/login_form](https://github.com/Codertocat/Hello-World/tree/feature/login_form) in [Codertocat/Hello-World](https://github.com/Codertocat/Hello-World)',
    );
  });

  it('pull_request-closed: closed without merge; the same payload merged says "merged ... into"', () => {
    const body = fixture('github', 'pull_request-closed');
    const closed = notNull(parseGithubEvent('pull_request', body));
    expect(closed.content).toBe(
      '**Codertocat** closed pull request [#2 Update the README with new information.](https://github.com/Codertocat/Hello-World/pull/2) in [Codertocat/Hello-World](https://github.com/Codertocat/Hello-World)',
    );

    const pr = body.pull_request as Json;
    const merged = notNull(
      parseGithubEvent('pull_request', { ...body, sender: { login: 'octocat' }, pull_request: { ...pr, merged: true } }),
    );
    expect(merged.content).toBe(
      '**octocat** merged pull request [#2 Update the README with new information.](https://github.com/Codertocat/Hello-World/pull/2) by **Codertocat** into `master` in [Codertocat/Hello-World](https://github.com/Codertocat/Hello-World)',
    );

    const opened = notNull(parseGithubEvent('pull_request', { ...body, action: 'opened', pull_request: { ...pr, state: 'open' } }));
    expect(opened.content.split('\n')).toEqual([
      '**Codertocat** opened pull request [#2 Update the README with new information.](https://github.com/Codertocat/Hello-World/pull/2) in [Codertocat/Hello-World](https://github.com/Codertocat/Hello-World) (`changes` → `master`)',
      '> This is a pretty simple change that we need to pull into master.',
    ]);
  });

  it('issues-opened: title, number, link and a quote of the body', () => {
    const p = notNull(parseGithubEvent('issues', fixture('github', 'issues-opened')));
    expect(p.content).toBe(
      '**Codertocat** opened issue [#1 Spelling error in the README file](https://github.com/Codertocat/Hello-World/issues/1) in [Codertocat/Hello-World](https://github.com/Codertocat/Hello-World)\n' +
        "> It looks like you accidently spelled 'commit' with two 't's.",
    );
  });

  it('issue_comment-created: links to the comment and quotes it', () => {
    const p = notNull(parseGithubEvent('issue_comment', fixture('github', 'issue_comment-created')));
    expect(p.content).toBe(
      '**Codertocat** commented on issue [#1 Spelling error in the README file](https://github.com/Codertocat/Hello-World/issues/1#issuecomment-492700400) in [Codertocat/Hello-World](https://github.com/Codertocat/Hello-World)\n' +
        "> You are totally right! I'll get this fixed right away.",
    );
  });

  it('release-published: an unnamed release is labelled by its tag', () => {
    const p = notNull(parseGithubEvent('release', fixture('github', 'release-published')));
    expect(p.content).toBe(
      '**Codertocat** published release [0.0.1](https://github.com/Codertocat/Hello-World/releases/tag/0.0.1) in [Codertocat/Hello-World](https://github.com/Codertocat/Hello-World)',
    );
  });

  it('workflow_run-completed: conclusion, workflow name, run number and branch', () => {
    const body = fixture('github', 'workflow_run-completed');
    const p = notNull(parseGithubEvent('workflow_run', body));
    expect(p.content).toBe(
      '✅ Workflow [test #28](https://github.com/octo-org/octo-repo/actions/runs/289782451) succeeded on `master` in [octo-org/octo-repo](https://github.com/octo-org/octo-repo)',
    );
    const run = body.workflow_run as Json;
    const failed = notNull(parseGithubEvent('workflow_run', { ...body, workflow_run: { ...run, conclusion: 'failure' } }));
    expect(failed.content.startsWith('❌ Workflow [test #28]')).toBe(true);
    expect(failed.content).toContain(' failed on `master`');
  });

  it('workflow_run-completed with a null conclusion says what the run is doing, never "finished (unknown)"', () => {
    const body = fixture('github', 'workflow_run-completed');
    const run = body.workflow_run as Json;
    const say = (changes: Json) => notNull(parseGithubEvent('workflow_run', { ...body, workflow_run: { ...run, ...changes } })).content;
    const done = say({ conclusion: null, status: 'completed' });
    expect(done).toBe(
      'Workflow [test #28](https://github.com/octo-org/octo-repo/actions/runs/289782451) finished without a conclusion on `master` in [octo-org/octo-repo](https://github.com/octo-org/octo-repo)',
    );
    expect(say({ conclusion: null, status: 'in_progress' })).toContain(' is in progress on `master`');
    expect(say({ conclusion: null, status: 'queued' })).toContain(' has started on `master`');
    expect(say({ conclusion: null, status: 'requested' })).toContain(' has started on `master`');
    for (const content of [done, say({ conclusion: null, status: 'in_progress' }), say({ conclusion: null })])
      expect(content).not.toContain('unknown');
  });
});

describe('GitHub dialect: ignored events and bad payloads', () => {
  it('requires the X-GitHub-Event header', () => {
    expect400(() => parseGithubEvent(undefined, fixture('github', 'ping')), 'X-GitHub-Event header is required', 'invalid_headers');
    expect400(() => parseGithubEvent('  ', fixture('github', 'ping')), 'X-GitHub-Event header is required', 'invalid_headers');
  });

  it('returns null for events and actions it does not announce', () => {
    expect(parseGithubEvent('star', { action: 'created' })).toBeNull();
    expect(parseGithubEvent('check_suite', {})).toBeNull();
    const pr = fixture('github', 'pull_request-closed');
    expect(parseGithubEvent('pull_request', { ...pr, action: 'labeled' })).toBeNull();
    expect(parseGithubEvent('pull_request', { ...pr, action: 'synchronize' })).toBeNull();
    const release = fixture('github', 'release-published');
    expect(parseGithubEvent('release', { ...release, action: 'created' })).toBeNull();
    expect(parseGithubEvent('release', { ...release, action: 'released' })).toBeNull();
    const run = fixture('github', 'workflow_run-completed');
    expect(parseGithubEvent('workflow_run', { ...run, action: 'requested' })).toBeNull();
    expect(parseGithubEvent('workflow_run', { ...run, action: 'in_progress' })).toBeNull();
    const comment = fixture('github', 'issue_comment-created');
    expect(parseGithubEvent('issue_comment', { ...comment, action: 'deleted' })).toBeNull();
  });

  it('refuses malformed payloads of known events with a clear message', () => {
    expect400(() => parseGithubEvent('push', []), 'body must be a JSON object');
    expect400(() => parseGithubEvent('push', { repository: {} }), 'push payload: ref must be a string');
    const push = fixture('github', 'push');
    expect400(() => parseGithubEvent('push', { ...push, repository: undefined }), 'push payload: repository must be an object');
    expect400(() => parseGithubEvent('push', { ...push, commits: 'many' }), 'push payload: commits must be an array');
    expect400(() => parseGithubEvent('push', { ...push, commits: [{ id: 'abc' }] }), 'push payload: commits[0].message must be a string');
    const pr = fixture('github', 'pull_request-closed');
    expect400(
      () => parseGithubEvent('pull_request', { ...pr, pull_request: null }),
      'pull_request payload: pull_request must be an object',
    );
    expect400(
      () => parseGithubEvent('pull_request', { ...pr, pull_request: { ...(pr.pull_request as Json), title: 7 } }),
      'pull_request payload: pull_request.title must be a string',
    );
    expect400(() => parseGithubEvent('issues', { action: 'opened', repository: {} }), 'issues payload: issue must be an object');
  });

  it('lists at most 10 commits and escapes Markdown in commit messages', () => {
    const push = fixture('github', 'push');
    const commits = Array.from({ length: 12 }, (_, i) => ({
      id: `${i}`.padStart(40, 'a'),
      message: i === 0 ? 'Fix [link](evil) *and* `code`' : `Commit ${i}`,
      url: `https://github.com/Codertocat/Hello-World/commit/${i}`,
      author: { name: 'Codertocat' },
    }));
    const p = notNull(parseGithubEvent('push', { ...push, commits }));
    const lines = p.content.split('\n');
    expect(lines[0]).toContain('pushed 12 commits to');
    expect(lines).toHaveLength(1 + 10 + 1);
    expect(lines[1]).toContain('Fix \\[link\\](evil) \\*and\\* \\`code\\`');
    expect(lines[11]).toBe('- …and 2 more');
  });

  it('accepts a Gitea push (compare_url, pusher.login, total_commits)', () => {
    const p = notNull(
      parseGithubEvent('push', {
        ref: 'refs/heads/main',
        compare_url: 'https://gitea.example.com/org/app/compare/abc...def',
        total_commits: 1,
        commits: [
          {
            id: 'def4567890abcdef4567890abcdef4567890abcd',
            message: 'Add health check\n',
            url: 'https://gitea.example.com/org/app/commit/def4567890abcdef4567890abcdef4567890abcd',
            author: { name: 'Jane', email: 'jane@example.com', username: 'jane' },
          },
        ],
        repository: { full_name: 'org/app', html_url: 'https://gitea.example.com/org/app' },
        pusher: { id: 1, login: 'jane', full_name: 'Jane', username: 'jane' },
        sender: { login: 'jane' },
      }),
    );
    expect(p.content.split('\n')).toEqual([
      '**jane** pushed 1 commit to [main](https://gitea.example.com/org/app/tree/main) in [org/app](https://gitea.example.com/org/app) ([compare](https://gitea.example.com/org/app/compare/abc...def))',
      '- [`def4567`](https://gitea.example.com/org/app/commit/def4567890abcdef4567890abcdef4567890abcd) Add health check - Jane',
    ]);
  });

  it('reads GitHub form-encoded deliveries (payload=)', () => {
    const p = notNull(parseGithubForm('ping', { payload: JSON.stringify(fixture('github', 'ping')) }));
    expect(p.content).toContain('GitHub webhook connected for [Octocoders/Hello-World]');
    expect400(() => parseGithubForm('ping', {}), 'form body must have a "payload" field');
    expect400(() => parseGithubForm('ping', { payload: '{' }), 'payload is not valid JSON', 'invalid_json');
    expect400(() => parseGithubForm(undefined, { payload: '{}' }), 'X-GitHub-Event header is required', 'invalid_headers');
  });
});

describe('render', () => {
  it('renders embeds as quoted Markdown under the content', () => {
    const post = parseSlackPayload(fixture('slack', 'alertmanager-custom-text'));
    const md = flattenPost(post);
    expect(md.startsWith('@here disk alert on **db-1**\n\n> **[\\[RESOLVED\\] DiskFull (db-1)](http://alertmanager')).toBe(true);
    expect(md).toContain('> **severity**: warning');
    expect(renderEmbedsMarkdown([{ description: 'a\n\nb', footer: { text: 'f' }, timestamp: '2024-05-01T12:00:00.000Z' }])).toBe(
      '> a\n>\n> b\n> *f · 2024-05-01 12:00 UTC*',
    );
  });

  it('keeps the flattened text within the content limit', () => {
    const md = flattenPost({ content: longString(3990), embeds: [{ description: longString(100) }] });
    expect([...md]).toHaveLength(4000);
  });
});

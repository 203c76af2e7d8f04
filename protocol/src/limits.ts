/**
 * Constants of the wire contract that carry no schema machinery. They sit apart from the
 * schemas (and `package.json` says `sideEffects: false`) so that a bundle which only needs
 * these, such as the web client's, does not pull in TypeBox and every schema.
 */

/** The permissions a server owner can grant a bot, in the order the API lists them. */
export const PERMISSION_NAMES = ['READ_MESSAGES', 'SEND_MESSAGES', 'ADD_REACTIONS', 'ATTACH_FILES'] as const;

/** Discord's embed limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits). */
export const EMBED_LIMITS = {
  embeds: 10,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footerText: 2048,
  authorName: 256,
  total: 6000,
} as const;

/** Parley's message content limit, in code points (same for every dialect). */
export const CONTENT_MAX = 4000;

/** The most attachments one message may carry. */
export const ATTACHMENTS_MAX = 10;

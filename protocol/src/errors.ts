/**
 * The error catalog: every `code` an error body can carry, with its HTTP status. It is
 * part of the wire contract (clients branch on `code`), so it lives here; the server's
 * `src/errors.ts` builds `AppError` on it, docs/api.md lists it (a test keeps the two in
 * step), and the SDK takes its list of codes from it.
 */
export const ERROR_CATALOG = {
  // 400: the request itself is wrong.
  bad_request: {
    status: 400,
    meaning:
      'the request is malformed in a way no more specific code describes (an HTTP framing error, a Content-Length that does not match)',
  },
  invalid_body: {
    status: 400,
    meaning: "the body breaks the endpoint's schema or one of its rules (a missing field, an empty message, an unknown attachment URL)",
  },
  invalid_query: { status: 400, meaning: 'a query-string parameter is missing, unknown or out of range' },
  invalid_params: { status: 400, meaning: 'a path parameter has the wrong shape' },
  invalid_headers: { status: 400, meaning: 'a required header is missing or malformed' },
  invalid_json: { status: 400, meaning: 'the body (or a `payload_json` field) is not valid JSON' },
  json_too_deep: { status: 400, meaning: 'a JSON document nests deeper than the service accepts' },
  invalid_url: { status: 400, meaning: 'the URL cannot be decoded, or a path segment is too long' },
  invalid_idempotency_key: { status: 400, meaning: 'the `Idempotency-Key` header is not 1 to 255 visible ASCII characters' },
  invalid_handshake: { status: 400, meaning: 'a `/gateway` upgrade request is not a valid WebSocket handshake' },
  unsupported_protocol: { status: 400, meaning: 'CONNECT, or an `Upgrade` with a body outside `/gateway`: this server is no proxy' },
  session_required: { status: 400, meaning: 'only a session (not a bot token) can do this, such as logging out' },
  owner_cannot_leave: { status: 400, meaning: 'the server owner cannot leave their own server' },
  everyone_role: { status: 400, meaning: '`@everyone` cannot be deleted, given, taken, renamed or moved' },
  invalid_owner: { status: 400, meaning: 'the new owner must be a person who is a member of the server' },
  system_message: { status: 400, meaning: 'a system message (a welcome line) cannot be edited' },
  cannot_ban_owner: { status: 400, meaning: 'the server owner cannot be banned' },
  cannot_ban_self: { status: 400, meaning: 'a member cannot ban themselves' },
  unknown_message_reference: { status: 400, meaning: '`messageReference` names no message of the channel (a reply to a deleted message)' },
  thread_archived: { status: 400, meaning: 'the thread is archived: unarchive it first (docs/threads.md)' },
  thread_already_created: { status: 400, meaning: 'a thread was already started from this message' },
  too_many_pins: { status: 400, meaning: 'the channel already has 50 pinned messages' },
  max_roles: { status: 400, meaning: 'the server already has 250 roles (`@everyone` not counted)' },
  max_reactions: { status: 400, meaning: 'the message already has 20 distinct emoji: only one of those can be added' },
  channel_is_category: { status: 400, meaning: 'a category holds no messages: send them in one of its channels' },
  channel_is_forum: {
    status: 400,
    meaning: 'a forum holds no messages of its own: start a post (`POST /channels/{id}/threads` with a `message`) (docs/threads.md)',
  },
  invalid_parent: {
    status: 400,
    meaning: "`parentId` names no category of the channel's server, or is set on a category (categories do not nest)",
  },
  message_too_old: { status: 400, meaning: 'bulk delete takes only messages younger than 14 days' },
  invalid_recipients: {
    status: 400,
    meaning: 'a DM names 1 to 9 others (a group holds at most 10 people): not the caller, no one twice; bots open DMs with one person only',
  },
  cannot_block_self: { status: 400, meaning: 'a person cannot block themselves' },
  invalid_commands: {
    status: 400,
    meaning: 'a command to register breaks a rule: its name, a duplicate, option order, choices, ranges or limits (named in `error`)',
  },
  invalid_attachment: {
    status: 400,
    meaning:
      "an attachment, avatar or icon names an upload the caller may not give: another's, and not already attached in a channel where the author can read it",
  },
  invalid_components: {
    status: 400,
    meaning:
      'components break a rule: more than 5 rows of 5, a select not alone in its row, a duplicate customId, a link button without an http(s) URL',
  },
  unknown_option: { status: 400, meaning: 'an interaction names an option the command does not have' },
  missing_option: { status: 400, meaning: 'an interaction leaves out an option the command requires' },
  invalid_option: {
    status: 400,
    meaning: "an option's value has the wrong type, is out of its range or length, is not one of its choices, or names nothing",
  },
  invalid_values: { status: 400, meaning: "a select's chosen values are not among its options, or too few or too many" },
  invalid_callback: {
    status: 400,
    meaning: 'the callback type does not fit the interaction (update on a command, autocomplete on a click), or its data is wrong',
  },
  invalid_modal: {
    status: 400,
    meaning:
      'a modal breaks a rule: a duplicate customId, minLength above maxLength, a default value longer than maxLength, a blank title or label',
  },
  invalid_fields: {
    status: 400,
    meaning:
      "a modal's submitted text inputs break its rules: a required one left empty, too short or too long, or one the modal does not have",
  },
  interaction_expired: {
    status: 400,
    meaning: "the interaction's window has passed: 3 s for its callback, 15 minutes for follow-ups and edits",
  },
  interaction_not_acknowledged: { status: 400, meaning: 'follow-ups and edits of the original answer need a callback first' },
  interactions_url_failed: {
    status: 400,
    meaning:
      'the interactions URL did not answer the signed ping with `{"type":"pong"}` in time (unreachable, an error, a redirect, or another answer)',
  },
  outgoing_address_refused: {
    status: 400,
    meaning:
      'the URL is not http(s), its host does not resolve, or it resolves to a private, loopback, link-local or otherwise non-public address (OUTGOING_ALLOW_PRIVATE is off); the last two are answered alike',
  },
  // 401: who is calling is unknown.
  unauthorized: { status: 401, meaning: 'credentials are missing, malformed, revoked or unknown' },
  invalid_credentials: { status: 401, meaning: 'wrong username or password at login' },
  // 403: the caller is known and not allowed.
  users_only: { status: 403, meaning: 'the call is for user accounts; bots may not make it' },
  not_a_member: { status: 403, meaning: 'the caller is not a member of the server' },
  missing_permission: { status: 403, meaning: 'the caller lacks the permission the call needs (named in `error`)' },
  owner_only: { status: 403, meaning: "only the server's owner may do this" },
  bot_owner_only: { status: 403, meaning: "only the bot's owner may do this (or the bot is not public)" },
  thread_locked: { status: 403, meaning: 'the thread is locked: only MANAGE_THREADS may post in it (docs/threads.md)' },
  cannot_reply_without_history: {
    status: 403,
    meaning: 'replying needs READ_MESSAGE_HISTORY in the channel, as on Discord: a reply would show the message it replies to',
  },
  not_interaction_user: { status: 403, meaning: 'only the person who made the interaction may submit the modal it was answered with' },
  not_message_author: { status: 403, meaning: "only the message's author (or, to delete, the server owner) may do this" },
  role_hierarchy: {
    status: 403,
    meaning: "the role or member is not below the caller's highest role, or the change grants permissions the caller lacks",
  },
  managed_role: { status: 403, meaning: "a bot's managed role belongs to that bot: it cannot be given, taken or deleted" },
  cannot_dm: {
    status: 403,
    meaning: 'the person does not take direct messages from the caller (no shared server, DMs turned off, or a block)',
  },
  banned: { status: 403, meaning: 'the caller is banned from this server' },
  wrong_password: { status: 403, meaning: 'the password given to confirm a change to the account (new password, deletion) is wrong' },
  registration_closed: { status: 403, meaning: 'this instance does not take new accounts (`REGISTRATION=closed`)' },
  invite_required: { status: 403, meaning: 'registering on this instance needs a valid invite code (`REGISTRATION=invite`)' },
  account_disabled: {
    status: 403,
    meaning: "an administrator disabled the account (at login, with the right password), or the bot's owner's account",
  },
  // 404: something named by the request does not exist (or is not visible to the caller).
  unknown_route: { status: 404, meaning: 'no route has this path' },
  unknown_server: { status: 404, meaning: 'no such server' },
  unknown_channel: { status: 404, meaning: 'no such channel' },
  unknown_message: { status: 404, meaning: 'no such message in this channel' },
  unknown_member: { status: 404, meaning: 'the user or bot is not a member of this server' },
  unknown_bot: { status: 404, meaning: 'no such bot' },
  unknown_webhook: { status: 404, meaning: 'no such webhook, or its token is wrong' },
  unknown_invite: { status: 404, meaning: 'no such invite, or its server is gone' },
  unknown_file: { status: 404, meaning: 'no such uploaded file' },
  no_preview: {
    status: 404,
    meaning:
      'the file has no preview page: not a PDF, one this instance could not draw, or this instance draws none (`GET /instance` `pdfPreviews`)',
  },
  unknown_role: { status: 404, meaning: 'no such role in this server' },
  unknown_overwrite: { status: 404, meaning: 'the channel has no overwrite for that role or member' },
  unknown_user: { status: 404, meaning: 'no such user' },
  unknown_ban: { status: 404, meaning: 'the user is not banned from this server' },
  unknown_session: { status: 404, meaning: "no such login session among the caller's own" },
  unknown_reference: { status: 404, meaning: 'something the write refers to was deleted meanwhile' },
  unknown_command: { status: 404, meaning: 'the bot has no such command usable in this channel (or the caller may not see it)' },
  unknown_component: { status: 404, meaning: 'the message has no button or select with that customId (or no components at all)' },
  unknown_interaction: { status: 404, meaning: 'no interaction has this id and token' },
  // Other client errors.
  method_not_allowed: { status: 405, meaning: 'the path exists for other methods (listed in `Allow`)' },
  request_timeout: { status: 408, meaning: 'the request was not received in time' },
  username_taken: { status: 409, meaning: 'the username is already registered' },
  already_exists: { status: 409, meaning: 'the thing to create already exists' },
  bot_already_member: { status: 409, meaning: 'the bot is already a member of this server' },
  interaction_already_acknowledged: { status: 409, meaning: 'the interaction already has its callback; each gets one' },
  owns_servers: { status: 409, meaning: 'the account still owns servers, so it cannot be deleted' },
  idempotency_key_in_use: { status: 409, meaning: 'a request with this `Idempotency-Key` is still being processed' },
  idempotency_key_reused: { status: 409, meaning: 'the `Idempotency-Key` was already used for a different request' },
  payload_too_large: { status: 413, meaning: 'the body or a file is over the size limit' },
  upload_quota_exceeded: {
    status: 413,
    meaning: "the file would take the caller's uploads past their storage quota (`UPLOAD_QUOTA_BYTES`)",
  },
  unsupported_media_type: { status: 415, meaning: 'the endpoint does not accept this `Content-Type`' },
  expectation_failed: { status: 417, meaning: 'an `Expect` other than `100-continue`' },
  rate_limited: { status: 429, meaning: "too many requests; the body's `retryAfter` (seconds) says when to retry" },
  headers_too_large: { status: 431, meaning: 'the request headers are over the size limit' },
  // 5xx: the service's side.
  internal_error: { status: 500, meaning: 'an unexpected failure; details are in the service log' },
  upload_storage_full: { status: 507, meaning: "the file would take the instance's uploads past `MAX_UPLOAD_STORAGE`" },
  service_unavailable: { status: 503, meaning: 'the service is shutting down or its database is unreachable' },
  not_ready: { status: 503, meaning: '`GET /readyz`: the database, or Redis when configured, did not answer; the body names which' },
} as const satisfies Record<string, { status: number; meaning: string }>;

/** Every code an error body can carry; a code outside the catalog does not compile. */
export type ErrorCode = keyof typeof ERROR_CATALOG;

/** The catalog's codes, in catalog order (for the error schema, docs checks and fuzzers). */
export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

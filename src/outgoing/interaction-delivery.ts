import {
  type Interaction,
  type InteractionCallbackBody,
  InteractionHttpResponse,
  type InteractionPing,
  WIRE_SCHEMAS,
} from '@parley/protocol';
import { Compile } from 'typebox/compile';
import { signEd25519 } from '../crypto.js';
import type { DomainContext } from '../domain/context.js';
import { notify } from '../domain/context.js';
import { answers } from '../domain/interactions/answers.js';
import { AppError } from '../errors.js';
import type { UserTable } from '../store/schema.js';
import { OutgoingRefused, postJson } from './http.js';

/**
 * The two ways an interaction reaches its bot: over the gateway (`INTERACTION_CREATE` to
 * the bot's own sessions), or, when the bot has an `interactionsUrl`, as a POST signed with
 * the bot's Ed25519 key (`X-Signature-Ed25519` over `X-Signature-Timestamp` + body, as
 * Discord signs), whose answer is the callback.
 */

/** Answers from an endpoint are at most this big. */
export const MAX_ANSWER_BYTES = 64 * 1024;

// The wire's shared schemas by their `$ref`, so the answer is checked against the same rules as the callback route's body.
const context = Object.fromEntries(WIRE_SCHEMAS.map((s) => [`${(s as { $id: string }).$id}#`, s]));
const answerShape = Compile(context, InteractionHttpResponse);

/** Signs and POSTs `payload` to the bot's URL; resolves with the parsed answer (shape-checked) or throws. */
async function signedPost(ctx: DomainContext, botId: string, url: string, payload: unknown, timeoutMs: number) {
  const key = await ctx.store.botKeys.signing(ctx.store.db, botId);
  if (!key) throw new Error('the bot has no signing key');
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const answer = await postJson(
    url,
    body,
    { 'x-signature-ed25519': signEd25519(key.privateKey, timestamp + body), 'x-signature-timestamp': timestamp },
    { allowPrivate: ctx.interactions.allowPrivate, timeoutMs, maxBytes: MAX_ANSWER_BYTES },
  );
  const parsed: unknown = JSON.parse(answer.body);
  if (!answerShape.Check(parsed)) throw new Error('the answer is not a callback');
  return parsed;
}

/** Delivers an interaction to its bot: the gateway, or its HTTP endpoint (in the background: the invoker is answered at once). */
export async function deliverInteraction(ctx: DomainContext, bot: UserTable, interaction: Interaction): Promise<void> {
  if (!bot.interactionsUrl) {
    await notify(ctx, { kind: 'user', userId: bot.id, serverIds: [], event: { t: 'INTERACTION_CREATE', d: interaction } });
    return;
  }
  const url = bot.interactionsUrl;
  ctx.background.run('interaction delivery failed', () => overHttp(ctx, bot.id, url, interaction));
}

async function overHttp(ctx: DomainContext, botId: string, url: string, interaction: Interaction): Promise<void> {
  const row = await ctx.store.interactions.byId(ctx.store.db, interaction.id);
  if (!row) return;
  try {
    const answer = await signedPost(ctx, botId, url, interaction, ctx.interactions.callbackMs);
    if (answer.type === 'pong') throw new Error('pong is the answer to a ping only');
    await answers.acknowledge(ctx, row, answer as InteractionCallbackBody);
  } catch {
    // The endpoint's failures are the bot's, not the service's: the invoker hears of it.
    await answers.fail(ctx, row, 'unreachable').catch((err) => ctx.report(err, 'interaction failure notice failed'));
  }
}

/**
 * Before a bot's interactionsUrl is set: a signed `{type: "ping"}` must come back as
 * `{type: "pong"}` within the outgoing deadline. 400 `outgoing_address_refused` for an
 * address the service may not reach, `interactions_url_failed` for anything else.
 */
export async function verifyInteractionsUrl(ctx: DomainContext, botId: string, url: string): Promise<void> {
  const ping: InteractionPing = { type: 'ping', botId };
  try {
    const answer = await signedPost(ctx, botId, url, ping, 3000);
    if (answer.type !== 'pong') throw new Error('not a pong');
  } catch (err) {
    if (err instanceof OutgoingRefused) throw new AppError('outgoing_address_refused', `interactionsUrl: ${err.message}`);
    const why = err instanceof Error ? err.message : 'no answer';
    throw new AppError('interactions_url_failed', `interactionsUrl did not answer the ping with {"type":"pong"}: ${why}`);
  }
}

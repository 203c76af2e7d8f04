/**
 * @parley/sdk: a typed client for Parley's bot API (REST) and real-time gateway.
 * This is the entry for browsers and bundlers: the gateway uses `globalThis.WebSocket`
 * (or the `WebSocket` option). On Node, `node.ts` adds the `ws` package as the default.
 *
 * ```ts
 * import { ParleyBot } from '@parley/sdk';
 * const bot = new ParleyBot({ baseUrl: 'http://localhost:8080', token: process.env.PARLEY_TOKEN! });
 * bot.on('messageCreate', async (message) => {
 *   if (message.content === '!ping') await bot.rest.sendMessage(message.channelId, 'pong');
 * });
 * await bot.connect();
 * ```
 */
export { ParleyBot, EVENT_HANDLER_NAMES, gatewayUrlFor, type ParleyBotEvents, type ParleyBotOptions } from './bot.js';
export {
  GatewayClient,
  GatewayCloseCodes,
  type GatewayClientEvents,
  type GatewayClientOptions,
  type GatewayCloseInfo,
  type GatewayStatus,
  type ReconnectOptions,
  type WebSocketConstructor,
  type WebSocketLike,
} from './gateway.js';
export {
  RestClient,
  SDK_VERSION,
  type RateLimitInfo,
  type RequestOptions,
  type RestClientOptions,
  type SendMessageOptions,
  type UploadInput,
} from './rest.js';
export {
  BadRequestError,
  ForbiddenError,
  GatewayError,
  NetworkError,
  NotFoundError,
  ParleyApiError,
  PayloadTooLargeError,
  RateLimitError,
  UnauthorizedError,
  API_ERROR_CODES,
  apiErrorCodeOf,
  errorCodeForStatus,
  type ApiErrorCode,
  type ParleyErrorCode,
  type StatusErrorCode,
  type RequestInfo,
} from './errors.js';
export { TypedEmitter, type EventMap, type Listener } from './emitter.js';
export {
  InteractionContext,
  InteractionRouter,
  button,
  linkButton,
  modal,
  row,
  select,
  textInput,
  type CallbackSender,
  type CommandDefinition,
  type ContextMenuDefinition,
  type CustomIdMatcher,
  type InteractionHandler,
  type ReplyInput,
} from './interaction-router.js';
export type * from './types.js';

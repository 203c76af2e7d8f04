/**
 * @parley/protocol: Parley's one wire definition. The server validates requests with these
 * schemas and serializes and documents its answers with them; the SDK and the web client
 * take their types from them.
 */
export * from './errors.js';
export * from './ids.js';
export * from './limits.js';
export * from './wire.js';
export * from './gateway.js';
export * from './requests.js';
export * from './permissions.js';

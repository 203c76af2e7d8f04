/**
 * @parley/protocol: Parley's one wire definition. The server serializes and documents its
 * answers with these schemas; the SDK and the web client take their types from them.
 */
export * from './errors.js';
export * from './ids.js';
export * from './limits.js';
export * from './wire.js';
export * from './gateway.js';

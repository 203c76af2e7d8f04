import { ErrorResponse, ref } from '@parley/protocol';
import { Type } from 'typebox';

// The shared schemas (`Message`, `Server`, ...) are the wire definition in @parley/protocol;
// what stays here is how routes answer, which only the HTTP layer needs.

/**
 * The answer of a route that answers with no body (204). Typed as undefined so handlers
 * keep calling `send()` with nothing; the schema says null, which OpenAPI shows as no content.
 */
export const NoContent = Type.Unsafe<undefined>({ type: 'null', description: 'No Content' });

/** Error answers every route may give: one shape for all of them. */
export const errors = { '4xx': ref(ErrorResponse), '5xx': ref(ErrorResponse) } as const;

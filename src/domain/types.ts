/**
 * Objects as the API returns them: the types of the wire schemas in @parley/protocol, so
 * what the domain returns is what the response schemas serialize.
 */
export type { Attachment, Channel, Embed, Message, PublicUser, Server, Webhook } from '@parley/protocol';

/** Who is calling: a person (with their session) or a bot. Webhooks are not callers of these routes. */
export interface Caller {
  id: string;
  name: string;
  bot: boolean;
  avatar: string | null;
  /** A person's login name (null for a bot): the key of their failed-password limit. */
  username?: string | null;
  sessionId?: string;
  /** This request's `X-Audit-Log-Reason`, for the audit-log entries it writes. */
  reason?: string;
  /**
   * The access epoch read when this request was authenticated (`AccessCache`): set only on
   * callers that live for one HTTP request, never on a gateway session's, whose epoch
   * would go stale while it lives.
   */
  accessEpoch?: number;
}

/**
 * discord-webhook-node ships types (its index.d.ts), but its package.json "exports" hides
 * them from TypeScript's resolution; the part the tests use, as it declares it.
 */
declare module 'discord-webhook-node' {
  export class Webhook {
    constructor(options: string | { url: string; throwErrors?: boolean; retryOnLimit?: boolean });
    setUsername(username: string): void;
    setAvatar(avatar: string): void;
    send(message: MessageBuilder | string): Promise<void>;
    /** Posts the file at `path` as multipart (`file`); throws unless the answer is 200. */
    sendFile(path: string): Promise<void>;
  }
  export class MessageBuilder {
    setText(text: string): this;
    setTitle(title: string): this;
    setURL(url: string): this;
    setDescription(description: string): this;
    setColor(color: number | string): this;
    addField(name: string, value: string, inline?: boolean): this;
    setFooter(text: string, image?: string): this;
    setImage(url: string): this;
    setTimestamp(date?: Date): this;
  }
}

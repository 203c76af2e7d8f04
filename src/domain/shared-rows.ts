/**
 * Frozen values handed out again while unchanged. Per group (a server), it keeps the values
 * the last call returned, for the latest few groups: a fresh value equal (`same`) to the one
 * held under its id is replaced by the held one. Event entries that each list a server's
 * whole role list (a bot's MEMBER_ADD, a person's join model) then hold references to
 * shared objects instead of a copy each: with thousands of bots, thousands of roles.
 */
export class SharedRows<V extends object> {
  private readonly last = new Map<string, Map<string, Readonly<V>>>();

  constructor(
    private readonly idOf: (v: V) => string,
    private readonly same: (held: Readonly<V>, fresh: V) => boolean,
    private readonly groupsMax = 64,
  ) {}

  share(group: string, fresh: V[]): Array<Readonly<V>> {
    const before = this.last.get(group);
    const now = new Map<string, Readonly<V>>();
    const out = fresh.map((v) => {
      const id = this.idOf(v);
      const held = before?.get(id);
      const value = held !== undefined && this.same(held, v) ? held : Object.freeze(v);
      now.set(id, value);
      return value;
    });
    // Most recently used last; the oldest group goes when the map is full.
    this.last.delete(group);
    if (this.last.size >= this.groupsMax) this.last.delete(this.last.keys().next().value!);
    this.last.set(group, now);
    return out;
  }
}

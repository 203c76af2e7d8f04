/**
 * The time a test server runs on (`AppDeps.clock`): real time plus whatever the test has
 * moved it on by, so a test of a 5-second window advances 5 s instead of waiting them.
 */
export class TestClock {
  private offset = 0;
  readonly now = (): number => Date.now() + this.offset;
  advance(ms: number): void {
    this.offset += ms;
  }
}

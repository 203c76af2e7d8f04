/** A failure the `parley` command explains in one line (exit 1). */
export class CliFailure extends Error {}

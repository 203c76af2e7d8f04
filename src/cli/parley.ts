import { runCli } from './main.js';

/** The `parley` command's entry (bin/parley.js runs its build): real arguments, streams and exit code. */
const code = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  stdin: async () => {
    // Up to the first line end: what follows is not read (`yes | parley ...` ends too).
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) {
      chunks.push(chunk as Buffer);
      if ((chunk as Buffer).includes(0x0a)) break;
    }
    process.stdin.destroy();
    return Buffer.concat(chunks).toString('utf8');
  },
});
process.exitCode = code;

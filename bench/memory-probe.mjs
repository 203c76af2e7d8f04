// Preloaded by bench/idle-memory.ts (`node --import ./bench/memory-probe.mjs ...`): answers
// each message on the IPC channel with process.memoryUsage(). Plain JavaScript so that it
// runs beside the built service without tsx; it loads nothing else.
process.on('message', () => {
  process.send?.(process.memoryUsage());
});
// The channel must not keep the service alive on its own (SIGTERM still stops it).
process.channel?.unref();

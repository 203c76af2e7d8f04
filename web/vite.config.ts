import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { precompress } from './build/precompress';

const root = fileURLToPath(new URL('.', import.meta.url));

/** Paths served by the Parley API; `vite dev` proxies them to a running service. */
const apiPaths = ['/auth', '/users', '/servers', '/channels', '/bots', '/webhooks', '/upload', '/uploads', '/invites', '/healthz'];
const target = process.env.PARLEY_URL ?? 'http://localhost:8080';

export default defineConfig({
  root,
  base: '/',
  plugins: [react(), precompress()],
  resolve: {
    // The SDK from its TypeScript source, as the type checks and tests see it, so a web
    // build needs no SDK build first. Its browser entry, index.ts: only the Node entry
    // (node.ts) imports `ws`.
    alias: { '@parley/sdk': fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 400,
  },
  server: {
    proxy: {
      ...Object.fromEntries(apiPaths.map((p) => [p, { target, changeOrigin: false }])),
      '/gateway': { target, ws: true },
    },
  },
});

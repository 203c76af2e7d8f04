import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';
import { EMOJI_BASE, emojiAssets } from './build/emoji';
import { precompress } from './build/precompress';
import { themeSwitch } from './build/theme';

const root = fileURLToPath(new URL('.', import.meta.url));

/** Paths served by the Parley API; `vite dev` proxies them to a running service. */
const apiPaths = ['/auth', '/users', '/servers', '/channels', '/bots', '/webhooks', '/upload', '/uploads', '/invites', '/healthz'];
const target = process.env.PARLEY_URL ?? 'http://localhost:8080';

export default defineConfig({
  root,
  base: '/',
  plugins: [
    react(),
    emojiAssets(),
    // Installable app (issue 13): a web app manifest, and a service worker (Workbox, made at
    // build time) that precaches the app shell (HTML, scripts, styles, icons) so that the
    // client opens at once, offline too. Nothing of the API is cached: navigations to API
    // paths go to the network, and API requests are never intercepted.
    VitePWA({
      registerType: 'autoUpdate',
      // A script file (not inline): the page's Content-Security-Policy allows 'self' only.
      injectRegister: 'script-defer',
      includeAssets: ['favicon.svg'],
      manifest: {
        name: 'Parley',
        short_name: 'Parley',
        description: 'Chat for communities, with bots and webhooks, on your own server.',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        background_color: '#f7f7f9',
        theme_color: '#5b5bd6',
        icons: [
          { src: '/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: '/icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: '/icon-512-maskable.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
          { src: '/favicon.svg', sizes: 'any', type: 'image/svg+xml' },
        ],
      },
      workbox: {
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest}'],
        // The emoji set (~3,700 SVGs) is not precached: each is cached when first drawn.
        globIgnores: [`${EMOJI_BASE.slice(1)}**`],
        runtimeCaching: [
          {
            // A RegExp, not a function: Workbox copies this into the worker as source text.
            urlPattern: new RegExp(`${EMOJI_BASE.replace(/[.]/g, '\\.')}[^/]+\\.svg$`),
            handler: 'CacheFirst',
            options: {
              cacheName: 'parley-emoji',
              expiration: { maxEntries: 1000 },
              cacheableResponse: { statuses: [200] },
            },
          },
        ],
        navigateFallback: '/index.html',
        navigateFallbackDenylist: [
          new RegExp(
            `^/(?:${[...apiPaths.map((p) => p.slice(1)), 'api', 'readyz', 'metrics', 'openapi\\.json', 'docs', 'gateway'].join('|')})(?:/|$)`,
          ),
        ],
        cleanupOutdatedCaches: true,
        clientsClaim: true,
        skipWaiting: true,
      },
    }),
    precompress({ skip: [EMOJI_BASE.slice(1)] }),
  ],
  // The theme chosen in the client's settings overrides the system's (web/build/theme.ts).
  css: { postcss: { plugins: [themeSwitch()] } },
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

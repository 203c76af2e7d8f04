# syntax=docker/dockerfile:1
# Parley's container image (docs/deploy.md, "Container image"):
#   docker build -t parley .
#   docker run -d --name parley -p 8080:8080 -v parley-data:/data \
#     -e PUBLIC_URL=https://chat.example.com parley

# Build: every dependency, then protocol, SDK, server and web client; then drop the dev
# dependencies so the runtime stage copies production ones only.
FROM node:22-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 downloads a prebuilt binary; the toolchain is for when none fits.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY protocol/package.json protocol/
COPY sdk/package.json sdk/
# Scripts are skipped so "prepare" does not build before the sources are here; the two
# packages with native or binary parts are set up explicitly.
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3 esbuild
COPY . .
RUN npm run build && npm prune --omit=dev --ignore-scripts

# Runtime: Node, production dependencies and the built files; runs as the unprivileged
# "node" user of the base image, with its data on a volume. MALLOC_ARENA_MAX=2 keeps
# glibc from giving each of Node's threads its own malloc arena: about 2 MB less idle
# RSS (bench/README.md, "Idle memory").
FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    DATA_DIR=/data \
    MALLOC_ARENA_MAX=2
# Poppler's pdftoppm draws PDF attachments' first pages (docs/api.md#uploads).
RUN apt-get update \
  && apt-get install -y --no-install-recommends poppler-utils \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/protocol/package.json protocol/
COPY --from=build /app/protocol/dist protocol/dist
COPY --from=build /app/dist dist
COPY --from=build /app/web/dist web/dist
COPY --from=build /app/bin bin
RUN mkdir -p /data && chown node:node /data \
  && ln -s /app/bin/parley.js /usr/local/bin/parley
USER node
VOLUME ["/data"]
EXPOSE 8080
# /healthz answers 200 while the database answers; fetch is built into Node.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM (docker stop) drains requests and lets gateway clients resume; give it
# SHUTDOWN_GRACE_SECONDS plus a little: docker stop -t 20.
STOPSIGNAL SIGTERM
CMD ["node", "dist/server/main.js"]

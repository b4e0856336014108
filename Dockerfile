# syntax=docker/dockerfile:1
# The service as one image: `docker build -t messaging-agent-service .` (docker-compose.yml builds it too).

# --- build: all dependencies, compile the server (dist/server) and build the dashboard and widget ---
FROM node:20-bookworm-slim AS build
WORKDIR /app
# Toolchain for native modules (better-sqlite3, argon2) should no prebuilt binary fit.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY web ./web
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

# --- runtime: production dependencies and the build output only, as a non-root user ---
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/app/data
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json /app/package-lock.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
# The operator commands (npm run superadmin / replay / projections:rebuild) run the TypeScript sources with tsx.
COPY --from=build --chown=node:node /app/src ./src
COPY --from=build --chown=node:node /app/tsconfig.json ./
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/server/main.js"]

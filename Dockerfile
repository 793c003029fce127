# fuelprice: the API server and its command line in one image (docs/DEPLOY.md).
#
#   docker build -t fuelprice .
#   docker run -d --name fuelprice -p 8080:8080 -v fuelprice-data:/data fuelprice
#   docker exec fuelprice fuelprice tokens create --name me
#
# Three stages on the same Debian (bookworm) and Node 24 (LTS), the supported runtime (package.json's
# engines allow 22.12 or later; CI runs the suite on 24):
# `deps` installs the production dependencies and compiles better-sqlite3's native addon,
# `build` compiles the TypeScript, and the runtime stage takes both without the compilers.

FROM node:24-bookworm-slim AS deps
WORKDIR /app
# better-sqlite3 13 carries its Node-API addon for linux x64 and arm64 in its npm package; python3,
# make and g++ are for a platform without one (`npm rebuild better-sqlite3 --build-from-source`).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# --ignore-scripts: the package's own `prepare` (tsc) cannot run without the dev dependencies;
# then only the two dependencies that need their install scripts run them. A node-gyp build would
# compile against the headers the base image has in /usr/local/include/node (npm_config_nodedir)
# instead of downloading them from nodejs.org, so that the build needs no host but npm's
# registry and Debian's mirror.
RUN npm ci --omit=dev --ignore-scripts \
 && npm_config_nodedir=/usr/local npm rebuild better-sqlite3 esbuild \
 && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()" \
 && npm cache clean --force

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# dist/ is written after src/ was copied, so bin/fuelprice.js finds it newer than every
# source file and runs it (COPY --from keeps modification times) instead of the sources.
RUN npm run build

FROM node:24-bookworm-slim
WORKDIR /app
# /data is the volume the SQLite database lives in, owned by the unprivileged `node` user
# (uid 1000) of the base image; `fuelprice` on the PATH for `docker exec`.
RUN mkdir /data && chown node:node /data \
 && ln -s /app/bin/fuelprice.js /usr/local/bin/fuelprice
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY bin ./bin
COPY --from=build /app/src ./src
COPY --from=build /app/dist ./dist

# HOST: every interface of the container; DATABASE_URL: SQLite on the volume (set a
# postgres:// URL to use PostgreSQL). The rest of the configuration: README, Configuration.
ENV HOST=0.0.0.0 \
    PORT=8080 \
    DATABASE_URL=sqlite:/data/fuelprice.db \
    LOG_LEVEL=info

USER node
VOLUME ["/data"]
EXPOSE 8080

# Liveness only (GET /health needs no token and stays 200 under load); /ready is for load balancers.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# `docker stop` sends SIGTERM: requests in flight finish and the process exits within 10 s,
# which is docker's default wait; give it `--stop-timeout 15` for room. --create: the image's own
# volume starts empty, so the first start makes the database there (outside the image, a missing
# SQLite file is an error unless asked for, as a mistyped name would otherwise start a new one).
ENTRYPOINT ["fuelprice"]
CMD ["serve", "--create"]

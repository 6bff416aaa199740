# The example agents' gateway and worker, and the CLI, in one image; docker-compose.yml picks the command.
# A project of your own builds the same way: the package, your config, agents and activities, and
# `a2a-temporal worker` / `a2a-temporal gateway` as the commands.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production LOG_FORMAT=json
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY templates ./templates
COPY examples ./examples
USER node
EXPOSE 8080 8081
CMD ["node", "bin/a2a-temporal.js", "gateway", "examples/a2a-temporal.config.ts"]

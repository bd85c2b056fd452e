# kube-admission-harness: the mock kube-apiserver as an image. `docker compose up` runs it with etcd
# (docker-compose.yml); alone, `docker run -p 6443:6443 IMAGE` serves on in-memory storage.

# --- build: compile TypeScript with the dev dependencies ---
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# Sources only (.dockerignore keeps node_modules, dist, tests and generated certs out).
COPY . .
RUN npm run build

# --- runtime: dist/ and the production dependencies, running as the unprivileged node user ---
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The cert and kubeconfig dirs exist in the image, owned by node, so fresh named volumes mounted there (compose's
# certs and kubeconfig) are writable by node.
RUN mkdir -p /var/lib/kah/certs /var/run/kah /etc/kah/admission && chown -R node:node /var/lib/kah /var/run/kah
USER node
EXPOSE 6443
ENTRYPOINT ["node", "dist/harness/cli.js", "serve"]
# Default flags; `docker run IMAGE <flags>` (or compose `command:`) replaces all of them. Anonymous requests get
# 401: the admin kubeconfig (client certificate) is in the container, `docker cp CONTAINER:/var/run/kah/kubeconfig .`
CMD ["--bind-address=0.0.0.0", "--secure-port=6443", "--anonymous-auth=false", "--cert-dir=/var/lib/kah/certs", "--write-kubeconfig=/var/run/kah/kubeconfig"]

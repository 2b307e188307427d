# Build on debian:12 with the README's own commands (scripts/install-deps.sh build, make build),
# run on debian:12-slim as a non-root user with the database on a volume (or TACTICS_DB set to
# a postgres:// URL: see compose.yaml).
#
# TODO(pin): pin both base images by digest (FROM debian:12@sha256:...). This repository is
# built where Docker Hub cannot be reached, so the digests could not be looked up and are not
# guessed; run `docker buildx imagetools inspect debian:12` and `... debian:12-slim` and add
# them here.
FROM debian:12 AS build
WORKDIR /src
# The dependencies first, in a layer that changes only with install-deps.sh, not with every
# source edit; only the build's packages (no test tools, no Node.js: the contract is embedded
# from the checked-in openapi/dist/).
COPY scripts/install-deps.sh scripts/install-deps.sh
RUN scripts/install-deps.sh build && rm -rf /var/lib/apt/lists/*
COPY . .
RUN make build JOBS=2

FROM debian:12-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmicrohttpd12 libjansson4 libsqlite3-0 libpq5 \
    libcairo2 libfontconfig1 libpng16-16 fonts-dejavu-core libunistring2 \
    fonts-wqy-microhei fonts-noto-color-emoji libsodium23 libcurl4 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/tactics --create-home tactics
COPY --from=build /src/build/release/service/tacticsd /usr/local/bin/tacticsd
USER tactics
WORKDIR /var/lib/tactics
VOLUME ["/var/lib/tactics"]
ENV TACTICS_DB=/var/lib/tactics/tactics.db \
    TACTICS_BIND=0.0.0.0 \
    TACTICS_PORT=8080
EXPOSE 8080
# No curl in the runtime image: bash (in debian:12-slim already) asks /healthz over /dev/tcp.
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${TACTICS_PORT}; printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3; head -n 1 <&3 | grep -q ' 200 '"]
# SIGTERM drains requests in flight and closes the database before exiting 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/tacticsd"]

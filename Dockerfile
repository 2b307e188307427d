# Build on debian:12 with the same commands as the README (scripts/install-deps.sh, make),
# run on debian:12-slim as a non-root user with the database on a volume.
FROM debian:12 AS build
WORKDIR /src
COPY . .
RUN scripts/install-deps.sh && make build

FROM debian:12-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmicrohttpd12 libjansson4 libsqlite3-0 \
    libcairo2 libfontconfig1 libpng16-16 fonts-dejavu-core curl \
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
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
  CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
# SIGTERM drains requests in flight and closes the database before exiting 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/tacticsd"]

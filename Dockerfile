# Build on debian:12 with the README's own commands (scripts/install-deps.sh build, make build),
# run in a distroless-style image made of the same Debian 12 packages' files: tacticsd, the
# shared libraries it loads, the DejaVu fonts and fontconfig's configuration, a passwd entry
# for the non-root user `tactics` (uid 10001) and nothing else (no shell, no apt). The database
# is on the volume /var/lib/tactics (or TACTICS_DB is a postgres:// URL: see compose.yaml).
#
# Why distroless-style and not debian:12-slim (the target `slim` below, kept to measure and for
# anyone who wants a shell in the container): both serve the same (scripts/image-check runs the
# image), but this one is 56.4 MB and the slim one 128.0 MB (uncompressed, on bases made by
# debootstrap; scripts/image-check prints both): the slim base alone is 77.9 MB of shell,
# coreutils, apt, dpkg and perl-base that tacticsd never runs, and that an intruder could. What
# it costs: no HEALTHCHECK (no program in the image could ask /healthz; probe over HTTP from
# outside instead, as compose.yaml's HAProxy checks /readyz or a Kubernetes httpGet probe does,
# or build `--target slim`, which keeps one), and no `docker exec ... sh` for debugging (use
# `--target slim`).
#
# scripts/image-check builds this file with buildah, runs the image and checks it (README,
# "Deploying").
#
# TODO(pin): pin both base images by digest (FROM debian:12@sha256:...). This repository is
# built where Docker Hub cannot be reached (scripts/image-check makes debian:12 and
# debian:12-slim with debootstrap), so the digests could not be looked up and are not guessed;
# run `docker buildx imagetools inspect debian:12` and `... debian:12-slim` and add them here.
FROM debian:12 AS build
WORKDIR /src
# The dependencies first, in a layer that changes only with install-deps.sh, not with every
# source edit; only the build's packages (no test tools, no Node.js: the contract is embedded
# from the checked-in openapi/dist/).
COPY scripts/install-deps.sh scripts/install-deps.sh
RUN scripts/install-deps.sh build && rm -rf /var/lib/apt/lists/*
COPY . .
RUN make build JOBS=2

# The runtime's files, gathered from Debian's packages (scripts/image-rootfs.sh says what and
# how). It does not read the built binary, so it, and the final image's layer made from it,
# are cached across source edits: the sonames below are tacticsd's NEEDED entries
# (readelf -d tacticsd).
# The fonts are the ones the renderer draws names with (render/fonts.c: DejaVu Sans, WenQuanYi
# Micro Hei for CJK, Noto Color Emoji), and ca-certificates the roots libcurl checks Discord's
# certificate against when a deferred command's followup goes out (service/discord/followup.c).
FROM debian:12 AS runtime-files
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmicrohttpd12 libjansson4 libsqlite3-0 libpq5 \
    libcairo2 libfontconfig1 libpng16-16 libunistring2 libsodium23 libcurl4 libjemalloc2 \
    ca-certificates fonts-dejavu-core fonts-wqy-microhei fonts-noto-color-emoji fontconfig \
 && rm -rf /var/lib/apt/lists/*
COPY scripts/image-rootfs.sh /usr/local/bin/image-rootfs.sh
RUN image-rootfs.sh /rootfs libjemalloc.so.2 libsodium.so.23 libcurl.so.4 libmicrohttpd.so.12 \
    libjansson.so.4 libunistring.so.2 libcairo.so.2 libfontconfig.so.1 libpng16.so.16 libsqlite3.so.0 \
    libpq.so.5 libm.so.6 libc.so.6

# The debian:12-slim runtime, for comparison and for a shell: `--target slim`.
FROM debian:12-slim AS slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmicrohttpd12 libjansson4 libsqlite3-0 libpq5 \
    libcairo2 libfontconfig1 libpng16-16 fonts-dejavu-core libunistring2 \
    fonts-wqy-microhei fonts-noto-color-emoji libsodium23 libcurl4 libjemalloc2 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /var/lib/tactics --create-home tactics
COPY --from=build /src/build/release/service/tacticsd /usr/local/bin/tacticsd
USER tactics
WORKDIR /var/lib/tactics
VOLUME ["/var/lib/tactics"]
# XDG_CACHE_HOME: fontconfig writes a cache of its own when it finds none valid, and it would
# put it in its home, the volume, if not told otherwise.
ENV TACTICS_DB=/var/lib/tactics/tactics.db \
    TACTICS_BIND=0.0.0.0 \
    TACTICS_PORT=8080 \
    XDG_CACHE_HOME=/tmp/.cache
EXPOSE 8080
# bash (in debian:12-slim already) asks /healthz over /dev/tcp.
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${TACTICS_PORT}; printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3; head -n 1 <&3 | grep -q ' 200 '"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/tacticsd"]

# The image: the gathered files, then the binary (the only layer a source edit changes).
FROM scratch
COPY --from=runtime-files /rootfs/ /
COPY --from=build /src/build/release/service/tacticsd /usr/local/bin/tacticsd
USER tactics
WORKDIR /var/lib/tactics
VOLUME ["/var/lib/tactics"]
# XDG_CACHE_HOME: fontconfig writes a cache of its own when it finds none valid, and it would
# put it in its home, the volume, if not told otherwise.
ENV TACTICS_DB=/var/lib/tactics/tactics.db \
    TACTICS_BIND=0.0.0.0 \
    TACTICS_PORT=8080 \
    XDG_CACHE_HOME=/tmp/.cache
EXPOSE 8080
# SIGTERM drains requests in flight and closes the database before exiting 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/tacticsd"]

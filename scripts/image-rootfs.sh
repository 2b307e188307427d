#!/usr/bin/env bash
# Gathers the distroless runtime's files into DIR (the Dockerfile's runtime-files stage runs it
# on debian:12 with the runtime packages installed): the shared libraries tacticsd loads, found
# by the loader itself (ldd) from the libraries tacticsd links directly, the fonts and
# fontconfig's configuration and cache, a passwd and group entry for the user `tactics`
# (uid 10001), /tmp, and the copyright notices of every Debian package a file came from.
# Nothing else: no shell, no package manager, no coreutils.
#   scripts/image-rootfs.sh DIR SONAME...
# The sonames are tacticsd's NEEDED entries (readelf -d tacticsd); the list lives in the
# Dockerfile, not read off the binary, so that this layer does not change with every source
# edit. A library missing from it makes the image's tacticsd fail to start, which
# scripts/image-check catches.
set -euo pipefail
root=$1
shift
mkdir -p "$root"
cd "$root"
# Debian 12's merged /usr: /lib and /lib64 are links into /usr, as the loader's path
# (/lib64/ld-linux-x86-64.so.2) and ldd's answers expect.
mkdir -p usr/lib usr/lib64 etc tmp var/lib/tactics usr/share/doc
ln -sfn usr/lib lib
ln -sfn usr/lib64 lib64
chmod 1777 tmp

# Every library the direct ones load, and the loader; libgcc_s too, which glibc dlopens to
# unwind a thread on pthread_exit and pthread_cancel (no ldd shows it).
libs=()
for soname in "$@" libgcc_s.so.1; do
  path=$(ldconfig -p | awk -v n="$soname" '$1 == n && !p { print $NF; p = 1 }')
  if [ -z "$path" ]; then
    echo "image-rootfs: $soname is not installed" >&2
    exit 1
  fi
  libs+=("$path")
  while read -r dep; do libs+=("$dep"); done < <(ldd "$path" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
done
# Each is copied under the name the loader asks for (the soname, not the file it links to),
# into the real folder (/usr/lib/..., since /lib is a link).
declare -A seen=()
files=()
for lib in "${libs[@]}"; do
  dest=$(readlink -f "$(dirname "$lib")")/$(basename "$lib")
  if [ -n "${seen[$dest]:-}" ]; then continue; fi
  seen[$dest]=1
  mkdir -p ".$(dirname "$dest")"
  cp -L "$lib" ".$dest"
  files+=("$(readlink -f "$lib")")
done

# The fonts the renderer asks fontconfig for (DejaVu Sans), fontconfig's configuration, and its
# cache made here (fc-cache) so that tacticsd neither scans the fonts at start nor writes a
# cache into its home, the database volume.
# The cache is valid only while each font folder's mtime is the one it recorded, so the folders
# are copied whole with their times (cp -a), /usr/share/fonts included, not made anew.
fc-cache -s
for d in /etc/fonts /usr/share/fontconfig /usr/share/fonts /var/cache/fontconfig; do
  mkdir -p ".$(dirname "$d")"
  cp -a "$d" ".$d"
done
files+=(/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /etc/fonts/fonts.conf)
for f in /usr/share/fonts/truetype/wqy/wqy-microhei.ttc /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf; do
  if [ -f "$f" ]; then files+=("$f"); fi
done

# The roots libcurl checks a TLS peer against (Debian's libcurl reads this bundle), for the
# Discord followups: without them every deferred command's answer would fail to go out.
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  mkdir -p etc/ssl/certs
  cp /etc/ssl/certs/ca-certificates.crt etc/ssl/certs/ca-certificates.crt
  files+=(/usr/share/ca-certificates)
fi

cat >etc/passwd <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
tactics:x:10001:10001:tactics:/var/lib/tactics:/sbin/nologin
EOF
cat >etc/group <<'EOF'
root:x:0:
tactics:x:10001:
EOF
# glibc's files and dns lookups are inside libc.so.6 since 2.34; this sets their order (the
# default without the file asks DNS before /etc/hosts).
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >etc/nsswitch.conf
chown 10001:10001 var/lib/tactics

# The licences: every package a copied file came from.
# (bookworm's packages still list some files under /lib, which merged /usr puts in /usr/lib.)
owner() { dpkg -S "$1" 2>/dev/null || dpkg -S "${1#/usr}"; }
for pkg in $(for f in "${files[@]}"; do owner "$f"; done | cut -d: -f1 | tr ', ' '\n\n' | sort -u); do
  if [ -f "/usr/share/doc/$pkg/copyright" ]; then
    mkdir -p "usr/share/doc/$pkg"
    cp "/usr/share/doc/$pkg/copyright" "usr/share/doc/$pkg/copyright"
  fi
done

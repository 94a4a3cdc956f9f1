#!/bin/bash
# Writes the upgrade fixtures with the executables of an earlier release: two small backups
# through its gpbackup_dedup_plugin into its store, once on a local data directory and once on a
# bucket (S3Proxy with its filesystem backend). Output, in OUT:
#   local-store.tar.gz   the store's ~/.gpdedup (config and data directory), store stopped
#   bucket.tar.gz        S3Proxy's directory of the bucket "fixture" (prefix site1/), with the
#                        extended attributes in which S3Proxy keeps each object's ETag
#   bucket-store.yaml    the store config of that bucket, its endpoint left as @ENDPOINT@
#   objects.sha256       SHA-256 and key of every object the backups wrote
# Usage: make-fixtures.sh DIST S3PROXY_LIB OUT
#   DIST: the earlier release's dist/ directory; S3PROXY_LIB: test-support/target/s3proxy/lib
set -euo pipefail
dist=$(realpath "$1"); s3lib=$(realpath "$2"); mkdir -p "$3"; out=$(realpath "$3")
work=$(mktemp -d); pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 600); do [ -s "$1" ] && return 0; sleep 0.1; done; echo "timed out waiting for $1" >&2; tail -5 "$(dirname "$1")/store.err" >&2; return 1; }

# Deterministic data: table 16384 is pseudo-random bytes, 16385 text; the second backup changes
# 16384 in the middle and appends to it, and repeats 16385, so it shares most chunks with the first.
python3 - "$work/data" <<'PY'
import os, random, sys
d = sys.argv[1]; os.makedirs(d)
t1 = random.Random(20261101).randbytes(96 * 1024)
t2 = "".join("%d\tcustomer %d\t%d.%02d\n" % (i, i * 7919 % 10007, i % 997, i % 100) for i in range(1, 4001)).encode()
t1b = t1[:40000] + random.Random(20261102).randbytes(100) + t1[40100:] + random.Random(20261103).randbytes(16 * 1024)
for name, data in (("a-16384", t1), ("a-16385", t2), ("b-16384", t1b), ("b-16385", t2)):
    open(os.path.join(d, name), "wb").write(data)
PY

key() { echo "/data/gpseg0/backups/${1:0:8}/$1/gpbackup_0_$1_$2"; }
backups() { # $1: store port; writes both backups through the plugin and records their SHA-256
  local cfg="$work/plugin-$1.yaml" sums="$2"
  printf 'executablepath: %s\noptions:\n  hostname: 127.0.0.1\n  port: "%s"\n  username: gpdedup\n  password: gpdedup\n  storage_unit: gpdedup\n  directory: cluster1\n  log_directory: %s\n' \
    "$dist/bin/gpbackup_dedup_plugin" "$1" "$work/logs" > "$cfg"
  : > "$sums"
  for b in a:20261101100000 b:20261102100000; do
    for oid in 16384 16385; do
      k=$(key "${b#*:}" $oid)
      GPDEDUP_AGENT=off HOME="$work" "$dist/bin/gpbackup_dedup_plugin" backup_data "$cfg" "$k" < "$work/data/${b%%:*}-$oid"
      echo "$(sha256sum < "$work/data/${b%%:*}-$oid" | cut -d' ' -f1)  cluster1/backups/${b:2:8}/${b#*:}/gpbackup_0_${b#*:}_$oid" >> "$sums"
    done
  done
}
serve() { # $1: HOME; the rest: serve options
  local home=$1; shift
  HOME="$home" AWS_ACCESS_KEY_ID=gpdedup-test AWS_SECRET_ACCESS_KEY=gpdedup-test-secret \
    GPDEDUP_JAVA_OPTS=-Dgpdedup.s3.lease-settle-millis=1000 \
    "$dist/bin/gpdedup-store" serve --port 0 --metrics-port -1 --port-file "$home/port" "$@" > /dev/null 2>> "$home/store.err" &
  pids+=($!); wait_for "$home/port"
}
stop() { kill "${pids[-1]}"; wait "${pids[-1]}" || true; unset 'pids[-1]'; }

# A local data directory: the demo config the store writes at its first start.
mkdir -p "$work/local"
serve "$work/local"; backups "$(cat "$work/local/port")" "$work/local.sha256"; stop
tar -C "$work/local" -czf "$out/local-store.tar.gz" --owner=0 --group=0 --numeric-owner .gpdedup

# A bucket unit on S3Proxy's filesystem backend.
s3port=$(free_port); mkdir -p "$work/s3/buckets/fixture" "$work/bucket"
printf 's3proxy.endpoint=http://127.0.0.1:%s\ns3proxy.authorization=aws-v2-or-v4\ns3proxy.identity=gpdedup-test\ns3proxy.credential=gpdedup-test-secret\njclouds.provider=filesystem\njclouds.filesystem.basedir=%s\n' \
  "$s3port" "$work/s3/buckets" > "$work/s3/s3proxy.conf"
java -cp "$s3lib/*" org.gaul.s3proxy.Main --properties "$work/s3/s3proxy.conf" > "$work/s3/log" 2>&1 &
pids+=($!)
for _ in $(seq 1200); do (exec 3<>"/dev/tcp/127.0.0.1/$s3port") 2>/dev/null && break; sleep 0.1; done
hash=$(sed -n 's/^ *gpdedup: *\(pbkdf2.*\)/\1/p' "$work/local/.gpdedup/store.yaml" | head -1)
printf 'listen-address: 127.0.0.1\ndata-dir: store\nstorage:\n  type: s3\n  endpoint: @ENDPOINT@\n  region: us-east-1\n  bucket: fixture\n  prefix: site1/\n  path-style: true\n  cache-bytes: 256MiB\nunits:\n  gpdedup:\n    users:\n      gpdedup: %s\n' \
  "$hash" > "$out/bucket-store.yaml"
mkdir -p "$work/bucket/.gpdedup"
sed "s|@ENDPOINT@|http://127.0.0.1:$s3port|" "$out/bucket-store.yaml" > "$work/bucket/.gpdedup/store.yaml"
serve "$work/bucket"; backups "$(cat "$work/bucket/port")" "$work/bucket.sha256"; stop
cmp "$work/local.sha256" "$work/bucket.sha256"
cp "$work/local.sha256" "$out/objects.sha256"
tar -C "$work/s3/buckets" --xattrs -czf "$out/bucket.tar.gz" --owner=0 --group=0 --numeric-owner fixture

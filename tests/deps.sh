#!/bin/sh
# Installs what colpipe needs on a fresh Debian 12 machine, and only what
# is missing: the Debian packages (apt-get) and the DuckDB oracle used by
# the differential tests (npm ci in tests/oracle, from the committed
# package-lock.json).  With --quiet it prints nothing when all is present.
# With --fuzz it installs only clang and libFuzzer's runtime (make fuzz;
# large, so not among what make check needs).
set -eu
quiet=0
[ "${1:-}" = "--quiet" ] && quiet=1
if [ "${1:-}" = "--fuzz" ]; then
	missing=""
	for p in clang libclang-rt-14-dev; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed' || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "deps: installing Debian packages:$missing" >&2
		if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
		$sudo apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
			$missing >&2
	fi
	exit 0
fi
top=$(cd "$(dirname "$0")/.." && pwd)

pkgs="libarchive-dev libsnappy-dev libzstd-dev libxxhash-dev zlib1g-dev \
liblz4-dev libbrotli-dev \
bats bats-assert bats-support mandoc zstd valgrind sqlite3 time"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing Debian packages:$missing" >&2
	if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >&2
elif [ $quiet -eq 0 ]; then
	echo "deps: Debian packages present" >&2
fi

oracle="$top/tests/oracle"
if [ -f "$oracle/package-lock.json" ]; then
	# The stamp holds the lock file's hash, not its time: a checkout
	# made later (a clone, a worktree sharing node_modules) has a newer
	# lock file with the same content, and must not reinstall.
	want=$(sha256sum < "$oracle/package-lock.json" | cut -d' ' -f1)
	stamp="$oracle/node_modules/.colpipe-lock-sha256"
	have=$(cat "$stamp" 2>/dev/null || true)
	if [ ! -d "$oracle/node_modules/@duckdb/node-api" ] ||
	    [ "$want" != "$have" ]; then
		if command -v npm >/dev/null 2>&1; then
			echo "deps: npm ci (DuckDB oracle)" >&2
			(cd "$oracle" && npm ci --no-audit --no-fund --loglevel=error) >&2
			echo "$want" > "$stamp"
		else
			echo "deps: npm not found; oracle tests will be skipped" >&2
		fi
	elif [ $quiet -eq 0 ]; then
		echo "deps: DuckDB oracle present" >&2
	fi
fi

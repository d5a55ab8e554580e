# lib.sh - what the benchmark scripts share, sourced after "set -eu":
#
#	. "$(dirname "$0")/lib.sh"
#	bench_init NAME              (NAME prefixes every message)
#
# bench_init sets top (the repository, also the working directory),
# BUILD (absolute), bin ($BUILD/bin), shared ($COLPIPE_SHARED, default
# ../shared from the top), timer ($BUILD/harness/timer, built here from
# harness/timer.c on every run so a stale timer never measures) and tmp
# (a private directory under $TMPDIR, removed on every exit); LC_ALL=C.
# It defines say, die STATUS MESSAGE, jget JSON FIELD (a number from the
# timer's one-line JSON), sha (SHA-256 of stdin), need_tools TOOL... (exit
# 2 naming the first one not built), need_duckdb (exit 2 without node and
# @duckdb/node-api), have_duckdb (the same as a test) and bench_lineitem
# (TPC-H SF0.1 lineitem, SCALE copies of its rows, as $tmp/li.csv; exit 0
# with "skipped" when the shared data is missing).
#
# Why one timer and no timing loop in shell: the timer is a small C
# process that forks each run (harness/timer.c says why that keeps the
# peak-RSS figures honest); every script hands it whole commands.

bench_init()
{
	bench_name=$1
	top=$(cd "$(dirname "$0")/.." && pwd)
	cd "$top"
	BUILD=${BUILD:-build/release}
	case $BUILD in /*) ;; *) BUILD="$top/$BUILD" ;; esac
	bin=$BUILD/bin
	shared=${COLPIPE_SHARED:-../shared}
	case $shared in /*) ;; *) shared="$top/$shared" ;; esac
	LC_ALL=C
	export LC_ALL
	timer="$BUILD/harness/timer"
	mkdir -p "$BUILD/harness"
	${CC:-cc} -std=c17 -O2 -Wall -Wextra -Werror -o "$timer" \
	    harness/timer.c || die 2 "cannot build harness/timer.c"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/colpipe-$bench_name.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

say() { printf '%s\n' "$*" >&2; }
die() {
	st=$1
	shift
	if [ "$bench_name" = bench ]; then say "bench: $*"
	else say "$bench_name bench: $*"; fi
	exit "$st"
}
jget() { printf '%s' "$1" | sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p"; }
sha() { sha256sum | cut -d' ' -f1; }

need_tools()
{
	for t in "$@"; do
		[ -x "$bin/$t" ] || die 2 "$bin/$t: not built (make first)"
	done
}

have_duckdb()
{
	command -v node >/dev/null &&
	    [ -d "$top/tests/oracle/node_modules/@duckdb/node-api" ]
}

need_duckdb()
{
	have_duckdb ||
	    die 2 "node or DuckDB missing (make deps): nothing to check against"
}

# SCALE copies of SF0.1 lineitem's rows, one header, as $tmp/li.csv.
bench_lineitem()
{
	zst="$shared/data/tpch/sf0.1/lineitem.csv.zst"
	if [ ! -r "$zst" ]; then
		say "$bench_name bench: skipped: $zst not found"
		exit 0
	fi
	command -v zstd >/dev/null || die 2 "zstd: not found (make deps)"
	zstd -q -dc "$zst" >"$tmp/one.csv" || die 1 "$zst: cannot decompress"
	if [ "${SCALE:-1}" -le 1 ]; then
		mv "$tmp/one.csv" "$tmp/li.csv"
		return
	fi
	{
		cat "$tmp/one.csv"
		i=1
		while [ $i -lt "$SCALE" ]; do
			tail -n +2 "$tmp/one.csv"
			i=$((i + 1))
		done
	} >"$tmp/li.csv"
	rm "$tmp/one.csv"
}

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
# @duckdb/node-api) and have_duckdb (the same as a test).
#
# Why one timer and no timing loop in shell: the timer is a small C
# process that forks each run (harness/timer.c says why that keeps the
# peak-RSS figures honest); bench.sh hands it whole commands.

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
	# Built aside and renamed into place: a run already under way keeps
	# executing the timer it started with.
	${CC:-cc} -std=c17 -O2 -Wall -Wextra -Werror -o "$timer.$$" \
	    harness/timer.c || die 2 "cannot build harness/timer.c"
	mv -f "$timer.$$" "$timer"
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

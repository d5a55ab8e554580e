#!/bin/sh
# run.sh - colpipe's benchmark: CSV ingest on TPC-H SF0.1 lineitem, with
# the raw floor and DuckDB measured side by side in the same run.
#
#	BUILD=build/release harness/run.sh      ("make bench" does this)
#
# Environment: BUILD (the build dir whose bin/ is measured), RUNS (timed
# runs per case, default 7), WARMUPS (default 2), COLPIPE_SHARED (where
# data/tpch/sf0.1/lineitem.csv.zst lives, default ../shared from the top
# of the repository), CC (compiler for harness/timer.c), TMPDIR.
#
# Order of work, and why:
#  1. Pin the conditions: machine, build, toolchain, data (SHA-256 of the
#     decompressed CSV).  A figure without them is not a measurement.
#  2. Check every case's answer before timing anything: csv2col | col2csv
#     must give back the input byte for byte (600572 rows), DuckDB must
#     count 600572 rows summing l_quantity to 15334802.  A wrong answer
#     stops the run; no time is recorded for it.  Each case's output
#     SHA-256 comes from this answer run.
#  3. Time each case with harness/timer (warm-ups, then RUNS runs, wall,
#     CPU and peak RSS from wait4); a run that exits non-zero stops the
#     whole benchmark.
#  4. Write harness/records/<date>-<sha>.json and print the table with
#     each case's time as a ratio of DuckDB's.
#
# Exit status: 0 recorded (or skipped because the data is missing),
# 1 a wrong answer or a failed run, 2 a missing binary or tool.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

BUILD=${BUILD:-build/release}
case $BUILD in /*) ;; *) BUILD="$top/$BUILD" ;; esac
RUNS=${RUNS:-7}
WARMUPS=${WARMUPS:-2}
shared=${COLPIPE_SHARED:-../shared}
case $shared in /*) ;; *) shared="$top/$shared" ;; esac
zst="$shared/data/tpch/sf0.1/lineitem.csv.zst"
want_rows=600572
want_qty=15334802

say()
{
	printf '%s\n' "$*" >&2
}
die()
{
	st=$1
	shift
	say "bench: $*"
	exit "$st"
}
sha()
{
	sha256sum | cut -d' ' -f1
}
json_str()
{
	printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' |
	    tr '\t\n' '  ')"
}
# jget JSON FIELD: a numeric field of the timer's one-line JSON.
jget()
{
	printf '%s' "$1" | sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p"
}

if [ ! -r "$zst" ]; then
	say "bench: skipped: $zst not found (set COLPIPE_SHARED to the" \
	    "directory holding data/tpch/sf0.1)"
	exit 0
fi
bin="$BUILD/bin"
for t in csv2col col2csv; do
	[ -x "$bin/$t" ] || die 2 "$bin/$t: not built (make BUILD=... first)"
done
for t in zstd sha256sum; do
	command -v "$t" > /dev/null || die 2 "$t: not found (make deps)"
done
duckdb=1
if ! command -v node > /dev/null ||
    [ ! -d tests/oracle/node_modules/@duckdb/node-api ]; then
	say "bench: node or tests/oracle/node_modules missing (make deps);" \
	    "DuckDB cases skipped"
	duckdb=0
fi

# ---- the timer, built here (every run: it takes a moment, and a stale
# timer can never measure) so the harness needs nothing but cc ----
timer="$BUILD/harness/timer"
cc=${CC:-cc}
mkdir -p "$BUILD/harness"
$cc -std=c17 -O2 -Wall -Wextra -Werror -o "$timer" harness/timer.c ||
    die 2 "cannot build harness/timer.c with $cc"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/colpipe-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- 1. conditions ----
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
cores=$(nproc)
kernel=$(uname -sr)
mem_kb=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)
mhz=$(sed -n 's/^cpu MHz[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
gov=$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor \
    2>/dev/null || echo unknown)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

flags=$(cat "$BUILD/.flags" 2>/dev/null || echo unknown)
case $flags in
*-fsanitize=*) mode=asan ;;
*-O0*) mode=debug ;;
*-O2*) mode=release ;;
*) mode=unknown ;;
esac
ccbin=${flags%% *}
compiler=$($ccbin --version 2>/dev/null | head -n 1 || echo unknown)
# The binaries say which commit and mode they were built from; HEAD may
# have moved since the build, so it is recorded apart, as tree_head.
vbuild=$("$bin/csv2col" --version | sed -n 's/^build \([^,]*\), \([a-z]*\) mode$/\1 \2/p')
git_sha=${vbuild%% *}
[ -n "$git_sha" ] || git_sha=unknown
[ -n "$vbuild" ] && [ "${vbuild#* }" != "$mode" ] &&
    say "bench: warning: binaries say ${vbuild#* } mode, $BUILD/.flags $mode"
tree_head=$(git rev-parse --short=12 HEAD 2>/dev/null || echo nocommit)
# Dirty means: what the build compiles (tracked or not) differs from HEAD.
if [ -n "$(git --no-optional-locks status --porcelain -- libcore tools \
    GNUmakefile 2>/dev/null | head -n 1)" ]; then
	git_dirty=true
else
	git_dirty=false
fi
version=$("$bin/csv2col" --version | head -n 1)
csv2col_sha=$(sha < "$bin/csv2col")
col2csv_sha=$(sha < "$bin/col2csv")
node_version=none
duckdb_version=none
[ $duckdb -eq 1 ] && node_version=$(node --version)
[ "$mode" = release ] ||
    say "bench: warning: $BUILD is a $mode build, not release"

csv="$tmp/lineitem.csv"
zstd -q -dc "$zst" > "$csv" || die 1 "$zst: cannot decompress"
data_sha=$(sha < "$csv")
data_bytes=$(wc -c < "$csv" | tr -d ' ')
zst_sha=$(sha < "$zst")
tmpfs=$(stat -f -c %T "$tmp" 2>/dev/null || echo unknown)

# ---- 2. answers ----
say "bench: checking answers on lineitem.csv ($data_bytes bytes)"
# shellcheck disable=SC2002 # the case is cat itself
[ "$(cat "$csv" | sha)" = "$data_sha" ] || die 1 "cat: wrong answer"
cat_out=$data_sha

"$bin/csv2col" "$csv" > "$tmp/li.col" ||
    die 1 "csv2col failed on the input; nothing timed"
c2c_out=$(sha < "$tmp/li.col")
c2c_bytes=$(wc -c < "$tmp/li.col" | tr -d ' ')
# The same stream again: a case's output hash must identify its work.
if [ "$("$bin/csv2col" "$csv" | sha)" != "$c2c_out" ]; then
	c2c_det=false
	say "bench: warning: csv2col wrote a different stream on a second run"
else
	c2c_det=true
fi
rm -f "$tmp/li.col"

{ "$bin/csv2col" "$csv"; echo $? > "$tmp/st1"; } |
    { "$bin/col2csv"; echo $? > "$tmp/st2"; } > "$tmp/back.csv"
if [ "$(cat "$tmp/st1")" != 0 ] || [ "$(cat "$tmp/st2")" != 0 ]; then
	die 1 "csv2col | col2csv: exit $(cat "$tmp/st1") | $(cat "$tmp/st2")"
fi
rt_out=$(sha < "$tmp/back.csv")
rt_rows=$(($(wc -l < "$tmp/back.csv") - 1))
if [ "$rt_out" != "$data_sha" ]; then
	cmp "$csv" "$tmp/back.csv" >&2 || :
	die 1 "csv2col | col2csv: wrong answer (output differs from the" \
	    "input); nothing timed"
fi
[ "$rt_rows" -eq "$want_rows" ] ||
    die 1 "csv2col | col2csv: $rt_rows rows, want $want_rows"
rm -f "$tmp/back.csv"

if [ $duckdb -eq 1 ]; then
	start_line=$(node harness/duckdb_csv.mjs --startup) ||
	    die 1 "duckdb: start-up failed"
	duckdb_version=${start_line#duckdb=}
	start_out=$(printf '%s\n' "$start_line" | sha)
	dd_line=$(node harness/duckdb_csv.mjs "$csv") ||
	    die 1 "duckdb: read_csv failed"
	[ "$dd_line" = "rows=$want_rows sum_l_quantity=$want_qty" ] ||
	    die 1 "duckdb: wrong answer ($dd_line); nothing timed"
	dd_out=$(printf '%s\n' "$dd_line" | sha)
fi
say "bench: answers right: $rt_rows rows, round trip identical to input"

# ---- 3. timing ----
# case_run ID OUTSHA WHAT CMDTEXT -- command...
cases_json=""
table=""
case_run()
{
	id=$1 out=$2 what=$3 cmdtext=$4
	shift 5
	say "bench: timing $id ($WARMUPS warm-ups, $RUNS runs)"
	res=$("$timer" -n "$RUNS" -w "$WARMUPS" -- "$@") ||
	    die 1 "$id: a run failed; nothing recorded"
	[ -n "$cases_json" ] && cases_json="$cases_json,"
	cases_json="$cases_json
    {\"id\":$(json_str "$id"),\"what\":$(json_str "$what"),\
\"command\":$(json_str "$cmdtext"),\"output_sha256\":\"$out\",${res#\{}"
	table="$table$id	$res
"
}

case_run raw/cat "$cat_out" \
    "read the file and write it to /dev/null: the floor for any reader" \
    "cat lineitem.csv > /dev/null" -- cat "$csv"
case_run csv2col "$c2c_out" \
    "parse, infer types, write MLSPILL3 to /dev/null" \
    "csv2col lineitem.csv > /dev/null" -- "$bin/csv2col" "$csv"
# shellcheck disable=SC2016 # "$1" etc. are the inner shell's
case_run 'csv2col|col2csv' "$rt_out" \
    "CSV to MLSPILL3 and back to CSV through a pipe (sh -c)" \
    "csv2col lineitem.csv | col2csv > /dev/null" -- \
    sh -c '"$1" "$3" | "$2"' sh "$bin/csv2col" "$bin/col2csv" "$csv"
if [ $duckdb -eq 1 ]; then
	case_run duckdb/startup "$start_out" \
	    "node loads DuckDB, connects, SELECT version(): context only" \
	    "node harness/duckdb_csv.mjs --startup" -- \
	    node harness/duckdb_csv.mjs --startup
	case_run duckdb/read_csv "$dd_out" \
	    "CREATE TABLE t AS SELECT * FROM read_csv(FILE), 2 threads, whole node process" \
	    "node harness/duckdb_csv.mjs lineitem.csv" -- \
	    node harness/duckdb_csv.mjs "$csv"
fi
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- 4. the record and the table ----
mkdir -p harness/records
rec="harness/records/$(date -u +%Y-%m-%d)-$git_sha.json"
n=2
while [ -e "$rec" ]; do
	rec="harness/records/$(date -u +%Y-%m-%d)-$git_sha-$n.json"
	n=$((n + 1))
done
cat > "$tmp/record.json" <<EOF
{
  "schema": "colpipe-bench/1",
  "taken_utc": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": {
    "cpu": $(json_str "$cpu"),
    "cores": $cores,
    "kernel": $(json_str "$kernel"),
    "mem_kb": $mem_kb,
    "advisory": {
      "cpu_mhz_at_start": $(json_str "$mhz"),
      "governor": $(json_str "$gov"),
      "loadavg_start": $(json_str "$load_start"),
      "loadavg_end": $(json_str "$load_end"),
      "tmp_fs": $(json_str "$tmpfs")
    }
  },
  "build": {
    "mode": "$mode",
    "compiler": $(json_str "$compiler"),
    "flags": $(json_str "$flags"),
    "git_sha": "$git_sha",
    "tree_head": "$tree_head",
    "git_dirty": $git_dirty,
    "version": $(json_str "$version"),
    "csv2col_sha256": "$csv2col_sha",
    "col2csv_sha256": "$col2csv_sha"
  },
  "toolchain": {
    "node": $(json_str "$node_version"),
    "duckdb": $(json_str "$duckdb_version")
  },
  "data": {
    "name": "tpch-sf0.1/lineitem.csv",
    "sha256": "$data_sha",
    "bytes": $data_bytes,
    "rows": $rt_rows,
    "source_zst_sha256": "$zst_sha"
  },
  "method": {
    "runs": $RUNS,
    "warmups": $WARMUPS,
    "timer": "harness/timer.c: posix_spawn + wait4 rusage; stdout /dev/null",
    "output_hash": "sha256 of each case's stdout in an untimed answer run before timing",
    "csv2col_stream_bytes": $c2c_bytes,
    "csv2col_output_deterministic": $c2c_det
  },
  "cases": [$cases_json
  ]
}
EOF
mv "$tmp/record.json" "$rec"

dd_best=""
dd_spread=""
if [ $duckdb -eq 1 ]; then
	dd_res=$(printf '%s' "$table" | sed -n 's/^duckdb\/read_csv	//p')
	dd_best=$(jget "$dd_res" best_wall_ms)
	dd_spread=$(jget "$dd_res" max_wall_ms)
fi
printf '\n%s, %s cores, %s; %s build %s; best of %s after %s warm-ups\n' \
    "$cpu" "$cores" "$kernel" "$mode" "$git_sha" "$RUNS" "$WARMUPS"
printf '%-17s %9s %9s %9s %9s %8s  %s\n' case "best ms" "median" "max" \
    "cpu med" "RSS MB" "vs DuckDB"
printf '%s' "$table" | while IFS='	' read -r id res; do
	printf '%s %s %s %s %s %s %s %s\n' "$id" \
	    "$(jget "$res" best_wall_ms)" "$(jget "$res" median_wall_ms)" \
	    "$(jget "$res" max_wall_ms)" "$(jget "$res" median_cpu_ms)" \
	    "$(jget "$res" peak_rss_mb)" "${dd_best:-0}" "${dd_spread:-0}"
done | awk '{
	id = $1; b = $2; d = $7; dm = $8
	if (d == 0)
		r = "-"
	else if (id == "duckdb/read_csv")
		r = "1 (reference)"
	else {
		x = b / d
		# When the two cases'"'"' ranges of runs (best to max) overlap,
		# the runs themselves do not settle which one is faster.
		r = sprintf(x < 0.1 ? "%.3f" : "%.2f", x)
		if (b <= dm && d <= $4)
			r = r " (inside noise)"
	}
	printf "%-17s %9.1f %9.1f %9.1f %9.1f %8.1f  %s\n", id, b, $3, $4,
	    $5, $6, r
}'
printf '(vs DuckDB: best wall time over DuckDB read_csv'"'"'s best; below 1 is faster)\n'
printf 'record: %s\n' "$rec"

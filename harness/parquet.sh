#!/bin/sh
# parquet.sh - col2parquet's benchmark: TPC-H lineitem CSV to Parquet,
# `csv2col | col2parquet` side by side with DuckDB's
# COPY (FROM read_csv(...)) TO ... (FORMAT parquet) on 2 threads, with
# snappy and with zstd, in the same run.
#
#	BUILD=build/release harness/parquet.sh
#	SCALE=10 RUNS=3 BUILD=build/release harness/parquet.sh    (about SF1)
#
# Environment: BUILD (whose bin/ is measured), SCALE (1 = TPC-H SF0.1
# lineitem, 600572 rows; N > 1 = N copies of its rows, about N x 74 MB of
# CSV), RUNS (timed runs per case, default 3), COLPIPE_SHARED, TMPDIR
# (data and outputs).
#
# Before timing, every output file must read back in DuckDB with the same
# row count, sum(l_quantity), sum(l_extendedprice), max(l_comment) and
# min(l_shipdate) as DuckDB's own read of the CSV; a wrong answer stops
# the run.  Each case is then timed by harness/timer (wall, CPU, peak RSS
# of the largest process of the pipeline) and printed with its file size
# and its time and size as ratios of DuckDB's for the same codec.
#
# Exit status: 0 done (or skipped: no data), 1 a wrong answer or a failed
# run, 2 a missing binary or tool.
set -eu

. "$(dirname "$0")/lib.sh"
SCALE=${SCALE:-1}
RUNS=${RUNS:-3}
bench_init parquet
need_tools csv2col col2parquet
need_duckdb

# ---- data ----
bench_lineitem
csv_mb=$(($(wc -c <"$tmp/li.csv") / 1000000))
say "parquet bench: lineitem x $SCALE, $csv_mb MB of CSV"

# ---- answers first ----
want=$(node harness/parquet_duckdb.mjs answer "$tmp/li.csv") ||
    die 1 "DuckDB cannot read the CSV"
for c in snappy zstd; do
	"$bin/csv2col" "$tmp/li.csv" | "$bin/col2parquet" -c $c \
	    -o "$tmp/cp-$c.parquet" || die 1 "csv2col | col2parquet -c $c failed"
	node harness/parquet_duckdb.mjs copy "$tmp/li.csv" \
	    "$tmp/dd-$c.parquet" $c || die 1 "DuckDB COPY ($c) failed"
	for f in "$tmp/cp-$c.parquet" "$tmp/dd-$c.parquet"; do
		got=$(node harness/parquet_duckdb.mjs answer "$f") ||
		    die 1 "${f##*/}: DuckDB cannot read it"
		[ "$got" = "$want" ] ||
		    die 1 "${f##*/}: wrong answer: $got; want $want"
	done
done
say "parquet bench: answers right: $want"

# ---- times ----
printf '%-22s %9s %9s %9s %8s %11s %8s %8s\n' case best_ms median_ms \
    cpu_ms rss_MiB bytes time/DD size/DD
for c in snappy zstd; do
	res_cp=$("$timer" -n "$RUNS" -w 1 -- sh -c \
	    "'$bin/csv2col' '$tmp/li.csv' | '$bin/col2parquet' -c $c -o '$tmp/t.parquet'") ||
	    die 1 "colpipe $c: a run failed"
	res_dd=$("$timer" -n "$RUNS" -w 1 -- node harness/parquet_duckdb.mjs \
	    copy "$tmp/li.csv" "$tmp/t.parquet" $c) ||
	    die 1 "DuckDB $c: a run failed"
	b_cp=$(wc -c <"$tmp/cp-$c.parquet" | tr -d ' ')
	b_dd=$(wc -c <"$tmp/dd-$c.parquet" | tr -d ' ')
	t_cp=$(jget "$res_cp" best_wall_ms)
	t_dd=$(jget "$res_dd" best_wall_ms)
	printf '%-22s %9s %9s %9s %8s %11s %8s %8s\n' \
	    "csv2col|col2parquet $c" "$t_cp" "$(jget "$res_cp" median_wall_ms)" \
	    "$(jget "$res_cp" median_cpu_ms)" "$(jget "$res_cp" peak_rss_mb)" \
	    "$b_cp" "$(awk -v a="$t_cp" -v b="$t_dd" 'BEGIN { printf "%.2f", a / b }')" \
	    "$(awk -v a="$b_cp" -v b="$b_dd" 'BEGIN { printf "%.3f", a / b }')"
	printf '%-22s %9s %9s %9s %8s %11s %8s %8s\n' "DuckDB COPY $c" \
	    "$t_dd" "$(jget "$res_dd" median_wall_ms)" \
	    "$(jget "$res_dd" median_cpu_ms)" "$(jget "$res_dd" peak_rss_mb)" \
	    "$b_dd" 1 1
done
printf '(time/DD, size/DD: best wall time and file size over DuckDB'"'"'s for the same codec)\n'

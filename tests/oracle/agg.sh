#!/bin/sh
# agg.sh - colagg against DuckDB's GROUP BY on TPC-H SF0.1, as TAP
# (agg.mjs holds the cases and the comparison).
#
# Makes lineitem.col and orders.col from the shared TPC-H CSV with
# csv2col (the types colpipe infers; DuckDB is given the same types),
# and lineitem.parquet with col2parquet, then runs every case at a budget that holds the groups (-m 256M) and
# at one that spills them (-m 1M).  Needs node, the DuckDB package in
# tests/oracle (make deps) and the shared TPC-H data; skips with the
# reason otherwise.  MODE=asan runs the 256M budget only.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
MODE=${MODE:-release}
BUILD=${BUILD:-build/$MODE}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
shared=${COLPIPE_SHARED:-$top/../shared}
tpch=$shared/data/tpch/sf0.1
bin=$BUILD/bin

if ! command -v node >/dev/null 2>&1; then
	echo "1..0 # skip node not installed (make deps)"
	exit 0
fi
if [ ! -d "$here/node_modules/@duckdb/node-api" ]; then
	echo "1..0 # skip DuckDB oracle not installed: run make deps"
	exit 0
fi
for t in lineitem orders; do
	if [ ! -f "$tpch/$t.csv.zst" ]; then
		echo "1..0 # skip no TPC-H data at $tpch/$t.csv.zst"
		exit 0
	fi
done
for t in csv2col col2csv col2parquet colscan colsort colagg; do
	if [ ! -x "$bin/$t" ]; then
		echo "not ok 1 - $bin/$t is not built"
		echo "1..1"
		exit 1
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/colpipe-agg-oracle.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
export LC_ALL=C

for t in lineitem orders; do
	if ! zstd -qdc "$tpch/$t.csv.zst" >"$work/$t.csv" 2>"$work/err" ||
	    ! "$bin/csv2col" "$work/$t.csv" >"$work/$t.col" 2>>"$work/err"; then
		echo "not ok 1 - zstd -dc $t | csv2col"
		sed 's/^/# /' "$work/err" | head -n 20
		echo "1..1"
		exit 1
	fi
done

if ! "$bin/col2parquet" -o "$work/lineitem.parquet" "$work/lineitem.col" \
    2>"$work/err"; then
	echo "not ok 1 - col2parquet lineitem"
	sed 's/^/# /' "$work/err" | head -n 20
	echo "1..1"
	exit 1
fi

COLPIPE_BIN=$bin WORK=$work MODE=$MODE node "$here/agg.mjs"

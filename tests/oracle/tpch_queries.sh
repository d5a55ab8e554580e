#!/bin/sh
# tpch_queries.sh - harness/tpch/qNN.sh against DuckDB's answers to the
# official SQL (harness/tpch/sql/qNN.sql) on TPC-H SF0.1, as TAP
# (tpch_queries.mjs holds the comparison).
#
# Decompresses the shared CSVs once (DuckDB loads them with the official
# column types) and converts each to .col with csv2col; every query script
# runs on the .col directory, and a few also on the shared .csv.zst
# directory itself.  Needs node, the DuckDB package in tests/oracle (make
# deps), zstd and the shared TPC-H data; skips with the reason otherwise.
# TPCH_QUERIES="3 5" runs only those queries.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
MODE=${MODE:-release}
BUILD=${BUILD:-build/$MODE}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
shared=${COLPIPE_SHARED:-$top/../shared}
tpch=$shared/data/tpch/sf0.1
bin=$BUILD/bin
tables="region nation supplier customer part partsupp orders lineitem"

if ! command -v node >/dev/null 2>&1; then
	echo "1..0 # skip node not installed (make deps)"
	exit 0
fi
if [ ! -d "$here/node_modules/@duckdb/node-api" ]; then
	echo "1..0 # skip DuckDB oracle not installed: run make deps"
	exit 0
fi
if ! command -v zstd >/dev/null 2>&1; then
	echo "1..0 # skip zstd not installed"
	exit 0
fi
for t in $tables; do
	if [ ! -f "$tpch/$t.csv.zst" ]; then
		echo "1..0 # skip no TPC-H data at $tpch/$t.csv.zst"
		exit 0
	fi
done
for t in csv2col col2csv colscan colsort colagg coljoin; do
	if [ ! -x "$bin/$t" ]; then
		echo "not ok 1 - $bin/$t is not built"
		echo "1..1"
		exit 1
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/colpipe-tpchq.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
export LC_ALL=C
mkdir "$work/csv" "$work/col"

for t in $tables; do
	if ! zstd -qdc "$tpch/$t.csv.zst" >"$work/csv/$t.csv" 2>"$work/err" ||
	    ! "$bin/csv2col" -o "$work/col/$t.col" "$work/csv/$t.csv" \
	    2>>"$work/err"; then
		echo "not ok 1 - zstd -dc $t.csv.zst | csv2col"
		sed 's/^/# /' "$work/err" | head -n 20
		echo "1..1"
		exit 1
	fi
done

COLPIPE_BIN=$bin TPCH=$top/harness/tpch WORK=$work CSV_DIR=$tpch \
    node "$here/tpch_queries.mjs"

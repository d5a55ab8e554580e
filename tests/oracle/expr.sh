#!/bin/sh
# expr.sh - colscan's expressions against DuckDB (expr.mjs), as TAP.
#
# Several hundred random well-typed expressions from a fixed seed over
# random typed tables, as filters (colscan --where) and projections
# (colscan --select), each compared with DuckDB's result row by row and
# type by type; then TPC-H Q6's filter and Q1-style money projections
# over SF0.1 lineitem.  The seed is printed; a longer or different sweep:
#   EXPR_CASES=5000 EXPR_SEED=7 tests/oracle/expr.sh
# EXPR_KNOWN=1 also generates the constructs of the known colscan bugs
# listed in expr.mjs; when a case fails the tables are kept in
# $TMPDIR/colpipe-expr-SEED (or $EXPR_KEEP) for its reproducer.  Needs
# node and the DuckDB package in tests/oracle (make deps); skips with the
# reason otherwise.  Without the shared TPC-H data
# (${COLPIPE_SHARED:-<repo>/../shared}) only the lineitem part is
# skipped.  MODE=asan runs fewer cases.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
MODE=${MODE:-release}
BUILD=${BUILD:-build/$MODE}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
shared=${COLPIPE_SHARED:-$top/../shared}

if ! command -v node >/dev/null 2>&1; then
	echo "1..0 # skip node not installed (make deps)"
	exit 0
fi
if [ ! -d "$here/node_modules/@duckdb/node-api" ]; then
	echo "1..0 # skip DuckDB oracle not installed: run make deps"
	exit 0
fi
for t in csv2col col2csv colscan; do
	if [ ! -x "$BUILD/bin/$t" ]; then
		echo "not ok 1 - $BUILD/bin/$t is not built"
		echo "1..1"
		exit 1
	fi
done
if ! command -v zstd >/dev/null 2>&1; then
	echo "1..0 # skip zstd not installed"
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/colpipe-expr-oracle.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cd "$here" && COLPIPE_BIN=$BUILD/bin TPCH_DIR=$shared/data/tpch/sf0.1 \
    WORK=$work MODE=$MODE node "$here/expr.mjs"

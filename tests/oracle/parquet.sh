#!/bin/sh
# parquet.sh - col2parquet's files read back by DuckDB, hyparquet and
# parquet-wasm (parquet.mjs), as TAP.
#
# Needs node and the packages of tests/oracle (make deps); the TPC-H part
# needs ${COLPIPE_SHARED:-<repo>/../shared}/data/tpch/sf0.1.  Without node
# or DuckDB the whole suite is skipped with its reason.  Scratch files
# live in a directory under $TMPDIR removed on any exit.
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
for t in csv2col col2csv col2parquet; do
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

work=$(mktemp -d "${TMPDIR:-/tmp}/colpipe-parquet.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

COLPIPE_BIN=$BUILD/bin TPCH_DIR=$shared/data/tpch/sf0.1 WORK=$work MODE=$MODE \
    node "$here/parquet.mjs"

#!/bin/sh
# run.sh - the corpus suite (run.mjs): csv2col on every CSV of the shared
# corpora, as TAP.  The corpora live beside the repository in
# ${COLPIPE_SHARED:-<repo>/../shared}/corpora; without them (or without
# node) the suite is skipped with its reason.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
MODE=${MODE:-release}
BUILD=${BUILD:-build/$MODE}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
corpora=${COLPIPE_SHARED:-$top/../shared}/corpora

if [ ! -f "$corpora/MANIFEST.tsv" ] || [ ! -d "$corpora/csv" ]; then
	echo "1..0 # skip no CSV corpora at $corpora (set COLPIPE_SHARED)"
	exit 0
fi
if ! command -v node >/dev/null 2>&1; then
	echo "1..0 # skip node not installed (make deps)"
	exit 0
fi
for t in csv2col col2csv; do
	if [ ! -x "$BUILD/bin/$t" ]; then
		echo "not ok 1 - $BUILD/bin/$t is not built"
		echo "1..1"
		exit 1
	fi
done
# ASan makes every run slower; give each file more time there.
if [ "$MODE" = asan ]; then
	CORPUS_TIMEOUT_MS=30000
else
	CORPUS_TIMEOUT_MS=10000
fi
export CORPUS_TIMEOUT_MS
# The DuckDB package of the oracle suite, when installed, gives one more
# reference: the file read with DuckDB's dialect, every column as text.
DUCKDB_API=$top/tests/oracle/node_modules/@duckdb/node-api/lib/index.js
export DUCKDB_API
COLPIPE_BIN=$BUILD/bin CORPORA=$corpora exec node "$here/run.mjs"

#!/bin/sh
# demo.sh - a guided run of a real colpipe pipeline on
# harness/samples/orders.csv.gz.
#
# Called by "make demo" as BUILD=build/release harness/samples/demo.sh;
# uses only the binaries in $BUILD/bin.  Every step checks its own result, so the
# demo doubles as a smoke test: it exits 0 only if the pipeline gave the
# expected answers, including the refusal of a truncated stream.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-build/release}
case $BUILD in /*) ;; *) BUILD="$here/../../$BUILD" ;; esac
bin="$BUILD/bin"
data="$here/orders.csv.gz"

for t in csv2col col2csv colsort col2parquet; do
	if [ ! -x "$bin/$t" ]; then
		echo "demo: $bin/$t: not built (run make first)" >&2
		exit 2
	fi
done
PATH="$bin:$PATH"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/colpipe-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

say()
{
	printf '\n== %s\n' "$*" | fold -s -w 78
}
fail()
{
	echo "demo: $*" >&2
	exit 1
}

rows=$(gzip -dc "$data" | sed 1d | wc -l | tr -d ' ')

say "the input: $(basename "$data"), a gzip-compressed CSV of $rows orders"
gzip -dc "$data" | head -n 3

say "csv2col reads it (gzip is recognised by content), sniffs the" \
    "dialect, infers each column's type and writes MLSPILL3: typed column" \
    "batches with checksums, closed by an end-of-stream trailer." \
    "--stats shows what it decided:"
csv2col --stats "$data" > "$tmp/orders.col" 2> "$tmp/stats"
# The schema is one long line; show it four columns to a line.  A comma
# followed by a letter starts the next column (decimal(18,2) keeps its).
grep ': dialect: ' "$tmp/stats"
echo "csv2col: schema:"
sed -n 's/^csv2col: schema: //p' "$tmp/stats" |
    sed 's/,\([A-Za-z_]\)/\n\1/g' |
    awk '{ printf "    %-26s", $0 } NR % 3 == 0 { print "" }
	END { if (NR % 3) print "" }'
grep -v ': dialect: \|: schema: ' "$tmp/stats"

say "col2csv --format table turns the stream back into text for people:"
col2csv --format table "$tmp/orders.col" | head -n 6

say "--format jsonl (strict RFC 8259): integers and exact decimals as" \
    "numbers, booleans, dates and timestamps as strings, empty fields" \
    "as null:"
col2csv --format jsonl "$tmp/orders.col" | sed -n '6,7p'

say "CSV out is canonical, so the round trip gives back the same bytes:"
gzip -dc "$data" > "$tmp/orders.csv"
csv2col "$data" | col2csv > "$tmp/back.csv"
cmp "$tmp/orders.csv" "$tmp/back.csv" || fail "round trip differs"
echo "cmp: identical ($(wc -c < "$tmp/back.csv" | tr -d ' ') bytes)"

say "a stream cut short (head -c 1000) is refused, never read as" \
    "fewer rows:"
status=0
csv2col "$data" | head -c 1000 | col2csv > "$tmp/cut.csv" 2> "$tmp/cut.err" ||
    status=$?
sed 's/^/  stderr: /' "$tmp/cut.err"
echo "  exit status $status, $(wc -l < "$tmp/cut.csv" | tr -d ' ') lines" \
    "on stdout"
[ "$status" -eq 3 ] || fail "truncated stream: exit $status, want 3"

say "colsort sorts the stream under a memory budget (spilling sorted" \
    "runs to disk and merging them when it must): the three orders with" \
    "the largest amount, then all of them by country and date under a" \
    "256K budget, checked against sort(1):"
csv2col "$data" | colsort -k amount:desc --limit 3 | col2csv --format table
csv2col "$data" | colsort -k country -k order_date -k order_id \
    --memory 256K --stats 2> "$tmp/sort.err" > "$tmp/sorted.col" ||
    fail "colsort failed"
sed 's/^/  /' "$tmp/sort.err"
tab=$(printf '\t')
col2csv -f tsv --no-header "$tmp/sorted.col" | cut -f 1,2,4 > "$tmp/got"
csv2col "$data" | col2csv -f tsv --no-header | cut -f 1,2,4 |
    LC_ALL=C sort -t "$tab" -k3,3 -k2,2 -k1,1n > "$tmp/want"
cmp -s "$tmp/got" "$tmp/want" || fail "colsort order differs from sort(1)"
echo "  same order as sort(1) on the text"

say "col2parquet writes the same stream as a Parquet file in one pass" \
    "(typed: DECIMAL, DATE, TIMESTAMP; zstd pages; min/max statistics)," \
    "written with no name and given its own only when complete:"
csv2col "$data" | col2parquet --compression zstd --stats \
    -o "$tmp/orders.parquet" 2> "$tmp/pq.err" || fail "col2parquet failed"
sed 's/^/  /' "$tmp/pq.err"
[ "$(head -c 4 "$tmp/orders.parquet")" = PAR1 ] &&
    [ "$(tail -c 4 "$tmp/orders.parquet")" = PAR1 ] ||
    fail "orders.parquet is not a Parquet file"
echo "  orders.parquet: $(wc -c < "$tmp/orders.parquet" | tr -d ' ') bytes," \
    "PAR1 at both ends"

say "and a pipeline into head ends quietly (SIGPIPE is a normal end):"
csv2col "$data" | col2csv --format tsv --no-header | head -n 2

echo
echo "demo: ok"

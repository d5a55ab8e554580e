#!/bin/sh
# Regenerates harness/samples/orders.csv.gz from harness/samples/gen.awk.
#
# The output is byte-for-byte reproducible: gen.awk draws from its own
# generator, and gzip -n leaves the file name and time out of the header.
# Run it after changing gen.awk and commit both files together.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rows=${1:-400}
tmp="$here/orders.csv.gz.tmp.$$"
trap 'rm -f "$tmp"' EXIT INT TERM
LC_ALL=C awk -v nrows="$rows" -f "$here/gen.awk" | gzip -n -9 > "$tmp"
mv "$tmp" "$here/orders.csv.gz"

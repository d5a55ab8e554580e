# lib.sh - sourced by harness/tpch/qNN.sh: arguments, a private temporary
# directory, and the TPC-H tables as MLSPILL3 streams.
#
#   . "$(dirname "$0")/lib.sh"       (after #!/bin/bash; takes "$@")
#
# Sets DATADIR (the one argument), TMP (a directory of the script's own,
# removed on every exit, signals included) and MEM (the memory options for
# the stages that spill: "-m $TPCH_MEMORY" when that is set, else empty;
# use it unquoted: colsort $MEM ...).  The tools come from PATH.
#
# tables NAME... checks that the tables a query reads are there, before
# any pipeline starts: a missing one is exit 2 with its name.
#
# tbl NAME writes table NAME to stdout as MLSPILL3: DATADIR/NAME.col when
# it exists, else csv2col over DATADIR/NAME.csv or NAME.csv.zst (a header
# row, as in the shared TPC-H data).  Every stage of a pipeline fails the
# script through pipefail; a truncated stream is exit 3 in the stage that
# reads it anyway.
set -eu -o pipefail

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: ${0##*/} DATADIR (a directory of TPC-H tables:" \
		"NAME.col, NAME.csv or NAME.csv.zst)" >&2
	exit 2
fi
DATADIR=$1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tpch.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
MEM=${TPCH_MEMORY:+-m $TPCH_MEMORY}

tables() {
	local t
	for t in "$@"; do
		if [ ! -f "$DATADIR/$t.col" ] && [ ! -f "$DATADIR/$t.csv" ] &&
		    [ ! -f "$DATADIR/$t.csv.zst" ]; then
			echo "${0##*/}: no table $t in $DATADIR" \
				"($t.col, $t.csv or $t.csv.zst)" >&2
			exit 2
		fi
	done
}

tbl() {
	if [ -f "$DATADIR/$1.col" ]; then
		cat "$DATADIR/$1.col"
	elif [ -f "$DATADIR/$1.csv" ]; then
		csv2col "$DATADIR/$1.csv"
	elif [ -f "$DATADIR/$1.csv.zst" ]; then
		csv2col "$DATADIR/$1.csv.zst"
	else
		echo "${0##*/}: no table $1 in $DATADIR" \
			"($1.col, $1.csv or $1.csv.zst)" >&2
		return 2
	fi
}

# helpers.bash - shared set-up for the bats tests of colpipe's binaries.
#
# Every test runs in its own $BATS_TEST_TMPDIR with the binaries under test
# first on PATH: $BUILD/bin when BUILD is set (tests/run-all.sh sets it),
# else build/release/bin of this tree.  A missing binary fails the test
# rather than skipping it: a test suite that passes because there was
# nothing to run would be a lie.
#
# The Debian bats-assert predates assert_stderr, so the stderr checks are
# here: stderr_empty, stderr_matches REGEX, stderr_has TEXT.

bats_require_minimum_version 1.5.0

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
if [ -n "${BUILD:-}" ]; then
	case $BUILD in
	/*) BIN=$BUILD/bin ;;
	*) BIN=$TOP/$BUILD/bin ;;
	esac
else
	BIN=$TOP/build/${MODE:-release}/bin
fi
PATH=$BIN:$PATH
export PATH BIN TOP
VERSION=$(sed -n 's/^VERSION := //p' "$TOP/GNUmakefile")

# Tools that write text; every other binary writes MLSPILL3.
TEXT_TOOLS="col2csv"

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	# The tests compare bytes; keep the locale out of sort, awk and tr.
	export LC_ALL=C
}

need() {
	local t
	for t in "$@"; do
		[ -x "$BIN/$t" ] || fail "$t not built: $BIN/$t is missing"
	done
}

# Lists the tools built in $BIN, one per line.
all_tools() {
	local f
	for f in "$BIN"/*; do
		[ -f "$f" ] && [ -x "$f" ] && printf '%s\n' "${f##*/}"
	done
}

is_text_tool() {
	case " $TEXT_TOOLS " in *" $1 "*) return 0 ;; esac
	return 1
}

stderr_empty() {
	if [ -n "${stderr:-}" ]; then
		fail "stderr not empty: ${stderr}"
	fi
}

stderr_matches() {
	if ! [[ ${stderr:-} =~ $1 ]]; then
		fail "stderr does not match /$1/: ${stderr:-}"
	fi
}

stderr_has() {
	if [[ ${stderr:-} != *"$1"* ]]; then
		fail "stderr does not contain '$1': ${stderr:-}"
	fi
}

stdout_empty() {
	if [ -n "${output:-}" ]; then
		fail "stdout not empty: ${output:0:400}"
	fi
}

# status_is N: like assert_failure N but also shows stderr.
status_is() {
	if [ "$status" -ne "$1" ]; then
		fail "exit status $status, want $1; stderr: ${stderr:-}"
	fi
}

# Refuses sanitizer reports and deaths by signal in the last run.
no_crash() {
	if [ "$status" -ge 128 ]; then
		fail "killed by signal $((status - 128)); stderr: ${stderr:-}"
	fi
	if [[ ${stderr:-} == *"Sanitizer"* || ${stderr:-} == *"runtime error:"* ]]; then
		fail "sanitizer report: ${stderr}"
	fi
}

# A canonical CSV: exactly what col2csv writes for it (header, LF ends,
# quotes only where needed, a quoted "" for the empty string, nothing for
# NULL), so csv2col | col2csv must give it back byte for byte.
make_canonical() {
	printf '%s\n' \
	    'id,price,qty,day,ts,flag,name,note' \
	    '1,24386.67,17,1996-03-13,2024-01-02 03:04:05,true,Customer#000000001,plain' \
	    '2,0.01,-3,1970-01-01,1970-01-01 00:00:00.000001,false,"with, comma","say ""hi"""' \
	    '3,-12.50,0,2038-01-19,1999-12-31 23:59:59.999999,true,"line' \
	    'break",' \
	    '4,,9223372036854775807,,,,"",nulls above' \
	    '5,999999.99,-9223372036854775807,1900-02-28,2000-02-29 12:00:00,false,é ü 中文,x;y|z' \
	    '6,100.00,42,2000-02-29,2024-12-31 23:59:59,true,"a ""quoted"" word",\N' >"$1"
}

# make_big FILE ROWS: ROWS rows of integers, decimals, dates and strings.
make_big() {
	awk -v n="$2" 'BEGIN {
		print "k,amount,day,label"
		for (i = 1; i <= n; i++)
			printf "%d,%d.%02d,19%02d-%02d-%02d,label %d\n", i,
			    i % 100000, i % 100, 70 + i % 30, 1 + i % 12,
			    1 + i % 28, i % 977
	}' >"$1"
}

# flip_byte FILE OFFSET: inverts every bit of one byte in place.
flip_byte() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $((255 - b)))" |
	    dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

filesize() {
	stat -L -c %s "$1"
}

# spill_empty: nothing is left in $TMPDIR (a budgeted stage's spill
# directory in the tests that set it).
spill_empty() {
	local left
	left=$(ls -A "$TMPDIR")
	[ -z "$left" ] || fail "left in the temporary directory: $left"
}

# budget_refused TOOL MESSAGE BUDGET ARGS...: TOOL -m BUDGET ARGS -o o.col
# is exit 4, its message matching ^TOOL: MESSAGE$, with o.col untouched,
# nothing on stdout and nothing left in TMPDIR; then the budget the
# message names gives the rows an unlimited run gives (sorted), and
# --stats says it.
budget_refused() {
	local tool=$1 msg=$2 budget=$3 m
	shift 3
	echo old >o.col
	run --separate-stderr "$tool" -m "$budget" -o o.col "$@"
	status_is 4
	stderr_matches "^$tool: $msg$"
	stdout_empty
	[ "$(cat o.col)" = old ] || fail "the output was touched"
	spill_empty
	m=$(printf '%s\n' "$stderr" | sed -n 's/.*give -m \([0-9]*M\) or more$/\1/p')
	[ -n "$m" ] || fail "no budget named: $stderr"
	"$tool" "$@" | col2csv | sort >want
	run --separate-stderr bash -c 'set -o pipefail; "$0" "$@" |
	    col2csv | sort' "$tool" -m "$m" --stats "$@"
	status_is 0
	[ "$output" = "$(cat want)" ] || fail "at -m $m: $output"
	stderr_has "memory budget $m,"
	spill_empty
}

#!/usr/bin/env bats
# common.bats - what every colpipe binary owes its users, checked for each
# binary built in $BUILD/bin: --help, --version, usage errors, a missing
# file, a full disk, binary output refused on a terminal, and silence
# when a downstream `head` stops reading.
#
# Each tool gets the smallest arguments that make it do real work in
# tool_args below; a new tool whose real work needs arguments is added
# there (an unknown tool is run with none, and a usage error then fails
# the test, which says so).

load helpers

# tool_args TOOL: prints the arguments for a run that reads a .col stream
# (or, for csv2col, a CSV file) on stdin and writes to stdout.
tool_args() {
	case $1 in
	colsort) echo "-k k" ;;
	# Keys alone (SELECT DISTINCT): an aggregate's parentheses would need
	# quoting in the bash -c runs below.
	colagg) echo "--by k" ;;
	colscan) echo "--where k%2=0" ;;
	col2parquet) echo "-o -" ;;
	# Two inputs: big.col on the left, the file or stdin on the right.
	coljoin) echo "--on k --suffix _r big.col" ;;
	*) echo "" ;;
	esac
}

# stdin_op TOOL: the operand naming stdin, for a tool that cannot read
# it without one.
stdin_op() {
	case $1 in
	coljoin) echo "-" ;;
	*) echo "" ;;
	esac
}

# input_for TOOL: the file that tool reads in the runs below.
input_for() {
	if [ "$1" = csv2col ]; then echo big.csv; else echo big.col; fi
}

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	make_big big.csv 300000
	"$BIN/csv2col" big.csv >big.col || true
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export LC_ALL=C
	ln -s "$BATS_FILE_TMPDIR/big.csv" big.csv
	ln -s "$BATS_FILE_TMPDIR/big.col" big.col
	[ -n "$(all_tools)" ] || fail "no binaries in $BIN"
}

@test "--help and -h: usage on stdout, nothing on stderr, exit 0" {
	local t opt long
	for t in $(all_tools); do
		for opt in --help -h; do
			run --separate-stderr "$t" $opt
			[ "$status" -eq 0 ] || fail "$t $opt: status $status"
			[ -z "$stderr" ] || fail "$t $opt: stderr: $stderr"
			[[ $output == *[Uu]sage* ]] || fail "$t $opt: no usage: $output"
			[[ $output == *"$t"* ]] || fail "$t $opt: does not name itself"
		done
		# It fits a terminal of 80 columns.
		long=$(printf '%s\n' "$output" | awk 'length > 79')
		[ -z "$long" ] || fail "$t --help: lines over 79 columns: $long"
	done
}

@test "--version: 'TOOL (colpipe) VERSION' on stdout, exit 0" {
	local t
	for t in $(all_tools); do
		run --separate-stderr "$t" --version
		[ "$status" -eq 0 ] || fail "$t --version: status $status"
		[ -z "$stderr" ] || fail "$t --version: stderr: $stderr"
		[ "${lines[0]}" = "$t (colpipe) $VERSION" ] ||
		    fail "$t --version: '${lines[0]}'"
	done
}

@test "an unknown option: exit 2, usage on stderr, nothing on stdout" {
	local t
	for t in $(all_tools); do
		run --separate-stderr "$t" --no-such-option
		[ "$status" -eq 2 ] || fail "$t: status $status"
		[ -z "$output" ] || fail "$t: stdout: $output"
		[[ $stderr == "$t: "* ]] || fail "$t: message not '$t: ...': $stderr"
		[[ $stderr == *no-such-option* ]] || fail "$t: option not named: $stderr"
		[[ $stderr == *[Uu]sage* || $stderr == *--help* ]] ||
		    fail "$t: no usage hint: $stderr"
		run --separate-stderr "$t" -Y
		[ "$status" -eq 2 ] || fail "$t -Y: status $status"
	done
}

@test "an option missing its argument: exit 2" {
	local t
	for t in $(all_tools); do
		case $t in
		csv2col) run --separate-stderr csv2col big.csv --schema ;;
		*) run --separate-stderr "$t" big.col --output ;;
		esac
		[ "$status" -eq 2 ] || fail "$t: status $status; $stderr"
		[ -z "$output" ] || fail "$t: stdout not empty"
	done
}

@test "a missing file: non-zero exit, empty stdout, a message naming the file" {
	local t
	for t in $(all_tools); do
		run --separate-stderr "$t" $(tool_args "$t") no-such-file.dat
		no_crash
		[ "$status" -ne 0 ] || fail "$t: status 0"
		[ "$status" -ne 2 ] || fail "$t: a missing file is not a usage error"
		[ -z "$output" ] || fail "$t: stdout not empty"
		[[ $stderr == "$t: "*no-such-file.dat* ]] ||
		    fail "$t: message does not name the file: $stderr"
	done
}

@test "a directory as input: non-zero exit and a message naming it" {
	local t
	mkdir adir
	for t in $(all_tools); do
		run --separate-stderr "$t" $(tool_args "$t") adir
		no_crash
		[ "$status" -ne 0 ] || fail "$t: status 0"
		[[ $stderr == *adir* ]] || fail "$t: message does not name adir: $stderr"
	done
}

@test "writing to /dev/full: exit 5 with a message" {
	[ -w /dev/full ] || skip "no /dev/full"
	local t in
	for t in $(all_tools); do
		in=$(input_for "$t")
		run --separate-stderr bash -c "$t $(tool_args "$t") $(stdin_op "$t") < $in > /dev/full"
		no_crash
		[ "$status" -eq 5 ] || fail "$t > /dev/full: status $status; $stderr"
		[[ $stderr == "$t: "* ]] || fail "$t: message: $stderr"
		# A small output fails only at the final flush or close.
		head -n 3 big.csv >small.csv
		"$BIN/csv2col" small.csv >small.col
		if [ "$t" = csv2col ]; then in=small.csv; else in=small.col; fi
		run --separate-stderr bash -c "$t $(tool_args "$t") $(stdin_op "$t") < $in > /dev/full"
		[ "$status" -eq 5 ] || fail "$t small > /dev/full: status $status; $stderr"
	done
}

@test "binary output to a terminal is refused with a hint; text tools print" {
	command -v script >/dev/null || skip "script(1) not installed"
	local t in
	for t in $(all_tools); do
		in=$(input_for "$t")
		# script gives the tool a terminal for stdout (and stderr).
		run script -qec "$t $(tool_args "$t") $(stdin_op "$t") < $in" /dev/null
		if is_text_tool "$t"; then
			[ "$status" -eq 0 ] || fail "$t to a terminal: status $status"
		else
			[ "$status" -ne 0 ] || fail "$t wrote binary to a terminal"
			[ "$status" -lt 128 ] || fail "$t: killed by a signal"
			[[ $output == *col2csv* ]] || fail "$t: no hint to pipe into col2csv: ${output:0:300}"
			[ "${#output}" -lt 1000 ] || fail "$t: printed ${#output} bytes to the terminal"
		fi
	done
}

@test "quiet when the reader goes away: | head -n1 and | head -c" {
	local t in
	for t in $(all_tools); do
		in=$(input_for "$t")
		if is_text_tool "$t"; then
			run --separate-stderr bash -c "$t $(tool_args "$t") $(stdin_op "$t") < $in | head -n1"
		else
			run --separate-stderr bash -c "$t $(tool_args "$t") $(stdin_op "$t") < $in | head -c 100 | wc -c"
		fi
		[ "$status" -eq 0 ] || fail "$t: status $status"
		[ -z "$stderr" ] || fail "$t | head: stderr: $stderr"
		[ -n "$output" ] || fail "$t | head: nothing came out"
		run --separate-stderr bash -c "set -o pipefail; $t $(tool_args "$t") $(stdin_op "$t") < $in | head -c 100 >/dev/null"
		[ -z "$stderr" ] || fail "$t | head (pipefail): stderr: $stderr"
		# Ended by SIGPIPE (141) or a clean exit: both are a normal end.
		[ "$status" -eq 0 ] || [ "$status" -eq 141 ] ||
		    fail "$t | head: status $status"
	done
}

@test "a whole pipeline under head is quiet: csv2col | col2csv | head -n1" {
	need csv2col col2csv
	run --separate-stderr bash -c 'csv2col big.csv | col2csv | head -n1'
	status_is 0
	stderr_empty
	assert_output 'k,amount,day,label'
	run --separate-stderr bash -c 'csv2col big.csv | col2csv --format jsonl | head -n2 | tail -n1'
	status_is 0
	stderr_empty
	assert_output '{"k":2,"amount":2.02,"day":"1972-03-03","label":"label 2"}'
}

@test "SIGINT or SIGTERM mid-run: no output file is left behind by -o" {
	need csv2col
	local sig
	for sig in INT TERM; do
		mkdir "d$sig"
		( exec csv2col --batch-rows 1 -o "d$sig/out.col" big.csv ) &
		local pid=$!
		sleep 0.2
		kill -"$sig" "$pid" 2>/dev/null || true
		wait "$pid" || true
		[ -z "$(ls -A "d$sig")" ] || [ "$(ls -A "d$sig")" = out.col ] ||
		    fail "SIG$sig left: $(ls -A "d$sig")"
	done
}

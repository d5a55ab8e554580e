#!/usr/bin/env bats
# output.bats - what -o FILE (and every other file a tool writes by name)
# does with what is already there, for every tool: a regular file is
# replaced only when complete, keeping its mode, through a symbolic link
# its target; a device, a FIFO or /dev/stdout is written in place and
# stays what it was; "-o -" is stdout; a directory, or one of the tool's
# own inputs, is refused (exit 2) before any work.

load helpers

# run_args TOOL: the arguments for real work, reading the file after them.
run_args() {
	case $1 in
	colsort) echo "-k k" ;;
	# Keys alone (SELECT DISTINCT): an aggregate's parentheses would need
	# quoting in the bash -c runs below.
	colagg) echo "--by k" ;;
	colscan) echo "--where k%2=0" ;;
	# Two inputs: in.col on the left, the file or stdin on the right.
	coljoin) echo "--on k --suffix _r in.col" ;;
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

input_for() {
	if [ "$1" = csv2col ]; then echo in.csv; else echo in.col; fi
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export LC_ALL=C
	make_big in.csv 5000
	csv2col in.csv >in.col || fail "csv2col failed"
	[ -n "$(all_tools)" ] || fail "no binaries in $BIN"
}

# The bytes TOOL writes to stdout for its usual run, as a reference.
reference() {
	local t=$1
	if [ "$t" = col2parquet ]; then
		col2parquet -o - "$(input_for "$t")"
	else
		"$t" $(run_args "$t") "$(input_for "$t")"
	fi
}

@test "-o /dev/null: the device stays a device, for every tool" {
	local t
	for t in $(all_tools); do
		run --separate-stderr "$t" $(run_args "$t") -o /dev/null \
		    "$(input_for "$t")"
		status_is 0
		[ -c /dev/null ] || fail "$t turned /dev/null into a regular file"
	done
}

@test "-o on a device node of our own: written in place, still a device" {
	local t
	mknod null2 c 1 3 2>/dev/null ||
	    skip "mknod is not allowed here (needs CAP_MKNOD)"
	chmod 666 null2
	for t in $(all_tools); do
		run --separate-stderr "$t" $(run_args "$t") -o null2 \
		    "$(input_for "$t")"
		status_is 0
		[ -c null2 ] || fail "$t replaced the device node"
	done
}

@test "-o FIFO: its reader gets the bytes; it stays a FIFO" {
	local t
	mkfifo fifo
	for t in $(all_tools); do
		reference "$t" >want
		cat fifo >got &
		run --separate-stderr "$t" $(run_args "$t") -o fifo \
		    "$(input_for "$t")"
		wait $!
		status_is 0
		[ -p fifo ] || fail "$t replaced the FIFO"
		cmp want got || fail "$t: the reader got other bytes"
	done
}

@test "-o /dev/stdout and -o -: stdout itself, with every tool" {
	local t
	for t in $(all_tools); do
		reference "$t" >want
		"$t" $(run_args "$t") -o - "$(input_for "$t")" >got ||
		    fail "$t -o -: status $?"
		cmp want got || fail "$t -o -: other bytes"
		[ ! -e ./- ] || fail "$t -o -: made a file named '-'"
		"$t" $(run_args "$t") -o /dev/stdout "$(input_for "$t")" >got ||
		    fail "$t -o /dev/stdout: status $?"
		cmp want got || fail "$t -o /dev/stdout: other bytes"
		# Appending through /dev/stdout keeps what was there.
		echo first >app
		"$t" $(run_args "$t") -o /dev/stdout "$(input_for "$t")" >>app
		{ echo first; cat want; } | cmp - app ||
		    fail "$t -o /dev/stdout >>: not appended"
	done
}

@test "-o through a symbolic link replaces the target, keeps the link and the mode" {
	local t
	for t in $(all_tools); do
		rm -f target link
		echo old >target
		chmod 600 target
		ln -s target link
		reference "$t" >want
		run --separate-stderr "$t" $(run_args "$t") -o link \
		    "$(input_for "$t")"
		status_is 0
		[ -L link ] || fail "$t replaced the link with a file"
		cmp want target || fail "$t: the target does not hold the output"
		[ "$(stat -c %a target)" = 600 ] ||
		    fail "$t: mode $(stat -c %a target), want 600"
		[ "$(ls -A | grep -c '^\.')" -eq 0 ] || fail "$t left: $(ls -A)"
	done
}

@test "-o naming the tool's own input: exit 2, the input untouched" {
	local t in
	for t in $(all_tools); do
		in=$(input_for "$t")
		cp "$in" keep
		run --separate-stderr "$t" $(run_args "$t") -o "$in" "$in"
		status_is 2
		stdout_empty
		stderr_has "also an input"
		cmp keep "$in" || fail "$t changed its input"
		# The same file under another name is the same file.
		ln -sf "$in" alias
		run --separate-stderr "$t" $(run_args "$t") -o alias "$in"
		status_is 2
		cmp keep "$in" || fail "$t changed its input through a link"
	done
}

@test "-o DIR: exit 2 before any work (input never read)" {
	local t
	mkdir adir
	# An input that never ends (this shell holds the FIFO open for
	# writing and writes nothing): a tool that read it first would hang.
	mkfifo never
	exec 7<>never
	for t in $(all_tools); do
		run --separate-stderr timeout 10 "$t" $(run_args "$t") \
		    $(stdin_op "$t") -o adir <never
		status_is 2
		stderr_has "adir: is a directory"
		[ -z "$(ls -A adir)" ] || fail "$t wrote into adir"
	done
	exec 7>&-
}

@test "a failed run leaves the old file and its mode, and nothing else" {
	local t
	for t in $(all_tools); do
		echo old >out
		chmod 640 out
		head -c 3000 "$(input_for "$t")" >cut
		[ "$t" = csv2col ] && printf '1,2,3\n"unterminated\n' >cut
		run --separate-stderr "$t" $(run_args "$t") -o out cut
		[ "$status" -ne 0 ] || fail "$t: status 0 on a cut input"
		[ "$(cat out)" = old ] || fail "$t: the old file changed"
		[ "$(stat -c %a out)" = 640 ] || fail "$t: mode changed"
		[ "$(ls -A | grep -c '^\.')" -eq 0 ] || fail "$t left: $(ls -A)"
	done
}

@test "SIGKILL mid-run leaves no file, named or hidden" {
	local t pid
	for t in $(all_tools); do
		mkdir -p "k$t"
		mkfifo "k$t/in"
		"$t" $(run_args "$t") $(stdin_op "$t") -o "k$t/out" <"k$t/in" &
		pid=$!
		exec 7>"k$t/in"
		head -c 20000 "$(input_for "$t")" >&7
		sleep 0.3
		kill -KILL "$pid"
		wait "$pid" && fail "$t: exit status 0"
		exec 7>&-
		rm "k$t/in"
		[ -z "$(ls -A "k$t")" ] || fail "$t left: $(ls -A "k$t")"
	done
}

@test "csv2col --rejects /dev/stderr writes to stderr, which stays what it was" {
	printf 'a,b\n1,2\n3,x\n4,5\n' >bad.csv
	run --separate-stderr csv2col -s 'a:int64,b:int64' --rejects /dev/stderr \
	    -o out.col bad.csv
	status_is 0
	stderr_has "3,x"
	[ -L /dev/stderr ] || [ -c /dev/stderr ] || fail "/dev/stderr replaced"
	[ -c /dev/null ] || fail "/dev/null replaced"
}

@test "csv2col --rejects: replaced only when complete; a write failure keeps the old file" {
	awk 'BEGIN { print "a,b"; for (i = 0; i < 20000; i++)
		printf "%d,bad%d\n", i, i }' >bad.csv
	printf 'old rejects\n' >rej
	# A file size limit makes every write past 64 KiB fail (EFBIG).
	run --separate-stderr bash -c 'trap "" XFSZ; ulimit -f 64;
	    csv2col -s "a:int64,b:int64" --rejects rej bad.csv >/dev/null'
	[ "$status" -eq 5 ] || fail "status $status, want 5; $stderr"
	[ "$(cat rej)" = "old rejects" ] || fail "the old rejects file changed"
	[ "$(ls -A | grep -c '^\.')" -eq 0 ] || fail "left: $(ls -A)"
	# --rejects naming the -o file, or an input: refused.
	run --separate-stderr csv2col --rejects same.col -o same.col bad.csv
	status_is 2
	run --separate-stderr csv2col --rejects bad.csv -o x.col bad.csv
	status_is 2
	[ "$(head -n 1 bad.csv)" = a,b ] || fail "the input changed"
}

@test "as a user who is not root, -o /dev/null and -o /dev/stdout work" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to become another user"
	command -v setpriv >/dev/null || skip "setpriv not installed"
	local t
	chmod 755 "$BATS_TEST_TMPDIR"
	chmod 644 in.csv in.col
	for t in $(all_tools); do
		run --separate-stderr setpriv --reuid=65534 --regid=65534 \
		    --clear-groups "$BIN/$t" $(run_args "$t") -o /dev/null \
		    "$(input_for "$t")"
		status_is 0
		run --separate-stderr setpriv --reuid=65534 --regid=65534 \
		    --clear-groups bash -c "'$BIN/$t' $(run_args "$t") \
		    -o /dev/stdout '$(input_for "$t")' | wc -c"
		status_is 0
		[ "$output" -gt 0 ] || fail "$t -o /dev/stdout wrote nothing"
	done
}

@test "binary input from a terminal is refused with a hint" {
	command -v script >/dev/null || skip "script(1) not installed"
	local t
	for t in $(all_tools); do
		[ "$t" = csv2col ] && continue	# CSV may be typed
		run script -qec "$t $(run_args "$t") $(stdin_op "$t") -o out </dev/tty" /dev/null
		[[ $output == *"refusing to read binary MLSPILL3 data from a terminal"* ]] ||
		    fail "$t: no refusal: $output"
	done
}

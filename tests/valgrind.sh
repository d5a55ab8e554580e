#!/usr/bin/env bash
# valgrind.sh - the CLI tests (bats) with every tool run under valgrind:
# make check-valgrind.  Too slow for make check (each tool start costs
# about a second, a test ten to fifty times its usual time).
#
#   MODE=release BUILD=build/release tests/valgrind.sh [tests/cli/X.bats...]
#                       (default: every tests/cli/*.bats)
#
# How: $BUILD/valgrind/bin holds one script per tool that execs the real
# binary under valgrind --error-exitcode=99 with a log file per process;
# the bats files run with BUILD=$BUILD/valgrind, so helpers.bash puts the
# scripts first on PATH ($BUILD/valgrind/tests and harness link to the
# real ones, for the fault shim and tpchgen).  Any error fails: a tool's
# status becomes 99, which fails the test that checks it, and after the
# run every log is read, so an error in a test that expected a failure
# status fails here, with the log shown (but leak records of a process
# a signal ended: see log_bad).  COLPIPE_VALGRIND=1 is set for
# tests that cannot run under valgrind (address-space limits, nesting
# valgrind, peak resident sizes) to skip themselves.  --vgdb=no: a tool
# killed by SIGKILL would leave valgrind's gdbserver FIFOs in $TMPDIR,
# where the tests look for anything a tool left.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
MODE=${MODE:-release}
BUILD=${BUILD:-build/$MODE}
case $BUILD in
/*) ;;
*) BUILD=$top/$BUILD ;;
esac

if [ "$MODE" = asan ]; then
	echo "check-valgrind: ASan binaries cannot run under valgrind;" \
	    "use MODE=release or MODE=debug" >&2
	exit 2
fi
for c in valgrind bats; do
	if ! command -v $c >/dev/null 2>&1; then
		echo "check-valgrind: $c not found (make deps)" >&2
		exit 2
	fi
done

vg=$BUILD/valgrind
logs=$vg/logs
rm -rf "$vg"
mkdir -p "$vg/bin" "$logs" || exit 1
# Writable by all, as /tmp is: output.bats runs the tools as another
# user too, and valgrind must be able to write their logs.
chmod 1777 "$logs" || exit 1
ln -s ../tests "$vg/tests"
ln -s ../harness "$vg/harness"
n=0
for f in "$BUILD"/bin/*; do
	[ -f "$f" ] && [ -x "$f" ] || continue
	t=${f##*/}
	# Each process's log is made by the wrapper, by the user it runs
	# as, under a name no other process has: a pid comes round again
	# in a long run, and a log an earlier process (root's) left under
	# NAME.PID.log is not another user's to write.
	cat >"$vg/bin/$t" <<WRAP
#!/bin/sh
log=\$(mktemp "$logs/$t.\$\$.XXXXXX.log") || exit 98
exec valgrind --error-exitcode=99 --leak-check=full --vgdb=no \\
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite \\
    --log-file="\$log" "$f" "\$@"
WRAP
	chmod +x "$vg/bin/$t"
	n=$((n + 1))
done
if [ $n -eq 0 ]; then
	echo "check-valgrind: no tools in $BUILD/bin (make first)" >&2
	exit 1
fi

if [ $# -eq 0 ]; then
	set -- "$top/tests/cli"
fi
start=$(date +%s)
BUILD=$vg MODE=$MODE COLPIPE_VALGRIND=1 bats --tap "$@"
rc=$?

# A log's errors are counted by its "ERROR SUMMARY: N errors" line (a
# process killed by SIGKILL writes none, and has none).  Leak records
# ("N bytes in 1 blocks are definitely lost") do not count in a process
# ended by a signal ("Process terminating with default action of
# signal"): killed inside a system call, a pointer held only in a
# register of that call is not seen, and the block is called lost
# (core_outfile_open, core_spill_runs_discard under faults.bats' random
# signals).  A leak in a process that ended by itself, and every other
# kind of error in any process, fails the run.
log_bad() {
	local n leaks
	n=$(sed -n 's/^==[0-9]*== ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$1" |
	    tail -n 1)
	[ -n "$n" ] && [ "$n" -gt 0 ] || return 1
	grep -q '^==[0-9]*== Process terminating with default action of signal' \
	    "$1" || return 0
	leaks=$(grep -Ec '^==[0-9]+== .* are (definitely|indirectly) lost in loss record' \
	    "$1")
	[ "$n" -gt "$leaks" ]
}

bad=0
for l in "$logs"/*.log; do
	[ -e "$l" ] || continue
	if log_bad "$l"; then
		echo "# valgrind errors in ${l##*/}:"
		grep -v '^==[0-9]*== *$' "$l" | sed 's/^/#   /' | head -n 60
		bad=$((bad + 1))
	else
		rm -f "$l"
	fi
done
secs=$(($(date +%s) - start))
if [ $rc -ne 0 ] || [ $bad -ne 0 ]; then
	echo "check-valgrind: FAILED (bats status $rc, $bad process(es)" \
	    "with valgrind errors, logs in $logs), ${secs}s"
	exit 1
fi
echo "check-valgrind: passed, no valgrind errors, ${secs}s"

#!/usr/bin/env bats
# faults.bats - every tool that reads, spills or writes, under injected
# faults: a full disk at -o and at --tmpdir, read errors, EINTR and short
# transfers (tests/faults/shim.c, preloaded), signals at random moments,
# neighbours in a pipeline dying or closing early, and memory too small.
#
# What must hold: a full disk is exit 5 naming the path, with nothing
# left in the temporary directory and the -o target either absent or, if
# it existed, untouched; a read error is exit 5 naming the input; EINTR
# and short transfers change no byte of the output; a signal leaves
# nothing in --tmpdir and nothing at -o unless complete; a dead upstream
# is exit 3 "truncated" downstream; a budget or address space too small
# is a message naming the tool, never a crash.
#
# Each sweep checks through FAULT_LOG that the shim did fire, so a sweep
# whose faults never landed fails instead of passing for nothing.

load helpers

TOOLS7="csv2col col2csv col2parquet colsort colscan colagg coljoin"
SPILLERS="colsort colagg coljoin"

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	export LC_ALL=C
	make_big big.csv 60000
	"$BIN/csv2col" big.csv >big.col || true
	gzip -1 -k big.csv
	make_big small.csv 3000
	"$BIN/csv2col" small.csv >small.col || true
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export LC_ALL=C
	SHIM=$BIN/../tests/libfault.so
	[ -f "$SHIM" ] || fail "fault shim not built: $SHIM"
	# The shim comes before an ASan runtime in the link order.
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
	ln -s "$BATS_FILE_TMPDIR/big.csv" "$BATS_FILE_TMPDIR/big.col" \
	    "$BATS_FILE_TMPDIR/small.csv" "$BATS_FILE_TMPDIR/small.col" \
	    "$BATS_FILE_TMPDIR/big.csv.gz" .
	mkdir d t
}

# set_cmd TOOL IN OUT [SPILL]: CMD becomes the argument vector of TOOL's
# usual run over IN (a .col file, csv2col reading the .csv beside it, or
# - for stdin; coljoin's right input is always small.col),
# writing OUT (- for stdout); with SPILL, a budget small enough that
# the spilling tools spill to t/.
set_cmd() {
	local t=$1 in=$2 out=$3 m=()
	[ -n "${4:-}" ] && m=(-m 256K -T "$PWD/t")
	case $t in
	csv2col) [ "$in" = - ] || in=${in%.col}.csv
		CMD=(csv2col -o "$out" "$in") ;;
	col2csv) CMD=(col2csv -o "$out" "$in") ;;
	col2parquet) CMD=(col2parquet -o "$out" "$in") ;;
	colsort) CMD=(colsort "${m[@]}" -k label -k k -o "$out" "$in") ;;
	colscan) CMD=(colscan -w 'k % 3 = 1' -s 'k, label' -o "$out" "$in") ;;
	colagg) CMD=(colagg "${m[@]}" -j 1 -b k 'count(*), sum(amount)' \
	    -o "$out" "$in") ;;
	coljoin) CMD=(coljoin "${m[@]}" -j 1 --on k --suffix _r -o "$out" \
	    "$in" "$BATS_FILE_TMPDIR/small.col") ;;
	esac
}

# fired: the shim logged at least one fault of the kind $1.
fired() {
	grep -q "^$1 " "$PWD/fault.log" 2>/dev/null
}

# faulty ENV...: runs CMD with the shim preloaded and ENV set.
faulty() {
	run --separate-stderr env LD_PRELOAD="$SHIM" FAULT_LOG="$PWD/fault.log" \
	    "$@" "${CMD[@]}"
}

@test "the shim fires and is harmless when no fault is asked for" {
	set_cmd colsort big.col ref.col
	run --separate-stderr "${CMD[@]}"
	status_is 0
	set_cmd colsort big.col d/out.col
	faulty
	status_is 0
	cmp ref.col d/out.col
	faulty FAULT_ENOSPC_AFTER=10
	status_is 5
	fired enospc || fail "no ENOSPC injected"
}

@test "disk full at -o, swept over N, every tool: exit 5 naming it, old file kept" {
	local t n size nrun=0 out
	for t in $TOOLS7; do
		set_cmd "$t" big.col "ref.$t"
		run --separate-stderr "${CMD[@]}"
		status_is 0
		size=$(filesize "ref.$t")
		for n in 0 1 7 512 4095 4096 65537 $((size / 4)) \
		    $((size / 2)) $((size - 4096)) $((size - 1)); do
			[ "$n" -ge 0 ] || continue
			rm -rf d fault.log && mkdir d
			nrun=$((nrun + 1))
			# Every other run over an existing file.
			[ $((nrun % 2)) -eq 0 ] && printf 'old\n' >d/out
			set_cmd "$t" big.col "$PWD/d/out"
			faulty FAULT_PATH="$PWD/d/?*" FAULT_ENOSPC_AFTER=$n
			no_crash
			[ "$status" -eq 5 ] ||
			    fail "$t N=$n: status $status; $stderr"
			stderr_has "$PWD/d/out"
			stderr_has "No space left on device"
			fired enospc || fail "$t N=$n: no fault injected"
			if [ $((nrun % 2)) -eq 0 ]; then
				[ "$(cat d/out)" = old ] ||
				    fail "$t N=$n: the old file changed"
				out=out
			else
				out=
			fi
			[ "$(ls -A d | tr '\n' ' ')" = "${out:+$out }" ] ||
			    fail "$t N=$n left: $(ls -A d)"
		done
		# With room for it all, the output is whole.
		rm -rf d && mkdir d
		faulty FAULT_PATH="$PWD/d/?*" FAULT_ENOSPC_AFTER=$size
		status_is 0
		cmp "ref.$t" d/out || fail "$t: output differs at N=size"
	done
}

@test "disk full at --tmpdir, swept over N: exit 5 naming it, nothing left" {
	local t n
	for t in $SPILLERS; do
		set_cmd "$t" big.col ref.col spill
		run --separate-stderr "${CMD[@]}"
		status_is 0
		for n in 0 1 100 4095 4096 10000 65536 100000 300000 \
		    700000 1000000 1500000; do
			rm -rf d fault.log && mkdir d
			printf 'old\n' >d/out
			set_cmd "$t" big.col "$PWD/d/out" spill
			faulty FAULT_PATH="$PWD/t/?*" FAULT_ENOSPC_AFTER=$n
			no_crash
			if [ "$status" -eq 0 ]; then
				# The spill fitted: then the output is right.
				! fired enospc || fail "$t N=$n: exit 0 after ENOSPC"
				cmp ref.col d/out || fail "$t N=$n: wrong output"
				continue
			fi
			[ "$status" -eq 5 ] ||
			    fail "$t N=$n: status $status; $stderr"
			stderr_has "$PWD/t"
			stderr_has "No space left on device"
			[ -z "$(ls -A t)" ] || fail "$t N=$n left: $(ls -A t)"
			[ "$(cat d/out)" = old ] || fail "$t N=$n: -o changed"
			[ "$(ls -A d)" = out ] || fail "$t N=$n: $(ls -A d)"
		done
		# At least the small N must have hit the spill.
		rm -f fault.log
		faulty FAULT_PATH="$PWD/t/?*" FAULT_ENOSPC_AFTER=100
		status_is 5
		fired enospc || fail "$t: did not spill"
	done
}

@test "no O_TMPFILE (as on some file systems): outputs and spill files by name, nothing left" {
	local t
	for t in $TOOLS7; do
		set_cmd "$t" big.col "ref.$t" spill
		run --separate-stderr "${CMD[@]}"
		status_is 0
		# Whole, over an old file, with the spill files named and
		# unlinked at once.
		rm -rf d t fault.log && mkdir d t
		printf 'old\n' >d/out
		set_cmd "$t" big.col "$PWD/d/out" spill
		faulty FAULT_NO_TMPFILE=1
		status_is 0
		fired notmpfile || fail "$t: O_TMPFILE never refused"
		cmp "ref.$t" d/out || fail "$t: output differs"
		[ "$(ls -A d)" = out ] || fail "$t: left in d: $(ls -A d)"
		[ -z "$(ls -A t)" ] || fail "$t: left in t: $(ls -A t)"
		# The disk full under the named temporary: the old file kept.
		printf 'old\n' >d/out
		faulty FAULT_NO_TMPFILE=1 FAULT_PATH="$PWD/d/?*" \
		    FAULT_ENOSPC_AFTER=$(($(filesize "ref.$t") / 2))
		no_crash
		[ "$status" -eq 5 ] || fail "$t: status $status; $stderr"
		[ "$(cat d/out)" = old ] || fail "$t: the old file changed"
		[ "$(ls -A d)" = out ] || fail "$t: left in d: $(ls -A d)"
		[ -z "$(ls -A t)" ] || fail "$t: left in t: $(ls -A t)"
	done
	# The disk full in the spill directory, and a signal mid-run.
	for t in $SPILLERS; do
		rm -rf d t && mkdir d t
		set_cmd "$t" big.col "$PWD/d/out" spill
		faulty FAULT_NO_TMPFILE=1 FAULT_PATH="$PWD/t/?*" \
		    FAULT_ENOSPC_AFTER=4096
		no_crash
		[ "$status" -eq 5 ] || fail "$t: status $status; $stderr"
		stderr_has "$PWD/t"
		[ -z "$(ls -A d)" ] || fail "$t: left in d: $(ls -A d)"
		[ -z "$(ls -A t)" ] || fail "$t: left in t: $(ls -A t)"
		env LD_PRELOAD="$SHIM" FAULT_NO_TMPFILE=1 "${CMD[@]}" 2>err &
		sleep "0.0$RANDOM"
		kill -TERM $! 2>/dev/null || true
		wait $! || true
		[ -z "$(ls -A t)" ] || fail "$t TERM: left in t: $(ls -A t)"
		if [ -e d/out ]; then
			cmp "ref.$t" d/out || fail "$t TERM: a partial output"
		fi
		[ -z "$(ls -A d | grep -v '^out$')" ] ||
		    fail "$t TERM: left in d: $(ls -A d)"
	done
}

@test "fsync failing at -o: exit 5 naming it, old file kept" {
	local t
	for t in $TOOLS7; do
		rm -rf d fault.log && mkdir d
		printf 'old\n' >d/out
		set_cmd "$t" small.col "$PWD/d/out"
		faulty FAULT_PATH="$PWD/d/?*" FAULT_FSYNC=EIO
		no_crash
		[ "$status" -eq 5 ] || fail "$t: status $status; $stderr"
		stderr_has "$PWD/d/out"
		fired fsync || fail "$t: fsync not called"
		[ "$(cat d/out)" = old ] || fail "$t: the old file changed"
		[ "$(ls -A d)" = out ] || fail "$t left: $(ls -A d)"
	done
}

@test "EIO reading the input, swept over N, every tool: exit 5 naming it" {
	local t n in
	for t in $TOOLS7; do
		in=big.col
		# csv2col maps a plain file, whose read errors are not
		# read(2)'s; a compressed one it reads.
		[ "$t" = csv2col ] && in=big.csv.gz
		for n in 0 1 511 512 4096 65536 200000 1000000 \
		    $(($(filesize "$in") - 1)); do
			[ "$n" -lt "$(filesize "$in")" ] || continue
			rm -rf d fault.log && mkdir d
			set_cmd "$t" big.col "$PWD/d/out"
			[ "$t" = csv2col ] && CMD=(csv2col -o "$PWD/d/out" "$in")
			faulty FAULT_PATH="$BATS_FILE_TMPDIR/$in" \
			    FAULT_EIO_AFTER=$n
			no_crash
			fired eio || fail "$t N=$n: no read fault injected"
			[ "$status" -eq 5 ] ||
			    fail "$t N=$n: status $status; $stderr"
			stderr_has "$in"
			stderr_has "Input/output error"
			[ -z "$(ls -A d)" ] || fail "$t N=$n left: $(ls -A d)"
		done
	done
}

@test "EIO reading plain CSV from a FIFO (read past libarchive): exit 5 naming it" {
	# A FIFO is streamed, as a pipe is, and has a path the shim can
	# select (every pipe of a shell or of valgrind would match pipe:*).
	local n sz feeder
	sz=$(filesize big.csv)
	for n in 0 1 65536 1048576 $((sz / 2)) $((sz - 1)); do
		rm -rf d fault.log in.csv && mkdir d
		mkfifo in.csv
		cat big.csv >in.csv 2>/dev/null &
		feeder=$!
		CMD=(csv2col -o "$PWD/d/out" in.csv)
		faulty FAULT_PATH="$PWD/in.csv" FAULT_EIO_AFTER=$n timeout 60
		kill $feeder 2>/dev/null || true
		wait $feeder 2>/dev/null || true
		no_crash
		fired eio || fail "N=$n: no read fault injected"
		[ "$status" -eq 5 ] || fail "N=$n: status $status; $stderr"
		stderr_has "in.csv"
		stderr_has "Input/output error"
		[ -z "$(ls -A d)" ] || fail "N=$n left: $(ls -A d)"
	done
}

@test "EINTR and short reads and writes change no byte, every tool" {
	local t env kind in src
	for t in $TOOLS7; do
		in=small.col
		[ "$t" = csv2col ] && in=small.csv
		# The input from a file, then from a pipe (whose output may
		# be framed otherwise: sizes are planned from a file's).
		for src in file pipe; do
			if [ $src = file ]; then
				set_cmd "$t" small.col - spill
			else
				set_cmd "$t" - - spill
			fi
			cat "$in" | "${CMD[@]}" >"ref.$t.$src" ||
			    fail "$t failed"
			for env in FAULT_EINTR_EVERY=2 FAULT_EINTR_EVERY=3 \
			    FAULT_SHORT=13 FAULT_SHORT=4099; do
				kind=$(echo "${env:6:5}" | tr A-Z a-z)
				rm -f fault.log
				# Every descriptor: files, spills, stdin, stdout.
				run --separate-stderr bash -c 'cat "$1" |
				    LD_PRELOAD=$2 FAULT_LOG=$PWD/fault.log \
				    FAULT_PATH="*" '"$env"' "${@:3}" | cat >out' \
				    - "$in" "$SHIM" "${CMD[@]}"
				status_is 0
				stderr_empty
				fired "$kind" ||
				    fail "$t $env $src: no fault injected"
				cmp "ref.$t.$src" out ||
				    fail "$t $env $src: output differs"
			done
		done
	done
}

# ulimit_run KB TOOL ARGS...: runs TOOL under an address-space limit.
# ASan's shadow memory alone is terabytes of address space.
ulimit_run() {
	local kb=$1
	[ "${MODE:-release}" != asan ] || skip "ASan cannot run under ulimit -v"
	[ -z "${COLPIPE_VALGRIND:-}" ] || skip "valgrind cannot run under ulimit -v"
	shift
	run --separate-stderr bash -c 'ulimit -v "$1"; shift; exec "$@"' - \
	    "$kb" "$@"
}

@test "a FIFO input is opened once: its writer is never left without a reader, every tool" {
	# A tool that opened its input to look at it, closed it and opened
	# it again left a FIFO's writer without a reader in between: a write
	# then is SIGPIPE, and the stream is lost (exit 3) or never comes
	# (the tool waits for a writer).  The shim stretches such a gap to
	# half a second after every close of the FIFO.
	for t in $TOOLS7; do
		set_cmd "$t" big.col ref -
		"${CMD[@]}" >/dev/null 2>&1 || fail "$t: the reference run failed"
		rm -f in.col in.csv
		set_cmd "$t" in.col out -
		if [ "$t" = csv2col ]; then
			mkfifo in.csv
			cat big.csv >in.csv &
		else
			mkfifo in.col
			cat big.col >in.col &
		fi
		feeder=$!
		rm -f fault.log
		faulty FAULT_PATH="$PWD/in.c??" FAULT_CLOSE_SLEEP=500 \
		    timeout 60
		kill $feeder 2>/dev/null || true
		wait $feeder 2>/dev/null || true
		[ "$status" -eq 0 ] || fail "$t: exit $status: $stderr"
		fired close || fail "$t: the shim never saw the FIFO closed"
		cmp -s ref out || fail "$t: output differs from the file's"
	done
}

@test "ulimit -v, swept: exit 0, or 70 naming the tool as out of memory; never a crash" {
	local t kb hits=0
	make_big mid.csv 400000
	csv2col mid.csv >mid.col
	for t in $TOOLS7; do
		set_cmd "$t" mid.col "$PWD/d/out" spill
		for kb in $(seq 52000 12000 130000); do
			rm -rf d t && mkdir d t
			ulimit_run "$kb" "${CMD[@]}"
			# The loader itself may not fit: not the tool's to say.
			[[ $status -eq 127 && $stderr == *"shared libraries"* ]] &&
			    continue
			no_crash
			[ "$status" -eq 0 ] || [ "$status" -eq 70 ] ||
			    fail "$t -v $kb: status $status; $stderr"
			if [ "$status" -eq 70 ]; then
				hits=$((hits + 1))
				[[ $stderr == "$t: out of memory"* ]] ||
				    fail "$t -v $kb: $stderr"
				stderr_has "cannot allocate"
				stderr_has "ulimit -v"
				[ -z "$(ls -A d)" ] ||
				    fail "$t -v $kb left: $(ls -A d)"
			fi
			[ -z "$(ls -A t)" ] || fail "$t -v $kb left: $(ls -A t)"
		done
	done
	[ "$hits" -gt 0 ] || fail "no limit was low enough to run out"
}

@test "col2parquet's snappy runs out of memory as exit 70, not std::bad_alloc's abort" {
	local kb
	make_big mid.csv 400000
	csv2col mid.csv >mid.col
	for kb in $(seq 60000 1000 76000); do
		ulimit_run "$kb" col2parquet -c snappy -o out.pq mid.col
		no_crash
		[ "$status" -eq 0 ] || [ "$status" -eq 70 ] ||
		    fail "-v $kb: status $status; $stderr"
		[[ $stderr != *bad_alloc* ]] || fail "-v $kb: $stderr"
	done
}

@test "the default budget fits under ulimit -v: colsort, colagg and coljoin finish" {
	local t
	make_big mid.csv 400000
	csv2col mid.csv >mid.col
	[ "${MODE:-release}" != asan ] || skip "ASan cannot run under ulimit -v"
	[ -z "${COLPIPE_VALGRIND:-}" ] || skip "valgrind cannot run under ulimit -v"
	for t in $SPILLERS; do
		# No -m: the default budget, under the limit.
		set_cmd "$t" mid.col -
		CMD=("${CMD[0]}" -T "$PWD/t" "${CMD[@]:1}")
		"${CMD[@]}" >ref || fail "$t failed"
		for kb in 100000 150000 200000; do
			run --separate-stderr bash -c 'ulimit -v "$1"; shift
			    "$@" >out' - "$kb" "${CMD[@]}"
			status_is 0
			# The rows: frames are cut where the budget says,
			# colagg and coljoin promise no order.
			cmp <(col2csv ref | sort) <(col2csv out | sort) ||
			    fail "$t -v $kb: output differs"
		done
	done
}

@test "--memory below the minimum is refused naming it; a row too wide for the budget is exit 4 naming the budget that sorts it" {
	local t m
	for t in $SPILLERS; do
		set_cmd "$t" small.col -
		run --separate-stderr "${CMD[0]}" -m 100K "${CMD[@]:1}"
		status_is 2
		stderr_has "--memory must be at least 256K"
	done
	# Three 1 MB strings, a budget of 256K: too small to make
	# progress, so exit 4 with the budget that is enough, the old
	# output and the temporary directory as they were; that budget
	# then sorts them.
	awk 'BEGIN { print "k,s"; for (i = 0; i < 3; i++) { printf "%d,", 2 - i
		for (j = 0; j < 200000; j++) printf "abcde"; print "" } }' >w.csv
	csv2col w.csv >w.col
	echo old >o.col
	run --separate-stderr colsort -m 256K -T "$PWD/t" -k s -k k -o o.col \
	    w.col
	status_is 4
	stderr_matches "^colsort: row 1 is [0-9]+ bytes, more than a quarter of the memory budget \(262144 bytes\) can sort: give -m [0-9]+M or more$"
	[ "$(cat o.col)" = old ] || fail "the old output was touched"
	[ -z "$(ls -A t)" ] || fail "left: $(ls -A t)"
	m=$(printf '%s\n' "$stderr" | sed -n 's/.*give -m \([0-9]*M\) or more$/\1/p')
	run --separate-stderr colsort -m "$m" -T "$PWD/t" -k s -k k -o o.col \
	    w.col
	status_is 0
	[ "$(col2csv o.col | cut -c1-3 | tr '\n' ' ')" = "k,s 0,a 1,a 2,a " ] ||
	    fail "wrong order: $(col2csv o.col | cut -c1-3)"
	[ -z "$(ls -A t)" ] || fail "left: $(ls -A t)"
}

@test "SIGINT, SIGTERM, SIGKILL at random moments: nothing in --tmpdir, -o whole or absent" {
	local t sig pid delay round kills=0 whole=0
	make_big mid.csv 400000
	csv2col mid.csv >mid.col
	# Job control: a background job must not start with SIGINT ignored.
	set -m
	for t in colsort coljoin colagg col2parquet; do
		set_cmd "$t" mid.col ref spill
		"${CMD[@]}" || fail "$t failed"
		for sig in INT TERM KILL; do
			for round in 1 2 3 4; do
				rm -rf d t && mkdir d t
				set_cmd "$t" mid.col "$PWD/d/out" spill
				"${CMD[@]}" 2>err &
				pid=$!
				# 0 to 0.5 s: reading, spilling, merging, writing.
				delay=$(awk -v r="$RANDOM" 'BEGIN { printf "%.3f", r % 500 / 1000 }')
				sleep "$delay"
				kill -"$sig" "$pid" 2>/dev/null && kills=$((kills + 1))
				wait "$pid" || true
				# O_TMPFILE: even SIGKILL leaves no spill file.
				[ -z "$(ls -A t)" ] ||
				    fail "$t SIG$sig at ${delay}s left in t: $(ls -A t)"
				case $(ls -A d) in
				"") ;;
				out)
					whole=$((whole + 1))
					cmp ref d/out ||
					    fail "$t SIG$sig at ${delay}s: partial -o"
					;;
				*) fail "$t SIG$sig at ${delay}s left: $(ls -A d)" ;;
				esac
			done
		done
	done
	[ "$kills" -gt 0 ] || fail "every run ended before its signal"
}

@test "an upstream killed mid-stream: every downstream stage is exit 3 'truncated', with and without pipefail" {
	local t pf
	for t in col2csv col2parquet colsort colscan colagg coljoin; do
		set_cmd "$t" - "$PWD/d/out"
		for pf in +o -o; do
			rm -rf d && mkdir d
			# The writer dies by SIGKILL after part of a stream.
			run --separate-stderr bash -c 'set '"$pf"' pipefail
			    sh -c "head -c 300000 big.col; kill -KILL \$\$" |
			    "$@"; echo "${PIPESTATUS[*]}"' - "${CMD[@]}"
			[ "$output" = "137 3" ] ||
			    fail "$t pipefail $pf: statuses $output; $stderr"
			[ "$pf" = +o ] && [ "$status" -ne 0 ] &&
			    fail "$t: the echo failed"
			stderr_has "$t: stdin: truncated"
			[ -z "$(ls -A d)" ] || fail "$t left: $(ls -A d)"
		done
	done
}

@test "a downstream closing early (| head): the upstream stages end quietly" {
	local t
	for t in csv2col colsort colscan colagg coljoin; do
		set_cmd "$t" big.col -
		run --separate-stderr bash -c '"$@" | col2csv | head -n 2 >/dev/null
		    echo "${PIPESTATUS[*]}"' - "${CMD[@]}"
		status_is 0
		stderr_empty
		[[ $output =~ ^(0|141)\ (0|141)\ 0$ ]] ||
		    fail "$t: statuses $output"
	done
}

@test "csv2col's input truncated under it (copytruncate): exit 3 'input changed', no SIGBUS, nothing at -o" {
	local round
	make_big mid.csv 400000
	for round in 1 2 3; do
		cp mid.csv log.csv
		rm -rf d && mkdir d
		# -o, the file cut at a random moment (or after the end).
		(csv2col -o d/out log.csv 2>err; echo $? >rc) &
		sleep "0.0$RANDOM"
		truncate -s 1000 log.csv
		wait
		if [ "$(cat rc)" -ne 0 ]; then
			[ "$(cat rc)" -eq 3 ] ||
			    fail "-o: status $(cat rc); $(cat err)"
			grep -q "log.csv: input changed while being read" err ||
			    fail "-o: $(cat err)"
			[ -z "$(ls -A d)" ] || fail "left: $(ls -A d)"
		fi
	done
	# The pipe case, deterministic: the file is cut only once csv2col
	# has it mapped (its size taken), however long that takes on a
	# loaded machine, and the reader is held back until the cut, so
	# csv2col is mid-file, blocked on the pipe, when it comes.
	cp mid.csv log.csv
	rm -f rc
	run --separate-stderr bash -c '
	    { (echo "$BASHPID" >pid; exec csv2col log.csv); echo $? >rc; } |
	    { until [ -e cut ]; do sleep 0.01; done
	      col2csv >/dev/null; echo $? >rc2; } &
	    path=$(realpath log.csv)
	    until [ -s pid ] && grep -qF "$path" "/proc/$(cat pid)/maps"; do
		if [ -e rc ]; then
			echo "csv2col ended (status $(cat rc))" >nomap
			break
		elif [ "$SECONDS" -ge 60 ]; then
			echo "60 s passed" >nomap
			break
		fi
		sleep 0.01
	    done 2>/dev/null
	    truncate -s 1000 log.csv; touch cut; wait'
	[ ! -e nomap ] || fail "csv2col never mapped log.csv: $(cat nomap)"
	[ "$(cat rc)" -eq 3 ] || fail "status $(cat rc); $stderr"
	[ "$(cat rc2)" -eq 3 ] || fail "col2csv: status $(cat rc2); $stderr"
	stderr_has "csv2col: log.csv: input changed while being read"
	stderr_has "col2csv: stdin: truncated"
}

#!/usr/bin/env bats
# colsort.bats - colsort as users run it: pipelines against sort(1) on the
# same rows as text, check mode, top-N, unique, errors, memory and the
# temporary directory after every kind of ending.

load helpers

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	export LC_ALL=C
	make_big big.csv 200000
	"$BIN/csv2col" big.csv >big.col || true
	# NULLs, empty strings, negative numbers and duplicate keys.
	printf '%s\n' 'id,grp,val,name' '1,b,3.50,x' '2,a,,y' '3,,1.25,' \
	    '4,a,-2.00,""' '5,b,3.50,z' '6,,,w' '7,a,10.00,v' >nulls.csv
	"$BIN/csv2col" nulls.csv >nulls.col || true
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export LC_ALL=C
	ln -s "$BATS_FILE_TMPDIR/big.csv" big.csv
	ln -s "$BATS_FILE_TMPDIR/big.col" big.col
	ln -s "$BATS_FILE_TMPDIR/nulls.col" nulls.col
	need csv2col col2csv colsort
	mkdir spill
	export TMPDIR=$BATS_TEST_TMPDIR/spill
}

# The rows of big.csv sorted by label, then amount descending, stably,
# as sort(1) sees them.
big_expected() {
	tail -n +2 big.csv | sort -s -t, -k4,4 -k2,2nr
}

@test "a pipeline sorts like sort(1), stably, at every budget" {
	big_expected >want.csv
	for m in 256K 1M 8M 1G; do
		run --separate-stderr sh -c "csv2col big.csv | colsort -m $m \
		    -k label -k amount:desc | col2csv --no-header"
		status_is 0
		stderr_empty
		printf '%s\n' "$output" | cmp -s - want.csv ||
			fail "budget $m: output differs from sort(1)"
	done
	spill_empty
}

@test "NULLs last by default, first on request, in both directions" {
	run --separate-stderr sh -c 'colsort -k val nulls.col | col2csv --no-header | cut -d, -f1 | tr "\n" " "'
	status_is 0
	assert_output "4 3 1 5 7 2 6 "
	run --separate-stderr sh -c 'colsort -k val:desc nulls.col | col2csv --no-header | cut -d, -f1 | tr "\n" " "'
	assert_output "7 1 5 3 4 2 6 "
	run --separate-stderr sh -c 'colsort -k val:desc:nulls-first nulls.col | col2csv --no-header | cut -d, -f1 | tr "\n" " "'
	assert_output "2 6 7 1 5 3 4 "
	run --separate-stderr sh -c 'colsort -k grp:nulls-first -k name nulls.col | col2csv --no-header | cut -d, -f1 | tr "\n" " "'
	assert_output "6 3 4 7 2 1 5 "
}

@test "several files and concatenated streams are one input" {
	head -n 1000 big.csv >a.csv
	{ head -n 1 big.csv; tail -n +1001 big.csv | head -n 3000; } >b.csv
	csv2col a.csv >a.col
	csv2col b.csv >b.col
	colsort -k day -k k:desc a.col b.col | col2csv >files.csv
	cat a.col b.col | colsort -k day -k k:desc | col2csv >concat.csv
	cmp files.csv concat.csv
	tail -n +2 a.csv >rows
	tail -n +2 b.csv >>rows
	sort -s -t, -k3,3 -k1,1nr rows >want
	tail -n +2 files.csv | cmp - want
}

@test "--check: 0 when sorted, 1 naming the first row out of order" {
	colsort -k label -k amount:desc big.col >sorted.col
	run --separate-stderr colsort -c -k label -k amount:desc sorted.col
	status_is 0
	assert_output ""
	stderr_empty
	run --separate-stderr colsort --check -k label big.col
	status_is 1
	assert_output ""
	# Row 2 of big.csv is "label 2", row 1 "label 1": row 3 is
	# "label 3" ... the first break is where "label 10" follows "label 9".
	want=$(tail -n +2 big.csv | cut -d, -f4 | awk 'NR > 1 && $0 < prev { print NR; exit } { prev = $0 }')
	[[ "$stderr" = "colsort: big.col: disorder at row $want: ('label "* ]] ||
		fail "message: $stderr (want row $want)"
	run --separate-stderr sh -c 'colsort -c -k label < big.col'
	status_is 1
	stderr_has "colsort: stdin: disorder at row $want"
	# --unique makes equal neighbours a disorder.
	run --separate-stderr colsort -c -u -k label sorted.col
	status_is 1
}

@test "--limit: the first N rows of the full sort" {
	big_expected | head -n 25 >want
	run --separate-stderr sh -c 'colsort -m 1M --limit 25 -k label -k amount:desc big.col | col2csv --no-header'
	status_is 0
	printf '%s\n' "$output" | cmp - want
	run --separate-stderr sh -c 'colsort --limit 0 -k label big.col | col2csv --no-header'
	status_is 0
	assert_output ""
}

@test "--unique: the first row of each run of equal keys" {
	tail -n +2 big.csv | sort -s -t, -k4,4 | awk -F, '$4 != prev { print } { prev = $4 }' >want
	for m in 512K 64M; do
		run --separate-stderr sh -c "colsort -m $m -u -k label big.col | col2csv --no-header"
		status_is 0
		printf '%s\n' "$output" | cmp - want || fail "budget $m"
	done
	[ "$(wc -l <want)" -eq 977 ]
}

@test "spill options give the same bytes of text" {
	mkdir d1 d2
	colsort -m 512K -k day -k k big.col | col2csv >plain.csv
	colsort -m 512K -T d1 -T d2 --compress-spill -k day -k k big.col |
	    col2csv >multi.csv
	cmp plain.csv multi.csv
	[ -z "$(ls -A d1)$(ls -A d2)" ]
}

@test "one or two gather threads write the same bytes" {
	colsort -j 1 -m 2M -k label -k amount:desc big.col >one.col
	colsort -j 2 -m 2M -k label -k amount:desc big.col >two.col
	cmp one.col two.col
	colsort --threads=2 -k day -k k big.col >three.col
	colsort --threads=1 -k day -k k big.col >four.col
	cmp three.col four.col
	# -j $(nproc) on a bigger machine: clamped to the two colsort uses.
	colsort -j 64 -m 2M -k label -k amount:desc big.col >many.col
	cmp one.col many.col
	run --separate-stderr colsort -j 0 -k day big.col
	status_is 2
	stderr_has "--threads must be at least 1"
}

@test "usage errors: no key, unknown key column, bad key option" {
	run --separate-stderr colsort big.col
	status_is 2
	stderr_has "no sort key"
	run --separate-stderr colsort -k nosuch big.col
	status_is 2
	assert_output ""
	stderr_has "colsort: unknown key column 'nosuch'"
	run --separate-stderr colsort -k label:sideways big.col
	status_is 2
	stderr_has "sideways"
	run --separate-stderr colsort -k label -m 12Q big.col
	status_is 2
	run --separate-stderr colsort -k label -m 100K big.col
	status_is 2
	stderr_has "at least 256K"
}

@test "a truncated input: exit 3, and the output is left truncated too" {
	head -c 300000 big.col >cut.col
	run --separate-stderr sh -c 'colsort -k label cut.col > out.col'
	status_is 3
	stderr_has "truncated"
	run --separate-stderr col2csv out.col
	status_is 3
	run --separate-stderr colsort -k label -o out2.col cut.col
	status_is 3
	[ ! -e out2.col ]
	spill_empty
}

@test "--max-spill: exit 4 with a message, nothing left behind" {
	run --separate-stderr sh -c 'colsort -m 256K --max-spill 1M -k label big.col > /dev/null'
	status_is 4
	stderr_has "--max-spill"
	spill_empty
}

@test "a full temporary directory: exit 5 naming it" {
	mkdir small
	if ! mount -t tmpfs -o size=512k tmpfs small 2>/dev/null; then
		skip "cannot mount a small tmpfs here"
	fi
	run --separate-stderr sh -c "colsort -m 256K -T $PWD/small -k label big.col > /dev/null"
	left=$(ls -A small)
	umount small
	status_is 5
	stderr_has "$PWD/small"
	stderr_has "No space left on device"
	[ -z "$left" ] || fail "left behind: $left"
}

@test "peak RSS stays within the budget plus the documented constant" {
	[ -x /usr/bin/time ] || skip "/usr/bin/time not installed"
	[ "${MODE:-release}" != asan ] || skip "ASan inflates memory"
	[ -z "${COLPIPE_VALGRIND:-}" ] || skip "valgrind inflates memory"
	# From a file (run sizes planned from its size) and from a pipe.
	for m in 1 4 16; do
		/usr/bin/time -o rss -f %M colsort -m ${m}M -k label -k k \
		    big.col >/dev/null
		/usr/bin/time -o rss2 -f %M sh -c "cat big.col |
		    colsort -m ${m}M -k label -k k >/dev/null"
		# The constant of colsort(1): about 6 MiB plus twice an input
		# frame; big.col's frames are about 0.3 MiB.
		for kb in $(cat rss) $(cat rss2); do
			[ "$kb" -le $((m * 1024 + 8 * 1024)) ] ||
				fail "-m ${m}M: peak RSS $kb KiB"
		done
	done
}

@test "address space stays within the budget's bound of colsort(1) (ulimit -v)" {
	[ "${MODE:-release}" != asan ] || skip "ASan cannot run under ulimit -v"
	[ -z "${COLPIPE_VALGRIND:-}" ] || skip "valgrind cannot run under ulimit -v"
	make_big mid.csv 600000
	csv2col mid.csv >mid.col
	colsort -j 1 -m 64M -k label -k k mid.col | col2csv >want
	# A tenth more than the budget and 56 MiB, from a file and a pipe,
	# on one thread and two.
	for m in 4 16 64; do
		kb=$(((m * 1024 * 11 / 10) + 56 * 1024))
		for j in 1 2; do
			run --separate-stderr bash -c 'ulimit -v "$1"; shift;
			    exec "$@"' - "$kb" colsort -j $j -m ${m}M \
			    -k label -k k -o got.col mid.col
			[ "$status" -eq 0 ] ||
				fail "-m ${m}M -j $j, ulimit -v $kb: $stderr"
			col2csv got.col | cmp want -
			run --separate-stderr bash -c 'ulimit -v "$1"; shift;
			    cat mid.col | "$@"' - "$kb" colsort -j $j \
			    -m ${m}M -k label -k k -o got.col
			[ "$status" -eq 0 ] ||
				fail "pipe -m ${m}M -j $j, ulimit -v $kb: $stderr"
			col2csv got.col | cmp want -
		done
	done
}

@test "a row wider than a quarter of the budget: exit 4 saying the budget it needs" {
	awk 'BEGIN { print "k,v"; print "2,b"; s = "x";
	    while (length(s) < 300000) s = s s; print "1," s; print "3,c" }' \
	    >wide.csv
	csv2col wide.csv >wide.col
	run --separate-stderr colsort -m 256K -k k -o out.col wide.col
	status_is 4
	stderr_has "colsort: row 2 is 524302 bytes, more than a quarter of the memory budget (262144 bytes) can sort: give -m 3M or more"
	[ ! -e out.col ] || fail "output left behind"
	spill_empty
	# The budget it names sorts it.
	run --separate-stderr colsort -m 3M -k k -o out.col wide.col
	status_is 0
	col2csv out.col | cut -c 1-3 >got
	printf '%s\n' k,v 1,x 2,b 3,c >want
	diff want got
	# From a pipe, with the row last in its own frame too.
	run --separate-stderr sh -c 'cat wide.col wide.col |
	    colsort -m 1M -k k >/dev/null'
	status_is 4
	stderr_has "row 2 is 524302 bytes"
}

@test "--stats: rows, runs, spill bytes, merge passes, memory" {
	run --separate-stderr sh -c 'colsort --stats -m 512K -k label big.col > /dev/null'
	status_is 0
	stderr_matches "200000 rows in, 200000 rows out, [0-9]+ runs, [0-9.]+ MB spilled, [0-9]+ merge passes"
	stderr_matches "peak charged [0-9.]+ MB, peak resident [0-9.]+ MB"
}

@test "-o writes atomically" {
	run --separate-stderr colsort -k k:desc -o out.col big.col
	status_is 0
	assert_output ""
	col2csv out.col | sed -n 2p | grep -q '^200000,'
}

@test "the temporary directory is empty after success and every signal" {
	colsort -m 512K -k label big.col >/dev/null
	spill_empty
	# Downstream goes away: SIGPIPE.
	colsort -m 512K -k label big.col | head -c 1000 >/dev/null
	spill_empty
	# Hold colsort mid-input after it has spilled: the input is all of
	# big.col but its trailer, then a pause.
	size=$(filesize big.col)
	head -c $((size - 56)) big.col >body.col
	for sig in INT TERM KILL PIPE; do
		mkfifo in.fifo
		colsort -m 512K -k label <in.fifo >/dev/null 2>err &
		pid=$!
		{ cat body.col; sleep 30; } >in.fifo &
		feeder=$!
		# Wait until colsort holds a spill file open.
		n=0
		until ls -l /proc/$pid/fd 2>/dev/null | grep -q "$TMPDIR"; do
			n=$((n + 1))
			[ $n -lt 200 ] || fail "$sig: colsort never spilled"
			sleep 0.05
		done
		kill -s $sig $pid
		wait $pid || true
		kill $feeder 2>/dev/null || true
		wait $feeder 2>/dev/null || true
		rm -f in.fifo
		spill_empty
	done
}

@test "decimal(38,10): csv2col | colsort -k a | col2csv orders every digit, NULLs last, spilled or not" {
	printf '%s\n' 'a' '12345678901234567890.123' '' '0' \
	    '-9999999999999999999999999999.9999999999' '0.0000000001' \
	    '9999999999999999999999999999.9999999999' '-0.5' \
	    '9223372036854775808' >in.csv
	run --separate-stderr bash -c "set -o pipefail; csv2col --schema 'a:decimal(38,10)' in.csv | colsort -k a | col2csv"
	status_is 0
	stderr_empty
	assert_output "$(printf '%s\n' a \
	    '-9999999999999999999999999999.9999999999' '-0.5000000000' \
	    '0.0000000000' '0.0000000001' '9223372036854775808.0000000000' \
	    '12345678901234567890.1230000000' \
	    '9999999999999999999999999999.9999999999' '')"
	run --separate-stderr bash -c "set -o pipefail; csv2col --schema 'a:decimal(38,10)' in.csv | colsort -k a:desc:nulls-first | col2csv --no-header | head -n 3"
	status_is 0
	assert_output "$(printf '%s\n' '' \
	    '9999999999999999999999999999.9999999999' \
	    '12345678901234567890.1230000000')"
	# 60000 fixed-width values sort as text does; under -m 512K the
	# sort spills and merges.
	awk 'BEGIN { srand(7); print "a";
	    for (i = 0; i < 60000; i++) {
		s = "";
		for (j = 0; j < 28; j++) s = s int(rand() * (j < 20 ? 2 : 10));
		s = s ".";
		for (j = 0; j < 10; j++) s = s int(rand() * 10);
		print s } }' >many.csv
	{ echo a; tail -n +2 many.csv | sort | sed 's/^0*\([0-9]\)/\1/'; } >want.csv
	run --separate-stderr bash -c "set -o pipefail; csv2col --schema 'a:decimal(38,10)' many.csv | colsort -m 512K -k a --stats | col2csv >got.csv"
	status_is 0
	stderr_matches ' ([2-9]|[1-9][0-9]+) runs'
	cmp got.csv want.csv
	spill_empty
}

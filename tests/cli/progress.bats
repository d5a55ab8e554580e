#!/usr/bin/env bats
# progress.bats - --progress as people expect it: on a terminal only,
# the phase, the position (not the input's size), a percentage when the
# size is known, and several tools of one pipeline on one shared line
# without wiping each other's text.  script(1) gives the tools a terminal.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export LC_ALL=C
	command -v script >/dev/null || skip "script(1) not installed"
	# The shared table lives in $TMPDIR: keep it where we can see it.
	mkdir -p tmp
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	make_slow_csv
}

# slow_csv N: N chunks of 10000 rows, a tenth of a second apart, so that
# the stages run long enough (about N/10 s) to draw progress.  A script
# on PATH, not a shell function: script(1) runs $SHELL, and a shell such
# as dash drops the exported functions of bash from the environment.
make_slow_csv() {
	mkdir -p bin
	cat >bin/slow_csv <<'SH'
#!/bin/sh
exec awk -v n="$1" 'BEGIN {
	print "k,v"
	for (c = 0; c < n; c++) {
		for (i = 0; i < 10000; i++)
			printf "%d,%d\n", c * 10000 + i, (c * 7 + i) % 13
		fflush()
		system("sleep 0.1")
	}
}'
SH
	chmod +x bin/slow_csv
	PATH=$PWD/bin:$PATH
}

@test "--progress is silent when stderr is not a terminal" {
	need csv2col
	make_big big.csv 20000
	run --separate-stderr csv2col --progress -o out.col big.csv
	status_is 0
	stderr_empty
}

@test "--progress on a terminal: the phase, the rows and the position" {
	need csv2col colsort
	make_big big.csv 200000
	csv2col big.csv >big.col
	# colsort's input size is known: a percentage; then its phases.
	# In memory: sorting, then writing.
	run script -qec "colsort --progress -k label -k k -m 512M big.col >/dev/null" /dev/null
	[ "$status" -eq 0 ] || fail "status $status: $output"
	[[ $output == *"colsort: sorting"* ]] || fail "no sorting phase: $output"
	[[ $output == *"colsort: writing"* ]] || fail "no writing phase: $output"
	# Spilled: each merge pass of the estimated number, the last one
	# last.
	run script -qec "colsort --progress -k label -k k -m 1M big.col >/dev/null" /dev/null
	[ "$status" -eq 0 ] || fail "status $status: $output"
	[[ $output =~ colsort:\ merging\ ([0-9]+)/([0-9]+) ]] ||
	    fail "no merging phase: $output"
	n=${BASH_REMATCH[2]}
	[[ $output == *"colsort: merging $n/$n"* ]] || fail "no last pass: $output"
	[[ $output != *"755.0 MB"* ]] || fail "printed a size as the position"
	# A slow input: the position grows, and it is shown in rows.
	run script -qec "bash -c 'slow_csv 15 | csv2col --progress --batch-rows 1000 --sample-rows 1000 >/dev/null'" /dev/null
	[ "$status" -eq 0 ] || fail "status $status: $output"
	[[ $output == *"csv2col: reading, "*" rows"* ]] || fail "no reading line: $output"
	[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"
}

@test "several tools with --progress in one pipeline share one line" {
	need csv2col colsort col2csv
	run script -qec "bash -c 'slow_csv 20 | csv2col --progress --batch-rows 1000 --sample-rows 1000 | colsort --progress -k v -k k | col2csv --progress >/dev/null'" /dev/null
	[ "$status" -eq 0 ] || fail "status $status: $output"
	# Some drawing shows two stages side by side.
	[[ $output == *"csv2col: "*" | colsort: "* || $output == *"colsort: "*" | csv2col: "* ]] ||
	    fail "no shared line: $output"
	[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"
}

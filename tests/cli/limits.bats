#!/usr/bin/env bats
# limits.bats - hostile but legal input in linear time and the documented
# caps on hostile input: each test under a generous timeout, so a return
# of quadratic work fails rather than hangs.

load helpers

# cpu_under SECS CMD...: runs CMD (under a timeout, so it cannot hang)
# and fails unless it exits 0 within SECS seconds of CPU time (user +
# system, which a loaded machine does not inflate as it does wall time);
# the sanitizer and debug builds and valgrind get five times as long.
cpu_under() {
	local secs=$1 t
	shift
	case ${MODE:-release} in release) ;; *) secs=$((secs * 5)) ;; esac
	[ -z "${COLPIPE_VALGRIND:-}" ] || secs=$((secs * 20))
	TIMEFORMAT='%U %S'
	{ time timeout $((secs * 3 + 45)) "$@" 2>stderr.txt; } 2>cpu.txt ||
	    fail "exit $?: $* ($(cat stderr.txt))"
	t=$(awk '{ printf "%d", $1 + $2 + 0.5 }' cpu.txt)
	[ "$t" -le "$secs" ] || fail "$t s of CPU, want at most $secs: $*"
}

# names N: a header of N distinct names and one row of N numbers.
wide_csv() {
	awk -v n="$1" 'BEGIN {
		for (i = 1; i <= n; i++)
			printf "%s%s", (i > 1 ? "," : ""), "col" i
		print ""
		for (i = 1; i <= n; i++)
			printf "%s%d", (i > 1 ? "," : ""), i
		print ""
	}'
}

@test "csv2col: 100k distinct column names in linear time" {
	need csv2col col2csv
	wide_csv 100000 >wide.csv
	# Quadratic names took 25 s; linear ones about 4 s of CPU here, half
	# of it the kernel's, which a machine running two suites at once
	# inflates: 10 s still tells the two apart.
	cpu_under 10 csv2col --header -o wide.col wide.csv
	cpu_under 5 sh -c 'col2csv wide.col >out.csv'
	head -n 1 wide.csv | tr , '\n' >want
	head -n 1 out.csv | tr , '\n' >got
	[ "$(wc -l <got)" -eq 100000 ]
	cmp want got
	sed -n 2p wide.csv | cmp - <(sed -n 2p out.csv)
}

@test "csv2col: 8000 copies of a name become name, name_1, ... quickly" {
	need csv2col col2csv
	awk 'BEGIN {
		for (i = 1; i <= 8000; i++)
			printf "%s%s", (i > 1 ? "," : ""), "column7"
		print ""
		for (i = 1; i <= 8000; i++)
			printf "%s%d", (i > 1 ? "," : ""), i
		print ""
	}' >dup.csv
	[ "$(head -n 1 dup.csv | wc -c)" -gt 63000 ]
	cpu_under 5 csv2col --header -o dup.col dup.csv
	col2csv dup.col >out.csv
	awk 'BEGIN { print "column7"
		for (k = 1; k < 8000; k++) print "column7_" k }' >want
	head -n 1 out.csv | tr , '\n' >got
	cmp want got
}

@test "csv2col: copies mixed with names that look like renamings" {
	need csv2col col2csv
	printf 'a,a,a_1,a,b,a_2,a_1,b\n1,2,3,4,5,6,7,8\n' >mix.csv
	run csv2col --header mix.csv
	status_is 0
	csv2col --header mix.csv | col2csv | head -n 1 >got
	echo 'a,a_1,a_1_1,a_2,b,a_2_1,a_1_2,b_1' | cmp - got
}

@test "csv2col: more than 1048576 columns is exit 3 naming the limit" {
	need csv2col
	awk 'BEGIN { for (i = 0; i < 1048576; i++) printf "1,"; print "1" }' \
	    >many.csv
	run --separate-stderr timeout 60 csv2col --no-header -o many.col \
	    many.csv
	status_is 3
	stderr_has "many.csv:1: 1048577 columns, more than the limit of 1048576"
	[ ! -e many.col ]
}

@test "colscan: a 100 KiB expression, as long as argv allows, is read" {
	need csv2col colscan
	printf 'a\n1\n2\n' | csv2col -o t.col
	# One argument holds at most 128 KiB (Linux's MAX_ARG_STRLEN), under
	# the parser's 16 MiB cap (test_expr_parse checks the cap itself).
	awk 'BEGIN { printf "a IN (1"; for (i = 0; i < 20000; i++)
		printf ",%d", i + 5; print ")" }' >ok.txt
	[ "$(wc -c <ok.txt)" -gt 100000 ]
	run --separate-stderr colscan --count -w "$(cat ok.txt)" t.col
	status_is 0
	[ "$output" = 1 ]
}

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

# bounded SECS MIB CMD...: cpu_under SECS CMD, and (release builds, where
# RSS means something) a peak RSS of at most MIB MiB.
bounded() {
	local secs=$1 mib=$2 kb
	shift 2
	if [ "${MODE:-release}" != release ] || [ -n "${COLPIPE_VALGRIND:-}" ] ||
	    [ ! -x /usr/bin/time ]; then
		cpu_under "$secs" "$@"
		return
	fi
	cpu_under "$secs" /usr/bin/time -o rss.txt -f %M "$@"
	kb=$(cat rss.txt)
	[ "$kb" -le $((mib * 1024)) ] ||
		fail "peak RSS $((kb / 1024)) MiB, want at most $mib: $*"
}

@test "every tool takes 100k columns in linear time and bounded memory" {
	need csv2col col2csv colscan colsort colagg coljoin col2parquet
	# Three rows of 100k columns.  A column's cost is a few KiB in every
	# tool (the LIMITS of each man page); a stage that sized its batches
	# by rows alone took 455 MiB here (csv2col), 2.4 GiB (col2parquet)
	# and 3.4 GiB (the Parquet reader), and quadratic name checks took
	# 18 s (colscan) and 64 s (coljoin).
	awk 'BEGIN { n = 100000
		for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "," : ""), "c" i
		print ""
		for (r = 1; r <= 3; r++) { for (i = 1; i <= n; i++)
			printf "%s%d", (i > 1 ? "," : ""), (i + r) % 100
		print "" } }' >w.csv
	bounded 10 200 csv2col --header -o w.col w.csv
	bounded 5 200 sh -c 'col2csv w.col >out.csv'
	cmp w.csv out.csv
	bounded 5 300 colscan -w 'c1 = 3' -o s.col w.col
	col2csv s.col | tail -n +2 >got
	sed -n 3p w.csv | cmp - got
	bounded 5 300 colsort -k c2 -o sorted.col w.col
	col2csv sorted.col | sed -n 2p | cut -d, -f1-3 >got
	echo 2,3,4 | cmp - got
	bounded 5 300 colagg --by c1 'count(*)' -o agg.col w.col
	[ "$(col2csv agg.col | wc -l)" -eq 4 ]
	bounded 10 800 coljoin --on c1=c1 --suffix _r -o j.col w.col w.col
	col2csv j.col | head -n 1 | tr , '\n' | sed -n '100001p;200000p' >got
	printf 'c1_r\nc100000_r\n' | cmp - got
	bounded 10 400 col2parquet -o w.parquet w.col
	bounded 10 400 colscan -o back.col w.parquet
	col2csv back.col | cmp - w.csv
}

@test "a wide table's frames hold fewer rows, and every row arrives" {
	need csv2col col2csv colsort col2parquet colscan
	# 20k int columns: 8 MiB of fixed-width values is 52 rows a batch,
	# so 300 rows span frames in every stage.
	awk 'BEGIN { n = 20000
		for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "," : ""), "c" i
		print ""
		for (r = 1; r <= 300; r++) { for (i = 1; i <= n; i++)
			printf "%s%d", (i > 1 ? "," : ""), (i * r) % 1000003
		print "" } }' >w.csv
	csv2col --stats --header --batch-rows 100000 -o w.col w.csv \
	    2>stats.txt
	frames=$(sed -n 's/.*300 rows, 0 rejected, \([0-9]*\) frames.*/\1/p' \
	    stats.txt)
	[ "${frames:-0}" -ge 6 ] || fail "$(tail -n 1 stats.txt)"
	col2csv w.col | cmp - w.csv
	colsort -k c1 -o s.col w.col
	col2csv s.col | tail -n +2 | sort -t, -k1,1n | cmp - <(tail -n +2 w.csv)
	col2parquet -o w.parquet w.col
	colscan -o back.col w.parquet
	col2csv back.col | cmp - w.csv
}

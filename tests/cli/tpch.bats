#!/usr/bin/env bats
# tpch.bats - the TPC-H query scripts (harness/tpch/qNN.sh) at a memory
# budget so small that their sorts, joins and aggregates spill, against
# the same query with all the memory it wants, on SF 0.1 from the
# harness' generator; and harness/tpch/Makefile's dependencies.  (Their
# answers against DuckDB's are tests/oracle/tpch_queries.sh.)
#
# At the small budget colsort, coljoin and colagg run through wrappers
# that add --stats and keep each run's report in a file of its own, so
# the test can see that every run whose data is larger than the budget
# wrote temporary files: a join whose build side has $BIG_BUILD rows or
# more, an aggregate of $BIG_GROUPS groups or more, a full sort of
# $BIG_SORT rows or more.  A join with a small build side keeps it in
# memory however long the probe side is, an aggregate with few groups
# holds them, and a sort with --limit holds only its top rows; these
# queries sort only aggregated rows, which fit.

load helpers

Q=$TOP/harness/tpch
TG=$BIN/../harness/bin/tpchgen
TABLES="region nation supplier customer part partsupp orders lineitem"
# Queries with several joins, an aggregate and a sort each.
QUERIES="03 04 05 07 09 10"
SMALL=256K
BIG_BUILD=10000
BIG_GROUPS=3000
BIG_SORT=10000

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	export LC_ALL=C
	[ -x "$TG" ] || return 0
	"$TG" -s 0.1 -o col --format col || return 1
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export LC_ALL=C
	need csv2col col2csv colscan colsort colagg coljoin
	[ -x "$TG" ] || fail "tpchgen not built: $TG is missing"
	D=$BATS_FILE_TMPDIR/col
}

# wrap: colsort, coljoin and colagg under ./wrap, each run's --stats in
# stats/TOOL.PID and its arguments in stats/TOOL.PID.args.
wrap() {
	local t
	mkdir -p wrap stats
	for t in colsort coljoin colagg; do
		printf '#!/bin/bash\necho "$*" >"%s/stats/%s.$$.args"\nexec "%s" --stats "$@" 2>"%s/stats/%s.$$"\n' \
		    "$PWD" "$t" "$BIN/$t" "$PWD" "$t" >"wrap/$t"
		chmod +x "wrap/$t"
	done
}

# spilled FILE: the run reported in FILE wrote temporary files.
spilled() {
	grep -Eq ' [1-9][0-9]* (runs|partitions)' "$1" &&
	    ! grep -q ' 0\.0 MB spilled' "$1"
}

# big FILE: the run reported in FILE had more data than $SMALL holds.
big() {
	local n
	case ${1##*/} in
	coljoin.*)
		n=$(sed -nE 's/^coljoin: [0-9]+ left rows, ([0-9]+) right rows.*/\1/p' "$1")
		[ "$n" -ge $BIG_BUILD ] ;;
	colagg.*)
		n=$(sed -nE 's/^colagg: [0-9]+ rows in, ([0-9]+) groups.*/\1/p' "$1")
		[ "$n" -ge $BIG_GROUPS ] ;;
	colsort.*)
		n=$(sed -nE 's/^colsort: ([0-9]+) rows in.*/\1/p' "$1")
		! grep -q -- --limit "$1.args" && [ "$n" -ge $BIG_SORT ] ;;
	esac
}

@test "Q3, Q4, Q5, Q7, Q9 and Q10 give the same answer at $SMALL as at 1G, spilling" {
	local n f runs spills=
	wrap
	for n in $QUERIES; do
		rm -f stats/*
		TPCH_MEMORY=1G "$Q/q$n.sh" "$D" >"big.$n" ||
		    fail "q$n.sh at 1G: status $?"
		PATH=$PWD/wrap:$PATH TPCH_MEMORY=$SMALL "$Q/q$n.sh" "$D" \
		    >"small.$n" 2>err || fail "q$n.sh at $SMALL: $(cat err)"
		[ "$(wc -l <"big.$n")" -gt 1 ] || fail "q$n: no rows"
		cmp "big.$n" "small.$n" ||
		    fail "q$n: answers differ: $(diff "big.$n" "small.$n" | head)"
		runs=0
		for f in stats/*; do
			[[ $f != *.args ]] || continue
			runs=$((runs + 1))
			grep -q "memory budget $SMALL" "$f" ||
			    fail "q$n: $f: not run at $SMALL: $(cat "$f")"
			if spilled "$f"; then
				spills="$spills q$n:${f#stats/}"
			elif big "$f"; then
				fail "q$n: ${f#stats/} $(cat "$f.args") did not" \
				    "spill: $(cat "$f")"
			fi
		done
		[[ $spills == *" q$n:"* ]] || fail "q$n: nothing spilled: $(cat stats/*)"
		[ $runs -ge 3 ] || fail "q$n: $runs runs of colsort, coljoin, colagg"
	done
	[[ $spills == *":coljoin."* ]] || fail "no join spilled:$spills"
	[[ $spills == *":colagg."* ]] || fail "no aggregate spilled:$spills"
}

@test "a script run on the CSVs gives the answer it gives on the .col files" {
	mkdir csv
	for t in $TABLES; do
		col2csv "$D/$t.col" >"csv/$t.csv"
	done
	"$Q/q03.sh" "$D" >col.out
	"$Q/q03.sh" csv >csv.out
	cmp col.out csv.out
}

@test "the Makefile converts each table once and reruns only what a changed CSV feeds" {
	# Not a sub-make of the make that runs the tests: its jobserver
	# flags would only add a warning line to the output compared.
	local mk="env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -f $Q/Makefile DATA=data COL=col OUT=out"
	mkdir data
	for t in $TABLES; do
		col2csv "$D/$t.col" >"data/$t.csv"
	done
	touch -d '2 hours ago' data/*.csv
	run $mk q05 q06
	[ "$status" -eq 0 ] || fail "make: $output"
	[ "$(ls col)" = "$(printf '%s.col\n' customer lineitem nation orders region supplier)" ] ||
	    fail "col/ holds: $(ls col)"
	"$Q/q05.sh" data | cmp - out/q05.csv
	"$Q/q06.sh" data | cmp - out/q06.csv
	run $mk q05 q06
	assert_output --partial "Nothing to be done"
	touch -d '1 hour ago' col/*
	touch data/nation.csv
	run $mk -n q05 q06
	[ "$status" -eq 0 ] || fail "make -n: $output"
	# nation.csv reconverts nation alone; Q5 reads nation, Q6 does not.
	assert_line --index 0 "csv2col -o col/nation.col data/nation.csv"
	assert_line --index 1 "$Q/q05.sh col > out/q05.csv"
	[ "${#lines[@]}" -eq 3 ] || fail "make -n: $output"
	assert_line --index 2 --partial "Nothing to be done for 'q06'"
}

@test "a query script names a missing table and the usage" {
	mkdir empty
	run --separate-stderr "$Q/q06.sh" empty
	[ "$status" -eq 2 ] || fail "status $status: $stderr"
	stderr_has "no table lineitem in empty"
	# Checked before any stage starts: the first missing table is
	# named, and nothing else is said.
	printf 'n_nationkey,n_name,n_regionkey,n_comment\n' >empty/nation.csv
	run --separate-stderr "$Q/q11.sh" empty
	[ "$status" -eq 2 ] || fail "status $status: $stderr"
	[ "$stderr" = "q11.sh: no table partsupp in empty (partsupp.col, partsupp.csv or partsupp.csv.zst)" ] ||
	    fail "stderr: $stderr"
	run --separate-stderr "$Q/q06.sh"
	[ "$status" -eq 2 ] || fail "status $status"
	stderr_has "usage: q06.sh DATADIR"
}

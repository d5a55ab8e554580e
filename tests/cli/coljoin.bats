#!/usr/bin/env bats
# coljoin.bats - coljoin as users run it: every join type in pipelines of
# csv2col and col2csv on small hand-made tables, against the rows worked
# out by hand; key types, usage errors, bad input, stdin and process
# substitution, --sorted, -o, --stats, memory, and the temporary
# directory after every kind of ending.
#
# Join output comes in no particular order (but for --sorted), so rows
# are compared sorted, as multisets.

load helpers

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	export LC_ALL=C
	# Duplicates on both sides, NULL keys on both, keys on one side only.
	printf '%s\n' 'k,lv' '1,a' '2,b' '2,c' '3,d' ',e' '5,f' >left.csv
	printf '%s\n' 'rk,rv' '2,x' '2,y' '3,z' '4,w' ',q' >right.csv
	printf '%s\n' 'rk,rv' '2,x' '3,z' >nonull.csv
	"$BIN/csv2col" left.csv >left.col || true
	"$BIN/csv2col" right.csv >right.col || true
	"$BIN/csv2col" nonull.csv >nonull.col || true
	# The same schema as right.col, no rows.
	"$BIN/colsort" --limit 0 -k rk right.col >empty.col || true
	# 200000 rows on the left; on the right, each k that is a multiple
	# of 3 twice and of 7 once more, so some rows match 0, 1, 2 or 3.
	make_big big.csv 200000
	awk 'BEGIN { print "rk,tag"
		for (i = 1; i <= 200000; i++) {
			if (i % 3 == 0) { print i ",t" i % 13; print i ",u" }
			if (i % 7 == 0) print i ",s" i % 5
		}
	}' >bigr.csv
	"$BIN/csv2col" big.csv >big.col || true
	"$BIN/csv2col" bigr.csv >bigr.col || true
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export LC_ALL=C
	local f
	for f in left.col right.col nonull.col empty.col big.csv bigr.csv \
	    big.col bigr.col; do
		ln -s "$BATS_FILE_TMPDIR/$f" "$f"
	done
	need csv2col col2csv colsort coljoin
	mkdir spill
	export TMPDIR=$BATS_TEST_TMPDIR/spill
}

# join_rows ARGS...: coljoin ARGS | col2csv, the rows without the header,
# sorted; status and stderr as run leaves them.
join_rows() {
	run --separate-stderr bash -c 'set -o pipefail; coljoin "$@" |
	    col2csv --no-header | sort' coljoin "$@"
}

# want LINE...: the output must be these rows (in any order).
want() {
	local exp
	exp=$(printf '%s\n' "$@" | sed '/^$/d' | sort)
	[ "$output" = "$exp" ] ||
		fail "rows: $(printf '%s' "$output" | tr '\n' ' ') -- want: $(printf '%s' "$exp" | tr '\n' ' ')"
}

INNER='2,b,2,x 2,b,2,y 2,c,2,x 2,c,2,y 3,d,3,z'

@test "inner join: every pair of equal keys, NULL keys never match" {
	join_rows --on k=rk left.col right.col
	status_is 0
	stderr_empty
	want $INNER
	# The header: left columns, then right ones.
	run --separate-stderr sh -c 'coljoin --on k=rk left.col right.col |
	    col2csv | head -n 1'
	assert_output "k,lv,rk,rv"
	# --type inner is the default; the build side changes nothing.
	for b in left right auto; do
		join_rows --type inner --build $b --on k=rk left.col right.col
		status_is 0
		want $INNER
	done
}

@test "left, right and full joins pad the other side with NULLs" {
	join_rows --type left --on k=rk left.col right.col
	status_is 0
	want $INNER '1,a,,' ',e,,' '5,f,,'
	join_rows --type right --on k=rk left.col right.col
	status_is 0
	want $INNER ',,4,w' ',,,q'
	join_rows --type full --on k=rk left.col right.col
	status_is 0
	want $INNER '1,a,,' ',e,,' '5,f,,' ',,4,w' ',,,q'
	# "left outer" is the same join.
	join_rows --type 'left outer' --on k=rk left.col right.col
	status_is 0
	want $INNER '1,a,,' ',e,,' '5,f,,'
	for b in left right; do
		join_rows --type full --build $b --on k=rk left.col right.col
		status_is 0
		want $INNER '1,a,,' ',e,,' '5,f,,' ',,4,w' ',,,q'
	done
}

@test "semi and anti joins: left rows only, each once" {
	join_rows --type semi --on k=rk left.col right.col
	status_is 0
	want '2,b' '2,c' '3,d'
	run --separate-stderr sh -c 'coljoin --type semi --on k=rk left.col right.col | col2csv | head -n 1'
	assert_output "k,lv"
	# NOT EXISTS: the NULL key has no match, so it stays.
	join_rows --type anti --on k=rk left.col right.col
	status_is 0
	want '1,a' ',e' '5,f'
	for b in left right; do
		join_rows --type anti --build $b --on k=rk left.col right.col
		want '1,a' ',e' '5,f'
		join_rows --type semi --build $b --on k=rk left.col right.col
		want '2,b' '2,c' '3,d'
	done
}

@test "--null-aware: anti join as NOT IN" {
	# The right side has a NULL key: NOT IN is never true.
	join_rows --type anti --null-aware --on k=rk left.col right.col
	status_is 0
	want
	# No NULL on the right: a NULL left key is unknown, so it goes.
	join_rows --type anti --null-aware --on k=rk left.col nonull.col
	status_is 0
	want '1,a' '5,f'
	# An empty right side: NOT IN () is true for every row, NULL or not.
	join_rows --type anti --null-aware --on k=rk left.col empty.col
	status_is 0
	want '1,a' '2,b' '2,c' '3,d' ',e' '5,f'
	join_rows --type anti --on k=rk left.col empty.col
	want '1,a' '2,b' '2,c' '3,d' ',e' '5,f'
	run --separate-stderr coljoin --type left --null-aware --on k=rk \
	    left.col right.col
	status_is 2
	stderr_has "--null-aware"
}

@test "empty sides give what SQL gives" {
	join_rows --on k=rk left.col empty.col
	status_is 0
	want
	join_rows --type left --on k=rk left.col empty.col
	want '1,a,,' '2,b,,' '2,c,,' '3,d,,' ',e,,' '5,f,,'
	join_rows --type right --on k=rk left.col empty.col
	want
	run --separate-stderr sh -c 'coljoin --on k=rk left.col empty.col | col2csv'
	status_is 0
	assert_output "k,lv,rk,rv"
}

@test "--suffix renames clashing right columns; --drop-right-keys drops keys" {
	join_rows --on k --suffix _r left.col left.col
	status_is 0
	want '1,a,1,a' '2,b,2,b' '2,b,2,c' '2,c,2,b' '2,c,2,c' '3,d,3,d' '5,f,5,f'
	run --separate-stderr sh -c 'coljoin --on k --suffix _r left.col left.col | col2csv | head -n 1'
	assert_output "k,lv,k_r,lv_r"
	run --separate-stderr sh -c 'coljoin --on k=rk --drop-right-keys left.col right.col | col2csv | head -n 1'
	assert_output "k,lv,rv"
	join_rows --on k=rk --drop-right-keys left.col right.col
	want '2,b,x' '2,b,y' '2,c,x' '2,c,y' '3,d,z'
	run --separate-stderr sh -c 'coljoin --on k --drop-right-keys --suffix _2 left.col left.col | col2csv | head -n 1'
	assert_output "k,lv,lv_2"
}

@test "two keys: a pair of columns must match on both" {
	printf '%s\n' 'a,b,v' '1,1,p' '1,2,q' '2,1,r' ',1,s' >two_l.csv
	printf '%s\n' 'x,y,w' '1,1,P' '1,2,Q' '1,2,Q2' '2,2,R' '1,,S' >two_r.csv
	csv2col two_l.csv >two_l.col
	csv2col two_r.csv >two_r.col
	join_rows --on a=x,b=y two_l.col two_r.col
	status_is 0
	want '1,1,p,1,1,P' '1,2,q,1,2,Q' '1,2,q,1,2,Q2'
	join_rows --type anti --on a=x,b=y two_l.col two_r.col
	want '2,1,r' ',1,s'
}

@test "keys of compatible types join as SQL would" {
	printf '%s\n' 'id,v' '1,a' '2,b' '3,c' >l.csv
	printf '%s\n' 'id,w' '2,x' '3,y' '4,z' >r.csv
	csv2col -s 'id:int32' l.csv >l32.col
	csv2col -s 'id:int64' r.csv >r64.col
	join_rows --on id --suffix _r l32.col r64.col
	status_is 0
	want '2,b,2,x' '3,c,3,y'
	join_rows --on id --suffix _r r64.col l32.col
	status_is 0
	want '2,x,2,b' '3,y,3,c'
	# Decimals of different scales compare by value.
	printf '%s\n' 'p,v' '1.5,a' '2.25,b' '-0.1,c' >dl.csv
	printf '%s\n' 'q,w' '1.500,x' '2.250,y' '-0.100,z' '2.251,n' >dr.csv
	csv2col -s 'p:decimal(10,2)' dl.csv >dl.col
	csv2col -s 'q:decimal(12,3)' dr.csv >dr.col
	join_rows --on p=q dl.col dr.col
	status_is 0
	want '1.50,a,1.500,x' '2.25,b,2.250,y' '-0.10,c,-0.100,z'
	# Dates with dates.
	printf '%s\n' 'd,v' '1996-03-13,a' '2000-02-29,b' >tl.csv
	printf '%s\n' 'e,w' '2000-02-29,x' '1996-03-14,y' >tr.csv
	csv2col tl.csv >tl.col
	csv2col tr.csv >tr.col
	join_rows --on d=e tl.col tr.col
	status_is 0
	want '2000-02-29,b,2000-02-29,x'
}

@test "decimal(19..38) keys join by value, with narrow decimals too" {
	# 12345678901234567890.5 needs 21 digits: a 128-bit decimal.
	printf '%s\n' 'p,v' '12345678901234567890.50,a' '1.5,b' '-7,c' \
	    ',d' '99999999999999999999.99,e' >wl.csv
	printf '%s\n' 'q,w' '1.500,x' '-7.000,y' '1.501,n' ',m' >nr.csv
	printf '%s\n' 'q,w' '12345678901234567890.5,x' \
	    '12345678901234567890.6,n' '-7,y' >wr.csv
	csv2col -s 'p:decimal(22,2)' wl.csv >wl.col
	csv2col -s 'q:decimal(10,3)' nr.csv >nr.col
	csv2col -s 'q:decimal(25,1)' wr.csv >wr.col
	join_rows --on p=q wl.col nr.col
	status_is 0
	want '1.50,b,1.500,x' '-7.00,c,-7.000,y'
	join_rows --on p=q wl.col wr.col
	status_is 0
	want '12345678901234567890.50,a,12345678901234567890.5,x' \
	    '-7.00,c,-7.0,y'
	join_rows --type anti --on p=q wl.col wr.col
	status_is 0
	want '1.50,b' ',d' '99999999999999999999.99,e'
	# The merge join gives the same rows.
	colsort -k p wl.col >wls.col
	colsort -k q wr.col >wrs.col
	join_rows --sorted --type full --on p=q wls.col wrs.col
	status_is 0
	want '12345678901234567890.50,a,12345678901234567890.5,x' \
	    '-7.00,c,-7.0,y' '1.50,b,,' ',d,,' '99999999999999999999.99,e,,' \
	    ',,12345678901234567890.6,n'
	# Past 38 digits there is no common type.
	printf '%s\n' 'q' '1' | csv2col -s 'q:decimal(38,0)' >w38.col
	run --separate-stderr coljoin --on p=q wl.col w38.col
	status_is 2
	stderr_has "need 40 digits"
}

@test "usage errors: exit 2 before any row is read, saying what is wrong" {
	run --separate-stderr coljoin --on nosuch=rk left.col right.col
	status_is 2
	assert_output ""
	stderr_has "coljoin: the left input has no column 'nosuch' (it has: k, lv)"
	run --separate-stderr coljoin --on k=nosuch left.col right.col
	status_is 2
	stderr_has "the right input has no column 'nosuch' (it has: rk, rv)"
	# A string key with an integer key: both columns and types named.
	run --separate-stderr coljoin --on k=rv left.col right.col
	status_is 2
	stderr_has "left k"
	stderr_has "right rv"
	stderr_has "int64"
	stderr_has "string"
	# A name on both sides.
	run --separate-stderr coljoin --on k left.col left.col
	status_is 2
	stderr_has "'k'"
	stderr_has "--suffix"
	run --separate-stderr coljoin --type sideways --on k=rk left.col right.col
	status_is 2
	stderr_has "sideways"
	run --separate-stderr coljoin --build middle --on k=rk left.col right.col
	status_is 2
	stderr_has "--build"
	run --separate-stderr coljoin left.col right.col
	status_is 2
	stderr_has "--on"
	run --separate-stderr coljoin --on k=rk left.col
	status_is 2
	stderr_has "two inputs"
	run --separate-stderr coljoin --on k=rk left.col right.col right.col
	status_is 2
	stderr_has "two inputs"
	run --separate-stderr coljoin --on k=rk - - <left.col
	status_is 2
	stderr_has "both be '-'"
	run --separate-stderr coljoin --on 'k=' left.col right.col
	status_is 2
	stderr_has "bad join key"
	run --separate-stderr coljoin --on k=rk -m 100K left.col right.col
	status_is 2
	stderr_has "at least 256K"
	run --separate-stderr coljoin --sorted --build left --on k=rk left.col right.col
	status_is 2
	# The plan is checked before the output is touched.
	echo old >out.col
	run --separate-stderr coljoin --on nosuch=rk -o out.col left.col right.col
	status_is 2
	[ "$(cat out.col)" = old ] || fail "-o out.col changed by a usage error"
	spill_empty
}

@test "'-' and process substitution as either input" {
	join_rows --type left --on k=rk - right.col <left.col
	status_is 0
	want $INNER '1,a,,' ',e,,' '5,f,,'
	join_rows --type left --on k=rk left.col - <right.col
	status_is 0
	want $INNER '1,a,,' ',e,,' '5,f,,'
	run --separate-stderr bash -c 'coljoin --type right --on k=rk \
	    <(csv2col '"$BATS_FILE_TMPDIR"'/left.csv) \
	    <(csv2col '"$BATS_FILE_TMPDIR"'/right.csv) | col2csv --no-header | sort'
	status_is 0
	want $INNER ',,4,w' ',,,q'
	# --build auto with a pipe: the right side, and the same rows.
	join_rows --build auto --type full --on k=rk left.col - <right.col
	status_is 0
	want $INNER '1,a,,' ',e,,' '5,f,,' ',,4,w' ',,,q'
}

@test "a truncated input: exit 3, and the output is left truncated too" {
	head -c 200000 big.col >cut.col
	run --separate-stderr sh -c 'coljoin --on k=rk cut.col bigr.col > out.col'
	status_is 3
	stderr_has "truncated"
	run --separate-stderr col2csv out.col
	status_is 3
	run --separate-stderr sh -c 'coljoin --on k --suffix _r big.col cut.col > out.col'
	status_is 3
	head -c 20000 bigr.col >cutr.col
	run --separate-stderr sh -c 'coljoin -m 256K --on k=rk big.col cutr.col > out.col'
	status_is 3
	stderr_has "truncated"
	run --separate-stderr coljoin --on k=rk -o out2.col cut.col bigr.col
	status_is 3
	[ ! -e out2.col ]
	run --separate-stderr sh -c 'echo not a stream | coljoin --on k=rk - bigr.col'
	status_is 3
	spill_empty
}

# The inner join of big.csv with bigr.csv, as join(1) sees it, as
# k,amount,day,label,rk,tag rows, sorted.
big_inner() {
	tail -n +2 bigr.csv | sort -t, -k1,1 >r.sorted
	tail -n +2 big.csv | sort -t, -k1,1 >l.sorted
	join -t, -j 1 -o 1.1,1.2,1.3,1.4,2.1,2.2 l.sorted r.sorted | sort
}

@test "many batches: the same rows at every budget, spilled or not" {
	big_inner >want.csv
	[ "$(wc -l <want.csv)" -gt 90000 ] || fail "few rows: $(wc -l <want.csv)"
	for m in 256K 1M 8M 1G; do
		run --separate-stderr bash -c "set -o pipefail; coljoin -m $m \
		    --on k=rk big.col bigr.col | col2csv --no-header | sort"
		status_is 0
		stderr_empty
		printf '%s\n' "$output" | cmp -s - want.csv ||
			fail "budget $m: output differs from join(1)"
	done
	# From CSV to CSV, building on the left (the bigger side).
	run --separate-stderr bash -c "set -o pipefail; csv2col big.csv |
	    coljoin -m 1M --build left --on k=rk - bigr.col |
	    col2csv --no-header | sort"
	status_is 0
	printf '%s\n' "$output" | cmp -s - want.csv ||
		fail "--build left from a pipe: output differs"
	# Rows of big.csv with no match, and their count.
	run --separate-stderr bash -c "coljoin -m 1M --type anti --on k=rk \
	    big.col bigr.col | col2csv --no-header | wc -l"
	status_is 0
	assert_output "$((200000 - $(cut -d, -f1 want.csv | sort -u | wc -l)))"
	spill_empty
}

@test "threads, spill options, -z and --progress change no row" {
	mkdir d1 d2
	coljoin -m 1M --on k=rk big.col bigr.col | col2csv --no-header |
	    sort >plain
	for opts in "-j 1" "-j 2" "-j 64" "-T d1 -T d2 --compress-spill" \
	    "-z" "-z3 --batch-rows 100" "--progress" "--build left"; do
		run --separate-stderr bash -c "set -o pipefail; coljoin -m 1M \
		    $opts --on k=rk big.col bigr.col | col2csv --no-header |
		    sort"
		status_is 0
		# --progress draws only on a terminal.
		stderr_empty
		printf '%s\n' "$output" | cmp -s - plain || fail "$opts differs"
	done
	[ -z "$(ls -A d1)$(ls -A d2)" ] || fail "left in -T dirs"
	run --separate-stderr coljoin -j 0 --on k=rk big.col bigr.col
	status_is 2
	spill_empty
}

@test "--select: these output columns in this order; --count: the rows" {
	join_rows --on k=rk -s rv,k left.col right.col
	status_is 0
	want 'x,2' 'y,2' 'x,2' 'y,2' 'z,3'
	run --separate-stderr sh -c 'coljoin --on k=rk --select rv,lv \
	    left.col right.col | col2csv | head -n 1'
	assert_output "rv,lv"
	# Output names: after --suffix.
	join_rows --on k --suffix _r -s lv_r,lv --type left left.col left.col
	status_is 0
	want 'a,a' 'b,b' 'c,b' 'b,c' 'c,c' 'd,d' ',e' 'f,f'
	# --count gives the rows the join gives, for every type.
	for t in inner left right full semi anti; do
		run --separate-stderr bash -c "set -o pipefail; coljoin \
		    --type $t --on k=rk left.col right.col |
		    col2csv --no-header | wc -l"
		status_is 0
		n=$output
		run --separate-stderr coljoin --count --type $t --on k=rk \
		    left.col right.col
		status_is 0
		stderr_empty
		assert_output "$n"
	done
	big_inner >want.csv
	for m in 256K 1G; do
		run --separate-stderr coljoin -m $m --count --on k=rk big.col \
		    bigr.col
		status_is 0
		assert_output "$(wc -l <want.csv)"
		run --separate-stderr bash -c "set -o pipefail; coljoin -m $m \
		    -s tag,k --on k=rk big.col bigr.col |
		    col2csv --no-header | sort"
		status_is 0
		printf '%s\n' "$output" | cmp -s - <(awk -F, \
		    '{ print $6 "," $1 }' want.csv | sort) ||
			fail "-s at $m differs from join(1)"
	done
	# From a pipe, and merging sorted inputs.
	run --separate-stderr bash -c "csv2col big.csv | coljoin --count \
	    --on k=rk - bigr.col"
	status_is 0
	assert_output "$(wc -l <want.csv)"
	colsort -k k big.col >bs.col
	colsort -k rk bigr.col >brs.col
	run --separate-stderr coljoin --sorted --count --on k=rk bs.col brs.col
	status_is 0
	assert_output "$(wc -l <want.csv)"
	# -o takes the count as text, atomically.
	run --separate-stderr coljoin --count -o n.txt --on k=rk left.col \
	    right.col
	status_is 0
	[ "$(cat n.txt)" = 5 ] || fail "n.txt: $(cat n.txt)"
	spill_empty
}

@test "--select and --count: usage errors, exit 2" {
	run --separate-stderr coljoin --on k=rk -s rv,nope left.col right.col
	status_is 2
	[[ $stderr == *"the join's output has no column 'nope'"* ]] ||
		fail "$stderr"
	run --separate-stderr coljoin --on k=rk -s rvv left.col right.col
	status_is 2
	[[ $stderr == *"did you mean 'rv'?"* ]] || fail "$stderr"
	run --separate-stderr coljoin --on k=rk -s k,k left.col right.col
	status_is 2
	[[ $stderr == *"column 'k' is in the output list twice"* ]] ||
		fail "$stderr"
	run --separate-stderr coljoin --on k=rk -s k, left.col right.col
	status_is 2
	[[ $stderr == *"empty column name"* ]] || fail "$stderr"
	run --separate-stderr coljoin --on k=rk --type semi -s rv left.col \
	    right.col
	status_is 2
	[[ $stderr == *"no column 'rv'"* ]] || fail "$stderr"
	run --separate-stderr coljoin --on k=rk --count -s k left.col right.col
	status_is 2
	[[ $stderr == *"--select makes no sense with it"* ]] || fail "$stderr"
	run --separate-stderr coljoin --on k=rk --count -z left.col right.col
	status_is 2
	run --separate-stderr coljoin --on k=rk -s k -s rv left.col right.col
	status_is 2
	[[ $stderr == *"--select given twice"* ]] || fail "$stderr"
}

@test "--sorted: a merge join of sorted inputs, the same rows" {
	colsort -k k big.col >bs.col
	colsort -k rk bigr.col >brs.col
	for t in inner left right full semi anti; do
		run --separate-stderr bash -c "set -o pipefail; coljoin \
		    --type $t -m 1M --on k=rk big.col bigr.col |
		    col2csv --no-header | sort"
		status_is 0
		hash=$output
		run --separate-stderr bash -c "set -o pipefail; coljoin \
		    --type $t --sorted -m 1M --on k=rk bs.col brs.col |
		    col2csv --no-header | sort"
		status_is 0
		[ "$output" = "$hash" ] || fail "--sorted --type $t differs"
	done
	# In key order (NULLs last).
	colsort -k k left.col >ls.col
	colsort -k rk right.col >rs.col
	run --separate-stderr bash -c "coljoin --sorted --type full \
	    --on k=rk ls.col rs.col | col2csv --no-header | cut -d, -f1,3 |
	    tr '\n' ' '"
	status_is 0
	[[ $output == "1, 2,2 2,2 2,2 2,2 3,3 ,4 5, "* ]] ||
		fail "not in key order: $output"
}

@test "--sorted with input out of order: exit 3 naming the row" {
	# big.col and bigr.col come in key order; descending they do not.
	colsort -k rk bigr.col >brs.col
	colsort -k k:desc big.col >bdesc.col
	colsort -k rk:desc bigr.col >brdesc.col
	# left.col has 5 after its NULL key, which sorts last.
	run --separate-stderr sh -c 'coljoin --sorted --on k=rk left.col right.col > out.col'
	status_is 3
	stderr_matches "row [0-9]+"
	run --separate-stderr col2csv out.col
	status_is 3
	# Out of order on the right side only.
	run --separate-stderr sh -c 'coljoin --sorted --on k=rk big.col brdesc.col > /dev/null'
	status_is 3
	stderr_has "right"
	stderr_matches "row [0-9]+"
	run --separate-stderr coljoin --sorted --on k=rk -o out2.col bdesc.col brs.col
	status_is 3
	stderr_has "left"
	[ ! -e out2.col ]
	# In order, both: fine.
	run --separate-stderr sh -c 'coljoin --sorted --on k=rk big.col brs.col > /dev/null'
	status_is 0
}

@test "-o writes atomically, and only on success" {
	echo old >out.col
	run --separate-stderr coljoin --on k=rk -o out.col left.col right.col
	status_is 0
	assert_output ""
	col2csv --no-header out.col | sort >got
	printf '%s\n' $INNER | sort | cmp - got
	echo old >out.col
	head -c 200000 big.col >cut.col
	run --separate-stderr coljoin --on k=rk -o out.col cut.col bigr.col
	status_is 3
	[ "$(cat out.col)" = old ] || fail "a failed run replaced out.col"
	# Its own input is refused as the output.
	run --separate-stderr coljoin --on k=rk -o right.col left.col right.col
	status_is 2
	spill_empty
}

@test "--stats: rows of each side, output rows, partitions, spill, memory" {
	run --separate-stderr sh -c 'coljoin --stats -m 512K --on k=rk big.col bigr.col > /dev/null'
	status_is 0
	stderr_matches "200000 left rows, $(($(wc -l <bigr.csv) - 1)) right rows, [0-9]+ rows out"
	stderr_matches "[0-9]+ partitions, [0-9]+ levels, [0-9]+ chunked, [0-9]+ kept, [0-9.]+ MB spilled"
	stderr_matches "memory budget 512K, peak charged [0-9.]+ MB, peak resident [0-9.]+ MB"
	[[ $stderr != *" 0 partitions"* ]] || fail "-m 512K did not partition: $stderr"
	run --separate-stderr sh -c 'coljoin --stats --on k=rk left.col right.col > /dev/null'
	status_is 0
	stderr_matches "6 left rows, 5 right rows, 5 rows out"
	stderr_has "0 partitions, 0 levels, 0 chunked, 0 kept, 0.0 MB spilled"
}

@test "semi and anti joins hold only the right side's keys" {
	# 20000 right rows of a key and 200 bytes of padding (4 MB on disk,
	# 0.2 MB of keys): at -m 2M the keys fit, so nothing is spilled,
	# from a file (its size scaled to the keys) and from a pipe alike.
	awk 'BEGIN { print "rk,pad"; for (i = 0; i < 20000; i++)
	    printf "%d,%0200d\n", i, i }' | csv2col >wide.col
	awk 'BEGIN { print "k,v"; for (i = 0; i < 50000; i++)
	    print (i * 7) % 40000 "," i }' | csv2col >l.col
	for t in semi anti; do
		join_rows -m 64M --type $t --on k=rk l.col wide.col
		status_is 0
		local want_rows=$output
		[ "$(printf '%s\n' "$output" | wc -l)" -gt 20000 ] ||
			fail "$t: too few rows"
		for src in wide.col '<(cat wide.col)'; do
			run --separate-stderr bash -c "set -o pipefail
			    coljoin --stats -m 2M --type $t --on k=rk l.col \
			    $src | col2csv --no-header | sort"
			status_is 0
			[ "$output" = "$want_rows" ] || fail "$t from $src: rows differ"
			stderr_has " 0 partitions"
		done
	done
	spill_empty
}

@test "--build auto on pipes hashes the input that ends first" {
	# A few rows on the right of a pipe, many on the left, and back.
	printf '%s\n' 'rk,tag' '3,a' '3,b' '10,c' '199999,d' 'nosuch,e' |
	    sed '/nosuch/d' | csv2col >few.col
	run --separate-stderr bash -c 'set -o pipefail
	    coljoin --stats --type semi --build auto --on k=rk \
	    <(cat big.col) <(cat few.col) | col2csv --no-header | sort'
	status_is 0
	assert_output "$(printf '%s\n' '10,10.10,1980-11-11,label 10' \
	    '199999,99999.99,1989-08-24,label 691' '3,3.03,1973-04-04,label 3' | sort)"
	stderr_has "4 right rows"
	stderr_has "right hashed"
	# The small side on the left: the left is hashed, same rows.
	for t in semi anti inner; do
		run --separate-stderr bash -c 'set -o pipefail
		    coljoin --stats --type '$t' --build auto --on rk=k \
		    <(cat few.col) - <big.col | col2csv --no-header | sort'
		status_is 0
		stderr_has "left hashed"
		local got=$output
		run bash -c 'coljoin --type '$t' --on rk=k few.col big.col |
		    col2csv --no-header | sort'
		[ "$got" = "$output" ] || fail "$t: auto gave other rows"
	done
	# Neither side ends within an eighth of -m 1M: the right is hashed,
	# and the rows are the same as from files.
	run --separate-stderr bash -c 'set -o pipefail
	    coljoin --stats -m 1M --build auto --on k=rk <(cat big.col) \
	    <(cat bigr.col) | col2csv --no-header | sort | cksum'
	status_is 0
	stderr_has "right hashed"
	local got=$output
	run bash -c 'coljoin --build left --on k=rk big.col bigr.col |
	    col2csv --no-header | sort | cksum'
	[ "$got" = "$output" ] || fail "auto at 1M gave other rows"
	spill_empty
}

@test "--max-spill: exit 4 with a message, nothing left behind" {
	run --separate-stderr sh -c 'coljoin -m 256K --max-spill 256K --on k=rk big.col bigr.col > /dev/null'
	status_is 4
	stderr_has "--max-spill"
	spill_empty
}

@test "a row wider than a quarter of the budget is exit 4 naming the budget that joins it" {
	# Row 17 of wide.col is 3 MiB; keys 0, 1, 2.
	awk 'BEGIN { print "k,s"; for (i = 0; i < 20; i++) {
		printf "%d,", i % 3
		if (i == 16) { for (j = 0; j < 3 * 1048576 / 16; j++)
			printf "abcdefghijklmnop" } else printf "0123456789"
		print "" } }' >wide.csv
	csv2col wide.csv >wide.col
	printf 'rk,rv\n0,a\n1,b\n2,c\n' | csv2col >r.col
	# Held as the build side (charged 6.3 MB under 256K, partitioned),
	# and as the probe side (3.2 MB, its output).
	budget_refused coljoin "row 17 of the right input is 3145740 bytes, more than a quarter of the memory budget \(262144 bytes\) can join: give -m 14M or more" \
	    256K --on rk=k r.col wide.col
	budget_refused coljoin "row 17 of the left input is 3145740 bytes, more than a quarter of the memory budget \(4194304 bytes\) can join: give -m 14M or more" \
	    4M --on k=rk wide.col r.col
	# From a pipe too, counted over the stream.
	run --separate-stderr sh -c 'cat wide.col | coljoin -m 1M --on rk=k r.col - >/dev/null'
	status_is 4
	stderr_has "row 17 of the right input is 3145740 bytes"
	# With --max-spill the budget is to blame, not the cap.
	run --separate-stderr coljoin -m 256K --max-spill 1G --on rk=k r.col wide.col
	status_is 4
	[[ $stderr != *max-spill* ]] || fail "blames --max-spill: $stderr"
}

@test "wide rows: output batches kept to their share of the budget" {
	# Rows of 250000 bytes, a quarter of 1M less a little, every key
	# with eight of them: a self join's pairs are 500 KB each.  The
	# output batches held up to 64 pairs (20 MB charged); now a batch
	# holds what fits its share, a pair at least.
	awk 'BEGIN { print "k,s"; for (i = 0; i < 40; i++) {
		printf "%d,", i % 5; w = i % 7 == 3 ? 250000 : 20
		for (j = 0; j < w; j++) printf "x"; print "" } }' >q.csv
	csv2col q.csv >q.col
	join_rows -m 1M --stats --on k=k --drop-right-keys --suffix _r q.col q.col
	status_is 0
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 320 ] || fail "rows"
	[[ $stderr =~ peak\ charged\ ([0-9]+)\.[0-9]\ MB ]] || fail "$stderr"
	[ "${BASH_REMATCH[1]}" -lt 3 ] || fail "peak: $stderr"
	spill_empty
}

@test "flags for a key joined in chunks: exit 4 past the budget, named" {
	# 270000 left rows of key 1 (and 30000 others) semi and anti
	# joined with 60000 right rows of key 1: the right side's key is
	# joined in chunks, a flag for each left row of its partition.
	awk 'BEGIN { print "bk,bv"; for (i = 0; i < 300000; i++)
		printf "%d,%d\n", i % 10 ? 1 : i, i }' >skew.csv
	awk 'BEGIN { print "rk,rv"; for (i = 0; i < 60000; i++)
		printf "1,%d\n", i }' >r1.csv
	csv2col skew.csv >skew.col
	csv2col r1.csv >r1.col
	budget_refused coljoin "a partition joined in chunks needs a flag for each of its [0-9]+ left rows, more than the memory budget \(262144 bytes\) has room for: give -m [0-9]+M or more" \
	    256K --type semi --on bk=rk skew.col r1.col
	budget_refused coljoin "a partition joined in chunks needs a flag for each of its [0-9]+ left rows, more than the memory budget \(262144 bytes\) has room for: give -m [0-9]+M or more" \
	    256K --type anti --on bk=rk skew.col r1.col
}

@test "a full temporary directory: exit 5 naming it" {
	mkdir small
	if ! mount -t tmpfs -o size=512k tmpfs small 2>/dev/null; then
		skip "cannot mount a small tmpfs here"
	fi
	run --separate-stderr sh -c "coljoin -m 256K -T $PWD/small --on k=rk big.col bigr.col > /dev/null"
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
	for m in 1 4 16; do
		/usr/bin/time -o rss -f %M coljoin -m ${m}M --on k=rk \
		    big.col bigr.col >/dev/null
		/usr/bin/time -o rss2 -f %M bash -c "cat bigr.col |
		    coljoin -m ${m}M --on k=rk big.col - >/dev/null"
		/usr/bin/time -o rss3 -f %M coljoin -m ${m}M --build left \
		    --type full --on k=rk big.col bigr.col >/dev/null
		# A semi join reads only the right side's keys.
		/usr/bin/time -o rss4 -f %M coljoin -m ${m}M --type semi \
		    --on k=rk big.col bigr.col >/dev/null
		# The constant of coljoin(1): about 8 MiB plus twice an input
		# frame of each side; these frames are under 0.3 MiB.
		for kb in $(cat rss) $(cat rss2) $(cat rss3) $(cat rss4); do
			[ "$kb" -le $((m * 1024 + 10 * 1024)) ] ||
				fail "-m ${m}M: peak RSS $kb KiB"
		done
	done
}

@test "the temporary directory is empty after success, error and every signal" {
	coljoin -m 512K --on k=rk big.col bigr.col >/dev/null
	spill_empty
	coljoin -m 512K --on k=rk big.col bigr.col | head -c 1000 >/dev/null
	spill_empty
	head -c 300000 big.col >cut.col
	coljoin -m 512K --on k=rk bigr.col cut.col >/dev/null 2>&1 || true
	spill_empty
	# Hold coljoin mid-input after it has spilled: the probe side is
	# all of big.col but its trailer, then a pause; the build side,
	# read first, is partitioned to spill files.
	size=$(filesize big.col)
	head -c $((size - 56)) big.col >body.col
	for sig in INT TERM KILL PIPE; do
		mkfifo in.fifo
		coljoin -m 256K --on k=rk in.fifo bigr.col >/dev/null 2>err &
		pid=$!
		{ cat body.col; sleep 30; } >in.fifo &
		feeder=$!
		n=0
		until ls -l /proc/$pid/fd 2>/dev/null | grep -q "$TMPDIR"; do
			n=$((n + 1))
			[ $n -lt 200 ] || fail "$sig: coljoin never spilled"
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

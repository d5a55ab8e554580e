#!/usr/bin/env bats
# colagg.bats - colagg as users run it: pipelines of csv2col, colscan,
# colagg, colsort and col2csv, from files, '-', process substitution and
# Parquet, against aggregates worked out independently by awk over the
# same CSV; every function over every type with NULLs, NULL keys, empty
# input, one group and a group per row, --having, expressions, output
# names, --where, a budget sweep that spills, -T, --max-spill, -o, and
# the errors.
#
# Groups come out in no particular order, so rows are compared sorted
# (or after colsort).  Floats (avg, var_*, stddev_*, sums of floats) are
# compared with a relative tolerance of 1e-9, everything else as text.

load helpers

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	export LC_ALL=C
	# Every type (string key, int, decimal, float, date, string, bool),
	# NULLs in every column, a NULL key, a group whose every value is
	# NULL, no commas or quotes in a field.
	printf '%s\n' 'g,i,d,f,day,s,b' \
	    'a,3,1.50,2.5e0,2024-01-05,pear,true' \
	    'b,-7,-0.25,-1.0e0,1999-12-31,apple,false' \
	    'a,,2.75,,2024-02-29,,' \
	    ',10,0.10,4.0e0,,fig,true' \
	    'b,7,,0.5e0,1970-01-01,kiwi,true' \
	    'a,5,-3.00,1.0e1,2023-07-04,banana,false' \
	    ',,,,,,' \
	    'c,,,,,,' \
	    'b,100,12.34,-2.25e0,2001-09-09,zucchini,' \
	    'a,-4,0.01,3.0e-1,2024-01-05,pear,true' >t.csv
	"$BIN/csv2col" t.csv >t.col || true
	"$BIN/colsort" --limit 0 -k g t.col >empty.col || true
	# 300000 rows: amount has 100000 values (3 rows each), k one a row.
	make_big big.csv 300000
	"$BIN/csv2col" big.csv >big.col || true
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export LC_ALL=C
	local f
	for f in t.csv t.col empty.col big.csv big.col; do
		ln -s "$BATS_FILE_TMPDIR/$f" "$f"
	done
	need csv2col col2csv colsort colscan colagg col2parquet
	mkdir spill
	export TMPDIR=$BATS_TEST_TMPDIR/spill
}

# Every aggregate over every column of t.col; the float fields of its
# output (1-based) are FLOATS, KFLOATS with one key in front.
ALL="count(*), count(i), sum(i), min(i), max(i), avg(i), var_samp(i), \
var_pop(i), stddev_samp(i), stddev_pop(i), \
count(d), sum(d), min(d), max(d), avg(d), var_samp(d), var_pop(d), \
stddev(d), stddev_pop(d), \
count(f), sum(f), min(f), max(f), avg(f), var_samp(f), var_pop(f), \
stddev_samp(f), stddev_pop(f), \
count(day), min(day), max(day), any_value(day), \
count(s), min(s), max(s), any_value(s), \
count(b), bool_and(b), bool_or(b), any_value(b), \
any_value(i), any_value(d), any_value(f)"
FLOATS="6-10,15-19,21-28,43"
KFLOATS="7-11,16-20,22-29,44"

# ref_all CSV [KEYFIELD]: what $ALL gives over CSV (t.csv's columns),
# grouped by field KEYFIELD (none: one group), one row per group, the
# key first; an empty field is NULL.  Integers and decimals (as
# hundredths) are summed exactly; floats as doubles.
ref_all() {
	awk -F, -v key="${2:-0}" '
	function r100(v) { return v < 0 ? -int(-v * 100 + 0.5) : int(v * 100 + 0.5) }
	function cents(a,  s) {
		s = a < 0 ? "-" : ""
		if (a < 0) a = -a
		return sprintf("%s%d.%02d", s, int(a / 100), a % 100)
	}
	function g17(v) { return sprintf("%.17g", v) }
	# The numeric aggregates of field c of group g; dec: a decimal.
	function nums(g, c, dec,  n, m, vp, o) {
		n = cnt[g, c] + 0
		o = "," n
		if (n == 0)
			return o ",,,,,,,,"
		o = o "," (dec ? cents(isum[g, c]) : c == 4 ? g17(sum[g, c]) : sprintf("%d", sum[g, c]))
		o = o "," mnt[g, c] "," mxt[g, c]
		m = sum[g, c] / n
		if (dec) m = isum[g, c] / 100 / n
		o = o "," g17(m)
		vp = sq[g, c] / n - m * m
		if (vp < 0) vp = 0
		o = o "," (n > 1 ? g17(vp * n / (n - 1)) : "") "," g17(vp)
		o = o "," (n > 1 ? g17(sqrt(vp * n / (n - 1))) : "") "," g17(sqrt(vp))
		return o
	}
	function strs(g, c,  n) {
		n = cnt[g, c] + 0
		if (n == 0)
			return "," n ",,,"
		return "," n "," mnt[g, c] "," mxt[g, c] "," first[g, c]
	}
	NR == 1 { next }
	{
		g = key ? $key : ""
		seen[g] = 1
		rows[g]++
		for (c = 2; c <= 7; c++) {
			if ($c == "")
				continue
			cnt[g, c]++
			if (!((g, c) in first))
				first[g, c] = $c
			if (c <= 4) {
				v = $c + 0
				sum[g, c] += v
				sq[g, c] += v * v
				if (c == 3) isum[g, c] += r100(v)
				t = c == 4 ? g17(v) : $c
				if (cnt[g, c] == 1 || v < mn[g, c]) { mn[g, c] = v; mnt[g, c] = t }
				if (cnt[g, c] == 1 || v > mx[g, c]) { mx[g, c] = v; mxt[g, c] = t }
			} else if (c <= 6) {
				t = $c ""
				if (cnt[g, c] == 1 || t < mnt[g, c]) mnt[g, c] = t
				if (cnt[g, c] == 1 || t > mxt[g, c]) mxt[g, c] = t
			} else {
				if (cnt[g, c] == 1) { ba[g] = 1; bo[g] = 0 }
				if ($c == "false") ba[g] = 0
				if ($c == "true") bo[g] = 1
			}
		}
	}
	END {
		if (!key && !("" in seen)) { seen[""] = 1; rows[""] = 0 }
		for (g in seen) {
			o = (key ? g "," : "") rows[g]
			o = o nums(g, 2, 0) nums(g, 3, 1) nums(g, 4, 0)
			o = o strs(g, 5) strs(g, 6)
			if (cnt[g, 7] + 0 == 0)
				o = o ",0,,,"
			else
				o = o "," cnt[g, 7] "," (ba[g] ? "true" : "false") "," (bo[g] ? "true" : "false") "," first[g, 7]
			o = o "," first[g, 2] "," first[g, 3] "," ((g, 4) in first ? g17(first[g, 4]) : "")
			print o
		}
	}' "$1"
}

# rows_match WANT GOT FLOATFIELDS: the two files hold the same rows in
# the same order, field by field: as text, but for the fields listed
# ("3,7-9"), numbers within a relative 1e-9 of each other.
rows_match() {
	awk -F, -v fl="$3" '
	function close_to(a, b,  d, m) {
		a += 0; b += 0
		d = a - b; if (d < 0) d = -d
		m = a < 0 ? -a : a; if (b > m) m = b; if (-b > m) m = -b
		return d <= 1e-9 * m || d < 1e-12
	}
	BEGIN {
		n = split(fl, a, ",")
		for (i = 1; i <= n; i++)
			if (split(a[i], r, "-") == 2)
				for (j = r[1]; j <= r[2]; j++) isf[j] = 1
			else if (a[i] != "")
				isf[a[i]] = 1
		while ((getline l < ARGV[1]) > 0)
			want[++nw] = l
		ARGV[1] = ""
	}
	{
		ng++
		if (ng > nw) { print "extra row " ng ": " $0; bad = 1; next }
		nf = split(want[ng], w, ",")
		if (nf != NF) { print "row " ng ": got " $0 "; want " want[ng]; bad = 1; next }
		for (i = 1; i <= NF; i++) {
			if (($i "") == (w[i] ""))
				continue
			if (isf[i] && $i != "" && w[i] != "" && close_to($i, w[i]))
				continue
			print "row " ng " field " i ": got \"" $i "\", want \"" w[i] "\" (" $0 ")"
			bad = 1
		}
	}
	END {
		if (ng < nw) { print "missing rows: got " ng ", want " nw; bad = 1 }
		exit bad
	}' "$1" "$2" >mismatch || fail "rows differ: $(head -n 20 mismatch)"
}

# agg_rows ARGS...: colagg ARGS | col2csv, the rows without the header,
# sorted, into got (and $output); status and stderr as run leaves them.
agg_rows() {
	run --separate-stderr bash -c 'set -o pipefail; colagg "$@" |
	    col2csv --no-header | sort' colagg "$@"
	printf '%s\n' "$output" | sed '/^$/d' >got
}

@test "a NULL key and the integer whose hash it shares are two groups, in every path" {
	# A NULL int64 key hashes as the value 0x9e3779b97f4a7c15 does
	# (-7046029254386353131): the groups are told apart by their keys,
	# whether the rows come together, apart, many or spilled.
	{
		echo k,v
		for i in $(seq 1 3000); do
			echo ",1"
			echo ",1"
			echo "-7046029254386353131,10"
			echo "$i,100"
			echo "-7046029254386353131,10"
		done
	} >c.csv
	csv2col c.csv >c.col
	for m in 256K 1G; do
		agg_rows -m $m --by k 'count(*) AS n, sum(v) AS s' c.col
		status_is 0
		stderr_empty
		grep -x -- '-7046029254386353131,6000,60000' got ||
			fail "-m $m: $(grep -- -70460 got)"
		grep -x ',6000,6000' got || fail "-m $m: $(grep '^,' got)"
		[ "$(wc -l <got)" -eq 3002 ] || fail "-m $m: $(wc -l <got) groups"
	done
}

@test "every function over every type, NULLs ignored, a NULL key its own group" {
	ref_all t.csv 1 | sort >want
	[ "$(wc -l <want)" -eq 4 ] || fail "reference: $(cat want)"
	agg_rows --by g "$ALL" t.col
	status_is 0
	stderr_empty
	rows_match want got "$KFLOATS"
	# The group whose values are all NULL: count 0, the rest NULL.
	grep -q '^c,1,0,,,,,,,,,0,' got || fail "group c: $(grep ^c, got)"
	# The NULL key: ten fields in, its own row.
	grep -q '^,2,1,10,' got || fail "NULL key: $(grep ^, got)"
}

@test "csv2col | colagg | colsort | col2csv, NULL key last" {
	ref_all t.csv 1 | sort >ref
	{ grep -v '^,' ref; grep '^,' ref; } >want
	run --separate-stderr bash -c "set -o pipefail; csv2col t.csv |
	    colagg --by g '$ALL' | colsort -k g | col2csv --no-header"
	status_is 0
	stderr_empty
	printf '%s\n' "$output" >got
	rows_match want got "$KFLOATS"
	[ "$(cut -d, -f1 got | tr '\n' ' ')" = "a b c  " ] ||
		fail "order: $(cut -d, -f1 got | tr '\n' ' ')"
}

@test "without --by: one row for the whole input" {
	ref_all t.csv >want
	agg_rows "$ALL" t.col
	status_is 0
	stderr_empty
	rows_match want got "$FLOATS"
	run --separate-stderr sh -c "colagg '$ALL' t.col | col2csv | head -n 1"
	assert_output "$(echo "$ALL" | tr -d ' ')"
}

@test "empty input: one row of count 0 and NULLs without --by, none with it" {
	agg_rows "$ALL" empty.col
	status_is 0
	stderr_empty
	ref_all /dev/null >want
	[ "$(cat want)" = "0,0,,,,,,,,,0,,,,,,,,,0,,,,,,,,,0,,,,0,,,,0,,,,,," ] ||
		fail "reference: $(cat want)"
	rows_match want got ""
	run --separate-stderr sh -c 'colagg "count(*) AS n, sum(i) AS s, sum(d), avg(f), min(s), bool_or(b)" empty.col | col2csv'
	status_is 0
	assert_output "n,s,sum(d),avg(f),min(s),bool_or(b)
0,,,,,"
	run --separate-stderr sh -c 'colagg --by g "count(*), sum(i)" empty.col | col2csv'
	status_is 0
	assert_output "g,count(*),sum(i)"
	# An empty stream on stdin, and a filter that passes nothing.
	run --separate-stderr sh -c 'colscan --where "i > 1000" t.col |
	    colagg "count(*), max(s)" | col2csv --no-header'
	status_is 0
	assert_output "0,"
	# The empty input keeps its types.
	run --separate-stderr sh -c 'colagg "count(*), sum(i), sum(d), avg(i), min(day), bool_and(b)" empty.col | colscan --schema'
	status_is 0
	assert_output "count(*):int64
sum(i):decimal(38,0)
sum(d):decimal(38,2)
avg(i):float64
min(day):date
bool_and(b):bool"
}

@test "result types: DuckDB's, as colscan --schema shows them" {
	run --separate-stderr sh -c 'colagg --by "g, b" "count(*), count(s), sum(i), sum(d), sum(f), avg(i), avg(d), avg(f), min(i), max(d), min(f), max(day), min(s), any_value(b), var_samp(i), var_pop(d), stddev(f), stddev_pop(i), bool_and(b), bool_or(b)" t.col | colscan --schema'
	status_is 0
	assert_output "g:string
b:bool
count(*):int64
count(s):int64
sum(i):decimal(38,0)
sum(d):decimal(38,2)
sum(f):float64
avg(i):float64
avg(d):float64
avg(f):float64
min(i):int64
max(d):decimal(18,2)
min(f):float64
max(day):date
min(s):string
any_value(b):bool
var_samp(i):float64
var_pop(d):float64
stddev(f):float64
stddev_pop(i):float64
bool_and(b):bool
bool_or(b):bool"
	# int32 stays int32 in min and max, and sums to decimal(38,0).
	csv2col -s i:int32 t.csv >t32.col
	run --separate-stderr sh -c 'colagg "min(i), max(i), sum(i), avg(i)" t32.col | colscan --schema'
	assert_output "min(i):int32
max(i):int32
sum(i):decimal(38,0)
avg(i):float64"
	run --separate-stderr sh -c 'colagg "min(i), max(i), sum(i), avg(i)" t32.col | col2csv --no-header'
	assert_output "-7,100,114,16.285714285714285"
}

@test "one group, and every row its own group" {
	# One key value for all.
	agg_rows --by "'x' AS one" "count(*), sum(i), min(s), max(day)" t.col
	status_is 0
	assert_output "x,10,114,apple,2024-02-29"
	# Every row its own group: the rows themselves, counted once.
	tail -n +2 big.csv | awk -F, '{ print $1 ",1," $2 "," $4 "," $3 }' |
	    sort >want
	agg_rows -m 8M --by k "count(*), sum(amount), max(label), min(day)" big.col
	status_is 0
	stderr_empty
	cmp -s want got || fail "per-row groups differ: $(diff want got | head -5)"
}

@test "several keys, NULLs in each, group as a pair" {
	printf '%s\n' 'x,y,v' '1,a,1' '1,a,2' '1,,4' ',a,8' ',,16' ',,32' \
	    '2,b,64' '1,b,128' >two.csv
	csv2col two.csv >two.col
	agg_rows --by x,y "count(*), sum(v)" two.col
	status_is 0
	[ "$output" = "$(printf '%s\n' '1,a,2,3' '1,,1,4' ',a,1,8' ',,2,48' \
	    '2,b,1,64' '1,b,1,128' | sort)" ] || fail "got: $output"
}

@test "expressions as keys and as arguments" {
	# year(day) AS y; sum(i * 2); the reference by awk over the CSV.
	tail -n +2 t.csv | awk -F, '{
		y = $5 == "" ? "" : substr($5, 1, 4)
		n[y]++
		if ($2 != "") { s[y] += 2 * $2; c[y]++ }
		if ($3 != "") { m = $3 + 0; if (!(y in mx) || m > mx[y]) { mx[y] = m; mt[y] = $3 } }
	}
	END { for (y in n) print y "," n[y] "," (c[y] ? s[y] : "") "," mt[y] }' |
	    sort >want
	agg_rows --by "year(day) AS y" "count(*), sum(i * 2), max(d)" t.col
	status_is 0
	stderr_empty
	cmp -s want got || fail "$(diff want got)"
	# A key expression, a CASE and a cast in the arguments.
	agg_rows --by "i > 0 AS pos" "count(*) AS n, sum(CASE WHEN b THEN 1 ELSE 0 END) AS t, max(length(s)) AS l, sum(d::decimal(10,1)) AS r" t.col
	status_is 0
	# (-0.25 rounds to -0.3, 2.75 to 2.8, 12.34 to 12.3, away from 0.)
	[ "$output" = "$(printf '%s\n' 'false,2,1,5,-0.3' 'true,5,3,8,10.9' \
	    ',3,0,,2.8' | sort)" ] || fail "got: $output"
	# The header names them.
	run --separate-stderr sh -c 'colagg --by "year(day) AS y, lower(s)" "sum(i * 2), avg(i + 1) AS m" t.col | col2csv | head -n 1'
	assert_output "y,lower(s),sum((i * 2)),m"
	# A decimal past 18 digits is fine: its sum is exact to 38.
	run --separate-stderr sh -c 'colagg "sum(d * 100000000000) AS s" t.col | col2csv --no-header'
	status_is 0
	[ "$output" = "$(colagg "sum(d) AS s" t.col | col2csv --no-header |
	    awk -F. '{ print $1 $2 "000000000.00" }')" ] ||
	    fail "sum(d * 10^11): $output"
}

@test "output names: AS, the column, the canonical spelling" {
	run --separate-stderr sh -c 'colagg --by "g, year(day), s AS fruit" "sum(i) AS total, count(*),count( i ), sum( f*2 )" "max(day) AS last" t.col | col2csv | head -n 1'
	status_is 0
	assert_output "g,year(day),fruit,total,count(*),count(i),sum((f * 2)),last"
	# Several operands and lists are one list, in order.
	run --separate-stderr sh -c 'colagg "min(i)" "max(i), count(*)" "avg(i) AS a" t.col | col2csv'
	assert_output "min(i),max(i),count(*),a
-7,100,10,16.285714285714285"
	# A name an input could have: an aggregate wins unless it is a file.
	cp t.col 'sum(1).col'
	run --separate-stderr sh -c 'colagg "count(*)" ./"sum(1).col" | col2csv --no-header'
	status_is 0
	assert_output "10"
	# --having sees the output names.
	run --separate-stderr sh -c 'colagg --by "s AS fruit" "count(*) AS n" --having "fruit = '"'pear'"'" t.col | col2csv'
	assert_output "fruit,n
pear,2"
}

@test "any column name works as a key, even one like the arguments' own" {
	# The projection names the arguments "#a0", "#a1", ...; a key
	# named so must not clash with them.
	printf '%s\n' '#a0,x' '1,2' '1,3' '2,5' >h.csv
	csv2col h.csv >h.col
	agg_rows --by '"#a0"' "sum(x), count(x)" h.col
	status_is 0
	stderr_empty
	assert_output "$(printf '%s\n' 1,5,2 2,5,1)"
	agg_rows --by 'x AS "#a0", "#a0" AS "##a"' 'min("#a0"), max(x)' h.col
	status_is 0
	assert_output "$(printf '%s\n' 2,1,1,2 3,1,1,3 5,2,2,5)"
	run --separate-stderr sh -c 'colagg --by "\"#a0\"" "sum(x) AS \"#a1\"" h.col | col2csv | sort'
	status_is 0
	assert_output "$(printf '%s\n' '#a0,#a1' 1,5 2,5)"
}

@test "--having keeps the groups whose condition is true" {
	agg_rows --by g "count(*) AS n, sum(i) AS si" --having "n > 2" t.col
	status_is 0
	[ "$output" = "$(printf '%s\n' 'a,4,4' 'b,3,100' | sort)" ] ||
		fail "got: $output"
	# A NULL condition drops the group; IS NULL keeps it.
	agg_rows --by g "count(*) AS n, sum(i) AS si" --having "si < 50" t.col
	[ "$output" = "$(printf '%s\n' 'a,4,4' ',2,10' | sort)" ] ||
		fail "got: $output"
	agg_rows --by g "count(*) AS n, sum(i) AS si" --having "si IS NULL OR g IS NULL" t.col
	[ "$output" = "$(printf '%s\n' 'c,1,' ',2,10' | sort)" ] ||
		fail "got: $output"
	# Without --by, on an empty input, and passing nothing.
	agg_rows "count(*) AS n" --having "n = 0" empty.col
	assert_output "0"
	agg_rows "count(*) AS n" --having "n = 0" t.col
	assert_output ""
	agg_rows -m 256K --by k "count(*) AS n, min(amount) AS a" --having "k % 100000 = 7" big.col
	status_is 0
	assert_output "$(printf '%s\n' 7,1,7.07 100007,1,7.07 200007,1,7.07 | sort)"
	# Its mistakes are usage errors with a caret.
	run --separate-stderr colagg --by g "count(*) AS n" --having "i > 1" t.col
	status_is 2
	stderr_has "--having"
	stderr_has "unknown column 'i'"
	stderr_has "^"
	run --separate-stderr colagg --by g "count(*) AS n" --having "n + 1" t.col
	status_is 2
}

@test "--where aggregates only the rows it keeps, as colscan -w | colagg" {
	local w want
	for w in "i > 0" "s LIKE '%a%' OR b" "day >= DATE '2001-01-01'" \
	    "i IS NULL" "FALSE"; do
		want=$(colscan -w "$w" t.col | colagg --by g \
		    "count(*) AS n, sum(i) AS si, min(s) AS ms, avg(d) AS ad" |
		    col2csv --no-header | sort) || fail "colscan | colagg: $w"
		agg_rows -w "$w" --by g \
		    "count(*) AS n, sum(i) AS si, min(s) AS ms, avg(d) AS ad" t.col
		status_is 0
		stderr_empty
		[ "$output" = "$want" ] || fail "-w '$w': got '$output', want '$want'"
	done
	# Worked out by hand: i > 0 keeps a 3 and 5, b 7 and 100, NULL 10.
	agg_rows --where "i > 0" --by g "count(*) AS n, sum(i) AS si" t.col
	assert_output "$(printf '%s\n' a,2,8 b,2,107 ,1,10 | sort)"
	# Without --by, a filter that keeps nothing is still one row.
	agg_rows -w "i > 1000" "count(*) AS n, sum(i) AS si" t.col
	assert_output "0,"
	# The same groups at a budget that spills, and from a pipe.
	agg_rows -m 256K -w "k % 3 = 0" --by amount "count(*) AS n, sum(k) AS s" big.col
	status_is 0
	cp got small
	run --separate-stderr bash -c 'set -o pipefail; cat big.col |
	    colscan -w "k % 3 = 0" | colagg --by amount "count(*) AS n, sum(k) AS s" |
	    col2csv --no-header | sort'
	status_is 0
	[ "$output" = "$(cat small)" ] || fail "spilled -w differs"
	# Its mistakes: exit 2 naming --where, a caret, nothing read.
	run --separate-stderr colagg -w "nosuch > 1" --by g "count(*)" t.col
	status_is 2
	assert_output ""
	stderr_has "--where: "
	stderr_has "unknown column 'nosuch'"
	stderr_has "^^^^^^"
	run --separate-stderr colagg -w "i + 1" --by g "count(*)" t.col
	status_is 2
	stderr_has "--where: "
	run --separate-stderr colagg -w "i > 1" -w "i < 3" "count(*)" t.col
	status_is 2
	stderr_has "--where given twice"
	# A value error in the filter names the row.
	run --separate-stderr colagg -w "i * 4611686018427387904 > 0" "count(*)" t.col
	status_is 3
	stderr_has "row 1"
}

@test "--having with aggregate calls, in the output or not" {
	# sum(i) is not an output column: computed, filtered on, dropped.
	agg_rows --by g "count(*) AS n" --having "sum(i) > 5" t.col
	status_is 0
	assert_output "$(printf '%s\n' 'b,3' ',2' | sort)"
	run --separate-stderr sh -c 'colagg --by g "count(*) AS n" --having "sum(i) > 5" t.col | colscan --schema'
	assert_output "$(printf '%s\n' g:string n:int64)"
	# A call that is in the output is that column, under its AS too.
	agg_rows --by g "count(*) AS n, max(s)" --having "count(*) > 2 AND max(s) < 'q'" t.col
	assert_output "a,4,pear"
	agg_rows --by g "count(*) AS n" --having "count(DISTINCT s) = 2 OR min(day) < DATE '1980-01-01'" t.col
	assert_output "$(printf '%s\n' 'b,3' 'a,4' | sort)"
	# Without --by, and with an aggregate of an expression.
	agg_rows "count(*) AS n" --having "abs(sum(i * 2)) > 1000" t.col
	assert_output ""
	agg_rows "count(*) AS n" --having "sum(i * 2) = 228" t.col
	assert_output "10"
	# Its mistakes: a caret under the user's text.
	run --separate-stderr colagg --by g "count(*) AS n" --having "sum(s) > 1" t.col
	status_is 2
	stderr_has "sum does not take string"
	stderr_has "      ^"
	run --separate-stderr colagg --by g "count(*) AS n" --having "max(s)" t.col
	status_is 2
	stderr_has "a condition is boolean, not string"
}

@test "count(DISTINCT x), sum, avg and min of DISTINCT: the same at every budget" {
	# Over t.csv, against sort -u of the (key, value) pairs.
	awk -F, 'NR > 1 && $6 != "" { print $1 "," $6 }' t.csv | sort -u |
	    awk -F, '{ n[$1]++ } END { for (g in n) print g "," n[g] }' | sort >want
	agg_rows --by g "count(DISTINCT s)" --having "count(DISTINCT s) > 0" t.col
	status_is 0
	diff want got || fail "count(DISTINCT s) by g"
	agg_rows "count(DISTINCT s), count(DISTINCT s) AS again, count(s), count(*), max(DISTINCT s)" t.col
	assert_output "6,6,7,10,zucchini"
	agg_rows --by g "sum(DISTINCT i), avg(DISTINCT i), min(DISTINCT i), count(*)" t.col
	assert_output "$(printf '%s\n' 'a,4,1.3333333333333333,-4,4' 'b,100,33.333333333333336,-7,3' 'c,,,,1' ',10,10,10,2' | sort)"
	# 300000 rows: k % 256 by label, 977 labels (about 250000 pairs);
	# every budget gives the reference's bytes, the small ones spilling.
	awk -F, 'NR > 1 { print $4 "," $1 % 256 }' big.csv |
	    sort -u | awk -F, '{ n[$1]++ } END { for (g in n) print g "," n[g] }' | sort >want
	for m in 256K 1M 8M 1G; do
		agg_rows -m "$m" --by label "count(DISTINCT k % 256)" big.col
		status_is 0
		diff -q want got >/dev/null || fail "-m $m differs: $(diff want got | head -5)"
	done
	run --separate-stderr sh -c 'colagg --stats -m 256K --by label "count(DISTINCT k % 256)" big.col >/dev/null'
	status_is 0
	[[ $stderr =~ \ ([1-9][0-9]*)\ partitions ]] || fail "did not spill: $stderr"
	spill_empty
}

@test "min, max, any_value, sum, quantiles, keys and DISTINCT of decimal(30,2)" {
	printf '%s\n' g,x a,12345678901234567890.12 a,-99999999999999999999.99 b, \
	    b,0.01 a,5 c, >w.csv
	csv2col --schema 'g:string,x:decimal(30,2)' w.csv >w.col
	agg_rows -m 256K --by g "min(x), max(x), any_value(x), sum(x), count(x)" w.col
	status_is 0
	assert_output "$(printf '%s\n' a,-99999999999999999999.99,12345678901234567890.12,12345678901234567890.12,-87654321098765432104.87,3 \
	    b,0.01,0.01,0.01,0.01,1 c,,,,,0 | sort)"
	# a's sorted: -99999999999999999999.99 5.00 12345678901234567890.12;
	# quantile_cont at 0.25 is half way from the first to the second,
	# in doubles as DuckDB: -49999999999999999997.495 is the double
	# -5e19 (DuckDB gives -50000000000000000000.00 too).
	agg_rows -m 256K --by g "median(x), quantile_disc(x, 1),
	    quantile_cont(x, 0.25)" w.col
	status_is 0
	assert_output "$(printf '%s\n' a,5.00,12345678901234567890.12,-50000000000000000000.00 \
	    b,0.01,0.01,0.01 c,,, | sort)"
	run --separate-stderr sh -c 'colagg --by g "min(x), max(x), sum(x)" w.col | colscan --schema'
	assert_output "$(printf '%s\n' g:string 'min(x):decimal(30,2)' 'max(x):decimal(30,2)' 'sum(x):decimal(38,2)')"
	# As keys (5 and 5.00 one group, the NULLs another) and as a
	# DISTINCT argument, at two budgets, and sorted.
	printf '%s\n' d,5.00 e,5 e,-99999999999999999999.99 f, >>w.csv
	csv2col --schema 'g:string,x:decimal(30,2)' w.csv >w.col
	for m in 256K 1G; do
		agg_rows -m $m --by x "count(*), count(g)" w.col
		status_is 0
		assert_output "$(printf '%s\n' -99999999999999999999.99,2,2 \
		    0.01,1,1 12345678901234567890.12,1,1 5.00,3,3 ,3,3 | sort)"
		agg_rows -m $m --by g "count(DISTINCT x), sum(DISTINCT x)" w.col
		status_is 0
		assert_output "$(printf '%s\n' a,3,-87654321098765432104.87 \
		    b,1,0.01 c,0, d,1,5.00 e,2,-99999999999999999994.99 f,0, |
		    sort)"
	done
	run --separate-stderr bash -c 'set -o pipefail; colsort -k x w.col |
	    colagg --sorted --by x "count(*)" | col2csv --no-header'
	status_is 0
	assert_output "$(printf '%s\n' -99999999999999999999.99,2 0.01,1 \
	    5.00,3 12345678901234567890.12,1 ,3)"
}

@test "--sorted with DISTINCT: the hash path's groups, in key order, groups across batches" {
	# 300000 rows in runs of 1 to 13 rows a key, keys spanning batch
	# boundaries; x repeats within a key, and is NULL on some rows.
	awk 'BEGIN { print "k,x,s"; srand(7); k = 0
	    for (i = 0; i < 300000; ) { n = 1 + int(rand() * 13); k += 1 + int(rand() * 3)
	        for (j = 0; j < n && i < 300000; j++) { x = int(rand() * 6)
	            printf "%d,%s,w%d\n", k, (x == 5 ? "" : x), int(rand() * 4); i++ } } }' >ds.csv
	csv2col ds.csv -o ds.col
	q="count(DISTINCT x) AS d, sum(DISTINCT x) AS sd, count(*) AS n, max(s) AS m, median(x) AS md"
	run --separate-stderr bash -c "colagg --by k '$q' ds.col | colsort -k k | col2csv"
	status_is 0
	echo "$output" >want
	[ "$(wc -l <want)" -gt 40000 ] || fail "few groups: $(wc -l <want)"
	for m in 256K 1G; do
		run --separate-stderr bash -c "set -o pipefail; csv2col ds.csv | colagg -m $m --sorted --by k '$q' | col2csv"
		status_is 0
		echo "$output" >got
		cmp -s want got || fail "-m $m: $(diff want got | head -5)"
	done
	# Two keys, the second a string.
	run --separate-stderr bash -c "colagg --by k,s 'count(DISTINCT x), count(*)' ds.col | colsort -k k -k s | col2csv"
	echo "$output" >want
	run --separate-stderr bash -c "colsort -k k -k s ds.col | colagg --sorted --by k,s 'count(DISTINCT x), count(*)' | col2csv"
	status_is 0
	[ "$output" = "$(cat want)" ] || fail "k,s: $(echo "$output" | diff want - | head -5)"
	# Out of order, within a batch and across one: exit 3 naming the row.
	printf 'k,x\n1,2\n2,2\n1,3\n' | csv2col >u.col
	run --separate-stderr colagg --sorted --by k "count(DISTINCT x)" u.col
	status_is 3
	stderr_has "u.col: row 3: key below the previous row's"
	run --separate-stderr bash -c "colagg --sorted --by k 'count(DISTINCT x)' ds.col ds.col >/dev/null"
	status_is 3
	stderr_has "row 300001: key below the previous row's"
}

@test "inputs: files, several files, '-', process substitution, colscan, Parquet" {
	agg_rows --by g "count(*), sum(i), max(s)" t.col
	status_is 0
	cp got once
	[ "$output" = "$(printf '%s\n' 'a,4,4,pear' 'b,3,100,zucchini' \
	    'c,1,,' ',2,10,fig' | sort)" ] || fail "got: $output"
	agg_rows --by g "count(*), sum(i), max(s)" - <t.col
	status_is 0
	cmp -s once got || fail "stdin: $output"
	run --separate-stderr bash -c 'colagg --by g "count(*), sum(i), max(s)" <(csv2col t.csv) | col2csv --no-header | sort'
	status_is 0
	[ "$output" = "$(cat once)" ] || fail "<(...): $output"
	# Two files, and the same two concatenated on stdin: twice the rows.
	awk -F, -v OFS=, '{ $2 *= 2; if ($3 != "") $3 *= 2 } 1' once | sort >twice
	agg_rows --by g "count(*), sum(i), max(s)" t.col t.col
	status_is 0
	cmp -s twice got || fail "two files: $output"
	run --separate-stderr bash -c 'cat t.col t.col | colagg --by g "count(*), sum(i), max(s)" | col2csv --no-header | sort'
	[ "$output" = "$(cat twice)" ] || fail "concatenated: $output"
	agg_rows --by g "count(*), sum(i), max(s)" t.col - <t.col
	cmp -s twice got || fail "a file and '-': $output"
	# colscan | colagg.
	run --separate-stderr bash -c 'set -o pipefail; colscan --where "i > 0" --select "g, i, s" t.col | colagg --by g "count(*), sum(i), max(s)" | col2csv --no-header | sort'
	status_is 0
	[ "$output" = "$(printf '%s\n' 'a,2,8,pear' 'b,2,107,zucchini' \
	    ',1,10,fig' | sort)" ] || fail "colscan |: $output"
	# Parquet, by col2parquet: the same rows, also every function.
	col2parquet -o t.parquet t.col
	agg_rows --by g "count(*), sum(i), max(s)" t.parquet
	status_is 0
	cmp -s once got || fail "Parquet: $output"
	agg_rows --by g "$ALL" t.col
	cp got all.col.txt
	agg_rows --by g "$ALL" t.parquet
	status_is 0
	cmp -s all.col.txt got || fail "Parquet, every function: $(diff all.col.txt got)"
	agg_rows -j 1 --by g "$ALL" t.parquet
	cmp -s all.col.txt got || fail "Parquet -j 1 differs"
}

# The reference of the budget sweep: big.csv grouped by amount (100000
# groups of 3 rows): count, sum, min and max of k, avg of k, min of day,
# max of label.
big_ref() {
	tail -n +2 big.csv | awk -F, '{
		a = $2
		n[a]++; s[a] += $1
		if (!(a in mn) || $1 < mn[a]) mn[a] = $1
		if (!(a in mx) || $1 > mx[a]) mx[a] = $1
		if (!(a in md) || $3 < md[a]) md[a] = $3
		if (!(a in ml) || $4 > ml[a]) ml[a] = $4
	}
	END { for (a in n) printf "%s,%d,%d,%d,%d,%.17g,%s,%s\n", a, n[a],
	    s[a], mn[a], mx[a], s[a] / n[a], md[a], ml[a] }' | sort
}
BIG_AGGS="count(*), sum(k), min(k), max(k), avg(k), min(day), max(label)"

@test "a budget sweep: the same groups at every budget, spilled below it" {
	big_ref >want
	[ "$(wc -l <want)" -eq 100000 ] || fail "reference: $(wc -l <want) groups"
	mkdir tdir
	for m in 256K 1M 8M 1G; do
		agg_rows -m $m -T tdir --stats --by amount "$BIG_AGGS" big.col
		status_is 0
		rows_match want got 6
		[ -z "$(ls -A tdir)" ] || fail "-m $m: left in -T: $(ls -A tdir)"
		cp got "got.$m"
		stderr_matches "300000 rows in, 100000 groups, 100000 rows out"
		case $m in
		1G) stderr_has " 0 partitions, 0 levels, 0.0 MB spilled" ;;
		*) [[ $stderr =~ \ ([1-9][0-9]*)\ partitions,\ ([1-9][0-9]*)\ levels ]] ||
			fail "-m $m did not spill: $stderr" ;;
		esac
	done
	# Exactly the same bytes, the average too (one division of an exact
	# integer sum).
	for m in 256K 1M 8M; do
		cmp -s got.1G "got.$m" || fail "-m $m differs from -m 1G"
	done
	spill_empty
}

@test "spilled partitions on two threads: the rows one thread gives" {
	# -j 2 aggregates two partitions at once, each in half the budget;
	# string_agg keeps each group's input order either way.
	for m in 256K 1M 4M; do
		for j in 1 2; do
			agg_rows -j $j -m $m --stats --by amount \
			    "$BIG_AGGS, string_agg(label, '|')" big.col
			status_is 0
			[[ $stderr =~ \ ([1-9][0-9]*)\ partitions ]] ||
				fail "-j $j -m $m did not spill: $stderr"
			cp got "got.$j"
		done
		[ "$(wc -l <got.2)" -eq 100000 ] || fail "-m $m: $(wc -l <got.2) groups"
		cmp -s got.1 got.2 || fail "-m $m: -j 2 differs from -j 1"
	done
	spill_empty
}

@test "from CSV to CSV through a pipe under a small budget, and spill options" {
	big_ref >want
	run --separate-stderr bash -c "set -o pipefail; csv2col big.csv |
	    colagg -m 1M --by amount '$BIG_AGGS' | col2csv --no-header | sort"
	status_is 0
	printf '%s\n' "$output" >got
	rows_match want got 6
	mkdir d1 d2
	for opts in "-m 512K -T d1 -T d2 --compress-spill" "-m 2M -z5 -j 1 --progress"; do
		agg_rows $opts --by amount "$BIG_AGGS" big.col
		status_is 0
		stderr_empty
		rows_match want got 6
	done
	[ -z "$(ls -A d1)$(ls -A d2)" ] || fail "left in -T dirs"
	spill_empty
}

@test "--stats on a small input: in memory" {
	run --separate-stderr sh -c 'colagg --stats --by g "count(*)" t.col > /dev/null'
	status_is 0
	stderr_matches "10 rows in, 4 groups, 4 rows out"
	stderr_has "0 partitions, 0 levels, 0.0 MB spilled"
	stderr_matches "memory budget [0-9.]+ MB \(the default\), peak charged [0-9.]+ MB, peak resident [0-9.]+ MB"
	run --separate-stderr sh -c 'colagg --stats --by g "count(*) AS n" --having "n > 3" t.col > /dev/null'
	stderr_matches "10 rows in, 4 groups, 1 rows out"
}

@test "--max-spill: exit 4 with a message, nothing left behind" {
	run --separate-stderr sh -c 'colagg -m 256K --max-spill 256K --by k "count(*)" big.col > out.col'
	status_is 4
	stderr_has "--max-spill"
	run --separate-stderr col2csv out.col
	status_is 3
	spill_empty
	# Enough room: fine.
	run --separate-stderr sh -c 'colagg -m 256K --max-spill 1G --by k "count(*)" big.col > /dev/null'
	status_is 0
	spill_empty
}

@test "-o writes atomically, and only on success" {
	echo old >out.col
	run --separate-stderr colagg --by g "count(*)" -o out.col t.col
	status_is 0
	assert_output ""
	[ "$(col2csv --no-header out.col | sort | tr '\n' ' ')" = ",2 a,4 b,3 c,1 " ] ||
		fail "out.col: $(col2csv out.col)"
	echo old >out.col
	head -c 200000 big.col >cut.col
	run --separate-stderr colagg -m 256K --by k "count(*)" -o out.col cut.col
	status_is 3
	[ "$(cat out.col)" = old ] || fail "a failed run replaced out.col"
	run --separate-stderr colagg "sum(nosuch)" -o out.col t.col
	status_is 2
	[ "$(cat out.col)" = old ] || fail "a usage error replaced out.col"
	run --separate-stderr colagg "count(*)" -o new.col cut.col
	status_is 3
	[ ! -e new.col ] || fail "a failed run left new.col"
	# Its own input is refused as the output; so is a directory.
	run --separate-stderr colagg "count(*)" -o t.col t.col
	status_is 2
	run --separate-stderr colagg "count(*)" -o spill t.col
	status_is 2
	spill_empty
}

@test "usage errors: exit 2 before a row is read, a caret under the place" {
	run --separate-stderr colagg --by g "sum(nosuch)" t.col
	status_is 2
	assert_output ""
	stderr_has "unknown column 'nosuch'"
	stderr_has "  sum(nosuch)"
	stderr_has "      ^^^^^^"
	run --separate-stderr colagg --by "g, nosuch" "count(*)" t.col
	status_is 2
	stderr_has "--by"
	stderr_has "unknown column 'nosuch'"
	stderr_has "     ^^^^^^"
	# Not an aggregate.
	run --separate-stderr colagg --by g "lower(s)" t.col
	status_is 2
	stderr_has "unknown aggregate function: lower"
	run --separate-stderr colagg --by g "sum(i) + 1" t.col
	status_is 2
	stderr_has "expected an aggregate"
	# Types an aggregate does not take.
	run --separate-stderr colagg "sum(s)" t.col
	status_is 2
	stderr_has "sum does not take string"
	stderr_has "      ^"
	for a in "avg(day)" "sum(day)" "var_pop(s)" "bool_and(i)" "bool_or(s)" "stddev(b)"; do
		run --separate-stderr colagg "$a" t.col
		status_is 2
		stderr_has "does not take"
	done
	# Argument counts and *.
	run --separate-stderr colagg "sum(*)" t.col
	status_is 2
	stderr_has "only count takes *"
	run --separate-stderr colagg "sum(i, d)" t.col
	status_is 2
	stderr_has "takes one argument"
	run --separate-stderr colagg "count(DISTINCT i), sum(DISTINCT d)" t.col
	status_is 2
	stderr_has "a second DISTINCT argument (the first is i)"
	stderr_has "                                 ^"
	# Two outputs of one name, among aggregates and with a key.
	run --separate-stderr colagg "count(*) AS x, sum(i) AS x" t.col
	status_is 2
	stderr_has "two output columns named x"
	run --separate-stderr colagg --by g "sum(i) AS g" t.col
	status_is 2
	stderr_has "two output columns named g"
	run --separate-stderr colagg "sum(i)" "sum(i)" t.col
	status_is 2
	stderr_has "two output columns named sum(i)"
	# Nothing to compute.
	run --separate-stderr colagg t.col
	status_is 2
	stderr_has "nothing to compute"
	run --separate-stderr colagg
	status_is 2
	# Options.
	run --separate-stderr colagg --by g --by s "count(*)" t.col
	status_is 2
	stderr_has "--by given twice"
	run --separate-stderr colagg -m 100K "count(*)" t.col
	status_is 2
	run --separate-stderr colagg --frobnicate "count(*)" t.col
	status_is 2
	spill_empty
}

@test "an integer literal past int64 is decimal(38,0), as DuckDB's HUGEINT" {
	# DuckDB 1.5 (SELECT g, sum(i * 100000000000000000000) ... HAVING
	# ... > 9223372036854775808): HUGEINT sums, NULL's group included.
	run --separate-stderr sh -c 'colagg --by g "sum(i * 100000000000000000000) AS s" --where "i > -9223372036854775809" --having "s > 9223372036854775808" t.col | col2csv --no-header | sort'
	status_is 0
	assert_output ",1000000000000000000000
a,400000000000000000000
b,10000000000000000000000"
}

@test "an integer literal past 38 digits: colscan's message and exit 2, a caret" {
	# In every place colagg takes an expression, as colscan binds it:
	# DuckDB's HUGEINT of 39 digits is past decimal(38,0).
	local big=100000000000000000000000000000000000000
	run --separate-stderr colscan --select "i * $big AS y" t.col
	status_is 2
	want=${stderr#colscan: --select: }
	for a in "sum(i * $big)" "count(DISTINCT i * $big)" "max(i - $big)"; do
		run --separate-stderr colagg --by g "$a" t.col
		status_is 2
		assert_output ""
		stderr_has "colagg: '$a': column "
		stderr_has "integer out of range '$big'"
		stderr_has "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"
	done
	run --separate-stderr colagg --by "i * $big AS y" "count(*)" t.col
	status_is 2
	[ "$stderr" = "colagg: --by: $want" ] || fail "not colscan's: $stderr"
	run --separate-stderr colagg --by g "count(*)" --where "i < $big" t.col
	status_is 2
	stderr_has "--where: column 5: integer out of range '$big'"
	run --separate-stderr colagg --by g "count(*)" --having "sum(i) > -170141183460469231731687303715884105728" t.col
	status_is 2
	stderr_has "--having: column 10: integer out of range '-170141183460469231731687303715884105728'"
	stderr_has "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"
	# Through a pipe, the same before a row is read.
	run --separate-stderr sh -c "csv2col t.csv | colagg 'sum(i * $big)'"
	status_is 2
	stderr_has "integer out of range"
}

@test "a truncated or bad input: exit 3, and the output truncated too" {
	head -c 200000 big.col >cut.col
	for m in 256K 1G; do
		run --separate-stderr sh -c "colagg -m $m --by k 'count(*)' cut.col > out.col"
		status_is 3
		stderr_has "truncated"
		run --separate-stderr col2csv out.col
		status_is 3
	done
	run --separate-stderr sh -c 'colagg "count(*)" cut.col | col2csv'
	status_is 3
	run --separate-stderr sh -c 'echo not a stream | colagg "count(*)" > out.col'
	status_is 3
	run --separate-stderr colagg "count(*)" nosuch.col
	status_is 5
	no_crash
	spill_empty
}

@test "sums are exact to 38 digits; past them exit 3, never a wrong value" {
	# Integers sum in 128 bits to decimal(38,0), as DuckDB's HUGEINT:
	# past int64 is the exact sum, both ways, in memory and spilled.
	printf '%s\n' 'k,v' '1,9223372036854775807' '1,1' '2,5' >ov.csv
	csv2col ov.csv >ov.col
	run --separate-stderr sh -c 'colagg --by k "sum(v)" ov.col | col2csv --no-header | sort'
	status_is 0
	assert_output "1,9223372036854775808
2,5"
	run --separate-stderr sh -c 'colagg --by k "sum(v) AS s" ov.col | colscan --schema'
	assert_output "k:int64
s:decimal(38,0)"
	printf '%s\n' 'v' '-9223372036854775807' '-2' '-9223372036854775808' >ovn.csv
	run --separate-stderr sh -c 'csv2col ovn.csv | colagg "sum(v)" | col2csv --no-header'
	status_is 0
	assert_output "-18446744073709551617"
	# The same through Parquet, read back.
	csv2col ovn.csv | colagg "sum(v) AS s" | col2parquet -o ovn.parquet
	run --separate-stderr sh -c 'colscan ovn.parquet | col2csv'
	status_is 0
	assert_output "s
-18446744073709551617"
	# min, max, count and avg of the same.
	run --separate-stderr sh -c 'colagg --by k "max(v), count(v), avg(v)" ov.col | col2csv --no-header | sort'
	status_is 0
	assert_output "1,9223372036854775807,2,4611686018427388000
2,5,1,5"
	# Decimals sum to decimal(38,s), DuckDB's type: past 38 digits is an
	# error, and so is a 128-bit accumulator that would wrap.
	v=99999999999999999999999999999999999.00
	awk -v v="$v" 'BEGIN { print "v"; for (i = 0; i < 11; i++) print v }' >ovd.csv
	run --separate-stderr sh -c 'csv2col -s "v:decimal(37,2)" ovd.csv | colagg "sum(v)" | col2csv --no-header'
	status_is 3
	stderr_has "overflow"
	refute_output --regexp '[0-9]'
	awk -v v="$v" 'BEGIN { print "v"; for (i = 0; i < 3000; i++) print v }' >wrap.csv
	run --separate-stderr sh -c 'csv2col -s "v:decimal(37,2)" wrap.csv | colagg -m 256K "sum(v)" | col2csv --no-header'
	status_is 3
	stderr_has "overflow"
	printf '%s\n' 'v' '9000000000000000.00' '1000000000000000.00' >d18.csv
	run --separate-stderr sh -c 'csv2col -s "v:decimal(18,2)" d18.csv | colagg "sum(v)" | col2csv --no-header'
	status_is 0
	assert_output "10000000000000000.00"
	# Just under the limit is exact.
	printf '%s\n' 'v' '9000000000000000.00' '999999999999999.99' >okd.csv
	run --separate-stderr sh -c 'csv2col -s "v:decimal(18,2)" okd.csv | colagg "sum(v)" | col2csv --no-header'
	status_is 0
	assert_output "9999999999999999.99"
	# Past the limit on the way, back under it at the end: the exact
	# answer or an error, never a wrapped value.
	printf '%s\n' 'v' '9999999999999999.99' '9999999999999999.99' \
	    '-9999999999999999.99' >mid.csv
	run --separate-stderr sh -c 'csv2col -s "v:decimal(18,2)" mid.csv | colagg "sum(v)" | col2csv --no-header'
	if [ "$status" -eq 0 ]; then
		assert_output "9999999999999999.99"
	else
		status_is 3
	fi
	# Partial sums past int64 merged from spills: the group's rows come
	# before and after 300000 other groups.
	awk 'BEGIN { print "k,v"; print "0,5000000000000000000"
		for (i = 1; i <= 300000; i++) print i "," i
		print "0,5000000000000000000" }' >ovbig.csv
	csv2col ovbig.csv >ovbig.col
	for m in 256K 1G; do
		run --separate-stderr sh -c "colagg -m $m --by k 'sum(v)' ovbig.col | colscan --where 'k = 0' | col2csv --no-header"
		status_is 0
		assert_output "0,10000000000000000000"
	done
	spill_empty
}

@test "peak RSS stays within the budget plus a constant" {
	[ -x /usr/bin/time ] || skip "/usr/bin/time not installed"
	[ "${MODE:-release}" != asan ] || skip "ASan inflates memory"
	[ -z "${COLPIPE_VALGRIND:-}" ] || skip "valgrind inflates memory"
	for m in 1 4 16; do
		/usr/bin/time -o rss -f %M colagg -m ${m}M --by k \
		    "count(*), max(label), sum(amount)" big.col >/dev/null
		/usr/bin/time -o rss2 -f %M bash -c "cat big.col | colagg \
		    -m ${m}M --by amount '$BIG_AGGS' >/dev/null"
		# As coljoin's: about 8 MiB plus input frames of under 0.3 MiB.
		for kb in $(cat rss) $(cat rss2); do
			[ "$kb" -le $((m * 1024 + 10 * 1024)) ] ||
				fail "-m ${m}M: peak RSS $kb KiB"
		done
	done
}

@test "the temporary directory is empty after success, error and every signal" {
	colagg -m 256K --by k "count(*)" big.col >/dev/null
	spill_empty
	colagg -m 256K --by k "count(*)" big.col | head -c 1000 >/dev/null
	spill_empty
	head -c 3000000 big.col >cut.col
	colagg -m 256K --by k "count(*)" cut.col >/dev/null 2>&1 || true
	spill_empty
	# Hold colagg mid-input after it has spilled: all of big.col but
	# its trailer, then a pause.  (Not SIGINT: a job started with & by
	# a non-interactive shell ignores it, so colagg would wait for the
	# pause to end and stop on the truncated input.)
	size=$(filesize big.col)
	head -c $((size - 56)) big.col >body.col
	for sig in TERM KILL PIPE HUP; do
		mkfifo in.fifo
		colagg -m 256K --by k "count(*), max(label)" in.fifo >/dev/null 2>err &
		pid=$!
		{ cat body.col; sleep 30; } >in.fifo &
		feeder=$!
		n=0
		until ls -l /proc/$pid/fd 2>/dev/null | grep -q "$TMPDIR"; do
			kill -0 $pid 2>/dev/null ||
				fail "$sig: colagg ended before spilling: $(cat err)"
			n=$((n + 1))
			[ $n -lt 600 ] || fail "$sig: colagg never spilled: $(cat err)"
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

@test "median and quantiles: every type, NULLs ignored, DuckDB's types" {
	# Worked by hand from t.csv: group a's d sorted is -3.00 0.01 1.50
	# 2.75, its 0.25 quantile at 0.75 of the way from -3.00 to 0.01,
	# truncated to the last digit: -0.75.
	agg_rows --by g 'median(i), quantile_cont(d, 0.25), quantile_disc(d, 0.5),
	    quantile_disc(day, 0.5), median(day), quantile_cont(f, 1),
	    quantile_disc(i, 0)' t.col
	status_is 0
	stderr_empty
	cat >want <<-'E'
	,10,0.10,0.10,,,4,10
	a,3,-0.75,0.01,2024-01-05,2024-01-05 00:00:00,10,-4
	b,7,2.89,-0.25,1999-12-31,1999-12-31 00:00:00,0.5,-7
	c,,,,,,,
	E
	diff want got || fail "quantiles differ"
	run --separate-stderr bash -c 'colagg "median(i), quantile_disc(day, 1),
	    median(d)" t.col | colscan --schema'
	status_is 0
	[[ $output == *"median(i):float64"* ]] || fail "median of int32: $output"
	[[ $output == *"quantile_disc(day, 1):date"* ]] || fail "disc: $output"
	[[ $output == *"median(d):decimal(18,2)"* ]] || fail "decimal: $output"
}

@test "median and quantiles: the same values at every budget, spilled below it" {
	# amount's groups are the 3 k's i, i + 100000, i + 200000.
	tail -n +2 big.csv | awk -F, '{ n[$2]++; k[$2, n[$2]] = $1 }
	END { for (a in n) printf "%s,%d,%d\n", a, k[a, 2], k[a, 3] }' |
	    sort >want
	for m in 256K 1M 1G; do
		agg_rows -m $m --stats --by amount 'median(k),
		    quantile_disc(k, 0.9)' big.col
		status_is 0
		[ "$(wc -l <got)" -eq 100000 ] || fail "-m $m: $(wc -l <got) groups"
		sed 's/,\([0-9]*\)\.0*,/,\1,/' got | diff -q want - >/dev/null ||
			fail "-m $m: $(sed 's/,\([0-9]*\)\.0*,/,\1,/' got | diff want - | head -5)"
		case $m in
		1G) stderr_has " 0 partitions, 0 levels" ;;
		*) [[ $stderr =~ \ ([1-9][0-9]*)\ partitions ]] ||
			fail "-m $m did not spill: $stderr" ;;
		esac
	done
	spill_empty
}

@test "median without --by: the whole input, or exit 4 past the budget" {
	agg_rows -m 64M 'median(k), quantile_disc(day, 0), quantile_cont(k, 0.1)' big.col
	status_is 0
	[ "$(cat got)" = "150000.5,1970-01-01,30000.9" ] || fail "got $(cat got)"
	run --separate-stderr colagg -m 256K 'median(k)' big.col
	status_is 4
	stdout_empty
	stderr_matches "^colagg: median\(k\): one group's values take 2400000 bytes, more than the memory budget \(262144 bytes\) lets a group take: give -m [0-9]+M or more$"
	spill_empty
	# The budget named holds them: the same answer.
	m=$(printf '%s\n' "$stderr" | sed -n 's/.*give -m \([0-9]*M\) or more$/\1/p')
	agg_rows -m "$m" 'median(k)' big.col
	status_is 0
	[ "$(cat got)" = "150000.5" ] || fail "got $(cat got) at -m $m"
}

# wide.col: 20 rows, keys 0, 1 and 2, s 10 bytes but for row 17, 3 MiB.
make_wide() {
	awk 'BEGIN { print "k,s"; for (i = 0; i < 20; i++) {
		printf "%d,", i % 3
		if (i == 16) { for (j = 0; j < 3 * 1048576 / 16; j++)
			printf "abcdefghijklmnop" } else printf "0123456789"
		print "" } }' >wide.csv
	csv2col wide.csv >wide.col
}

@test "one group more than the budget holds is exit 4 naming the budget that holds it" {
	make_wide
	# A 3 MiB max and a 3 MiB key: no partitioning splits one group.
	budget_refused colagg "max\(s\): one group's value is 3145728 bytes, more than the memory budget \(262144 bytes\) lets a group take: give -m [0-9]+M or more" \
	    256K --by k 'max(s)' wide.col
	budget_refused colagg "one group's key is 3145728 bytes, more than the memory budget \(1048576 bytes\) lets a group take: give -m [0-9]+M or more" \
	    1M -j1 --by s 'count(*)' wide.col
	# One key of 270000 values (k % 10 == 0 is a group of its own):
	# the median's values; on one thread and on two.
	awk 'BEGIN { print "k,v"; for (i = 0; i < 300000; i++)
		printf "%d,%d\n", i % 10 ? 1 : i, i }' >skew.csv
	csv2col skew.csv >skew.col
	budget_refused colagg "median\(v\): one group's values take 2160000 bytes, more than the memory budget \(262144 bytes\) lets a group take: give -m [0-9]+M or more" \
	    256K --by k 'median(v)' skew.col
	budget_refused colagg "string_agg\(CAST\(v AS string\), ','\): one group's values take [0-9]+ bytes, more than the memory budget \(262144 bytes\) lets a group take: give -m [0-9]+M or more" \
	    256K -j1 --by k "string_agg(v::varchar, ',')" skew.col
	# With --max-spill, the budget is what the message blames.
	run --separate-stderr colagg -m 256K --max-spill 1G --by k 'median(v)' skew.col
	status_is 4
	stderr_has "give -m "
	[[ $stderr != *max-spill* ]] || fail "blames --max-spill: $stderr"
}

@test "min and max of strings keep their value, not those they replaced" {
	# Rising strings: each row's replaces its group's max.  The table
	# held every one of them (16 MB charged under 256K); it holds the
	# live ones, and a partition's frame is merged in halves.
	awk 'BEGIN { y = "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
		print "k,s"; for (i = 0; i < 300000; i++)
		printf "%d,v%09d%s\n", i % 2, i, y }' >inc.csv
	csv2col inc.csv >inc.col
	# Without keys the table makes room for a batch's strings at once
	# (under 2 MB); with them a partition is merged in halves (0.3 MB).
	for a in "" "--by k"; do
		run --separate-stderr bash -c 'set -o pipefail; colagg "$@" |
		    col2csv --no-header | cut -c1-12 | sort' colagg -m 256K \
		    --stats $a 'max(s), min(s)' inc.col
		status_is 0
		[[ $stderr =~ peak\ charged\ ([0-9]+)\.([0-9])\ MB ]] ||
		    fail "no peak: $stderr"
		case $a in
		"") [ "${BASH_REMATCH[1]}" -lt 2 ] ;;
		*) [ "${BASH_REMATCH[1]}${BASH_REMATCH[2]}" -le 3 ] ;;
		esac || fail "peak: $stderr"
		spill_empty
	done
	[ "$output" = "$(printf '0,v000299998\n1,v000299999')" ] ||
	    fail "got $output"
}

@test "median and quantiles: usage errors are exit 2 with a caret" {
	run --separate-stderr colagg 'quantile_cont(i, 1.5)' t.col
	status_is 2
	stderr_has "the quantile must be a number from 0 to 1"
	run --separate-stderr colagg 'quantile_disc(i, d)' t.col
	status_is 2
	stderr_has "such as 0.9"
	run --separate-stderr colagg 'quantile_cont(i)' t.col
	status_is 2
	stderr_has "quantile_cont takes two arguments"
	run --separate-stderr colagg 'quantile_cont(s, 0.5)' t.col
	status_is 2
	stderr_has "quantile_cont does not take string"
}

@test "string_agg: the group's strings in input order, NULLs skipped, NULL for none" {
	# Worked by hand from t.csv; the median of strings is the lower
	# middle value (quantile_disc(s, 0.5)), as DuckDB's.
	agg_rows --by g "string_agg(s), string_agg(s, ' | '), string_agg(s, ''),
	    median(s), quantile_disc(s, 0), count(s)" t.col
	status_is 0
	stderr_empty
	cat >want <<-'E'
	,fig,fig,fig,fig,fig,1
	a,"pear,banana,pear",pear | banana | pear,pearbananapear,pear,banana,3
	b,"apple,kiwi,zucchini",apple | kiwi | zucchini,applekiwizucchini,kiwi,apple,3
	c,,,,,,0
	E
	diff want got || fail "string_agg differs"
	run --separate-stderr bash -c "colagg \"string_agg(s, '-') AS j,
	    median(s)\" t.col | colscan --schema"
	status_is 0
	assert_output "$(printf '%s\n' j:string 'median(s):string')"
	# Without --by, and with --sorted: the same order.
	agg_rows "string_agg(s, ';')" t.col
	[ "$(cat got)" = "pear;apple;fig;kiwi;banana;zucchini;pear" ] ||
		fail "one group: $(cat got)"
	run --separate-stderr bash -c "set -o pipefail; colsort -k g t.col |
	    colagg --sorted --by g \"string_agg(s, ';')\" | col2csv --no-header"
	status_is 0
	assert_output "$(printf '%s\n' 'a,pear;banana;pear' \
	    'b,apple;kiwi;zucchini' c, ',fig')"
}

@test "string_agg: input order at every budget, spilled below it" {
	# amount's groups are the 3 k's i, i + 100000, i + 200000, in that
	# order; each k a string of 4 words.
	tail -n +2 big.csv | awk -F, '{ n[$2]++; k[$2] = k[$2] (n[$2] > 1 ? "/" : "") "k " $1 " of " $2 }
	END { for (a in k) printf "%s,%s\n", a, k[a] }' | sort >want
	for m in 256K 1M 1G; do
		agg_rows -m $m --stats --by amount "string_agg('k ' ||
		    k::varchar || ' of ' || amount::varchar, '/')" big.col
		status_is 0
		[ "$(wc -l <got)" -eq 100000 ] || fail "-m $m: $(wc -l <got) groups"
		diff -q want got >/dev/null ||
			fail "-m $m: $(diff want got | head -5)"
		case $m in
		1G) stderr_has " 0 partitions, 0 levels" ;;
		*) [[ $stderr =~ \ ([1-9][0-9]*)\ partitions ]] ||
			fail "-m $m did not spill: $stderr" ;;
		esac
	done
	spill_empty
}

@test "string_agg: usage errors are exit 2 with a caret" {
	run --separate-stderr colagg 'string_agg(s, s)' t.col
	status_is 2
	stderr_has "the separator must be a string written out"
	stderr_has "^"
	run --separate-stderr colagg "string_agg(s, ',', 'x')" t.col
	status_is 2
	stderr_has "string_agg takes the strings and a separator"
	run --separate-stderr colagg 'string_agg(i)' t.col
	status_is 2
	stderr_has "string_agg does not take int64"
}

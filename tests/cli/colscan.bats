#!/usr/bin/env bats
# colscan.bats - colscan as users run it: --where, --select, --limit,
# --count and --schema in pipelines of csv2col, col2csv and colsort,
# against rows worked out by hand or by awk over the CSV; every parse
# and type error of the expression language with its caret line; bad
# input (overwritten frame bodies, streams cut inside a frame or at a
# frame boundary, mixed schemas), -o atomicity and --stats.

load helpers

# The small table: every column type, NULLs in every column but l's
# neighbours, a quoted column name, edge values in the last row.
SCHEMA='i:int32,l:int64,d:decimal(10,2),f:float64,dt:date,ts:timestamp,b:bool,s:string,odd name:string'

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	export LC_ALL=C
	cat >t.csv <<'EOF'
i,l,d,f,dt,ts,b,s,odd name
1,10,1.50,0.5,1995-01-15,1995-01-15 10:00:00,true,apple,x
2,-20,-2.25,1.5,1995-03-31,1995-03-31 23:59:59,false,Banana,y
,30,3.00,,1996-02-29,,,,
4,,,-4.5,,1996-12-31 00:00:00,true,cherry pie,z
5,50,5.05,2.5,1994-12-31,1994-12-31 12:00:00,false,  pad  ,"q""q"
2147483647,9223372036854775807,99999999.99,1e300,2000-01-01,2000-01-01 00:00:00,true,APPLE,w
EOF
	"$BIN/csv2col" -s "$SCHEMA" t.csv >t.col || true
	# 30 frames of 1000 rows: filters that keep none, some or all of
	# a frame, limits that end inside one.
	make_big big.csv 30000
	"$BIN/csv2col" --batch-rows 1000 big.csv >big.col || true
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export LC_ALL=C
	local f
	for f in t.csv t.col big.csv big.col; do
		ln -s "$BATS_FILE_TMPDIR/$f" "$f"
	done
	need csv2col col2csv colsort colscan
}

# scan ARGS...: colscan ARGS t.col | col2csv, with pipefail.
scan() {
	run --separate-stderr bash -c 'set -o pipefail
	    colscan "$@" t.col | col2csv' colscan "$@"
	no_crash
}

# frames FILE: "offset length" of each frame record of a one-stream
# file (length without the 32-byte record header), one a line.
frames() {
	local f=$1 off sl kind len
	sl=$(od -An -tu4 -j 20 -N4 "$f" | tr -d ' ')
	off=$((24 + (sl + 7) / 8 * 8 + 8))
	while :; do
		kind=$(od -An -tx4 -j "$off" -N4 "$f" | tr -d ' ')
		[ "$kind" = 4d415246 ] || break
		len=$(od -An -tu8 -j $((off + 8)) -N8 "$f" | tr -d ' ')
		echo "$off $len"
		off=$((off + 32 + len))
	done
}

# ---- --where ----

@test "AND, OR, NOT with NULLs: a row whose condition is NULL is dropped" {
	scan -w "i > 1 AND b" -s i
	status_is 0
	stderr_empty
	assert_output "$(printf 'i\n4\n2147483647')"
	# Row 3 (i and b NULL) is NULL OR NULL: dropped.
	scan -w "i > 1 OR b" -s i
	assert_output "$(printf 'i\n1\n2\n4\n5\n2147483647')"
	scan -w "NOT b" -s i
	assert_output "$(printf 'i\n2\n5')"
	# NULL AND FALSE is false, so NOT of it is true for row 3.
	scan -w "NOT (b AND FALSE)" -s l
	assert_output "$(printf 'l\n10\n-20\n30\n\n50\n9223372036854775807')"
	scan -w "b OR i IS NULL" -s l
	assert_output "$(printf 'l\n10\n30\n\n9223372036854775807')"
	for w in "NULL" "NOT NULL" "NULL AND TRUE" "FALSE" "i = NULL" \
	    "NULL <> NULL"; do
		run --separate-stderr colscan -c -w "$w" t.col
		status_is 0
		[ "$output" = 0 ] || fail "$w: $output rows pass, want 0"
	done
	for w in "TRUE" "NULL OR TRUE" "1 = 1" "NOT FALSE"; do
		run --separate-stderr colscan -c -w "$w" t.col
		[ "$output" = 6 ] || fail "$w: $output rows pass, want 6"
	done
}

@test "IS NULL, IS NOT NULL, BETWEEN, IN with and without NULL items" {
	scan -w "b IS NULL" -s l
	assert_output "$(printf 'l\n30')"
	scan -w "l IS NOT NULL AND d IS NULL" -s i
	assert_output "i"
	scan -w "d IS NULL" -s i
	assert_output "$(printf 'i\n4')"
	scan -w "i BETWEEN 2 AND 5" -s i
	assert_output "$(printf 'i\n2\n4\n5')"
	scan -w "i NOT BETWEEN 2 AND 5" -s i
	assert_output "$(printf 'i\n1\n2147483647')"
	scan -w "d BETWEEN -2.25 AND 3" -s d
	assert_output "$(printf 'd\n1.50\n-2.25\n3.00')"
	scan -w "i IN (1, 5, NULL)" -s i
	assert_output "$(printf 'i\n1\n5')"
	scan -w "i NOT IN (1, 5)" -s i
	assert_output "$(printf 'i\n2\n4\n2147483647')"
	# x NOT IN (1, NULL) is never true.
	scan -w "i NOT IN (1, NULL)" -s i
	assert_output "i"
	scan -w "s IN ('apple', 'APPLE', 'none')" -s i
	assert_output "$(printf 'i\n1\n2147483647')"
	scan -w "l IN (10, 9223372036854775807)" -s i
	assert_output "$(printf 'i\n1\n2147483647')"
}

@test "LIKE, ILIKE, NOT LIKE and the string functions" {
	scan -w "s LIKE 'a%'" -s s
	assert_output "$(printf 's\napple')"
	scan -w "s ILIKE 'a%'" -s s
	assert_output "$(printf 's\napple\nAPPLE')"
	scan -w "s NOT LIKE '%e%'" -s s
	assert_output "$(printf 's\nBanana\n  pad  \nAPPLE')"
	scan -w "s LIKE '_pple'" -s s
	assert_output "$(printf 's\napple')"
	scan -w "s LIKE '%pad%' OR s LIKE '%pie'" -s i
	assert_output "$(printf 'i\n4\n5')"
	scan -w "s ILIKE '%AN_N%'" -s i
	assert_output "$(printf 'i\n2')"
	scan -w "s NOT ILIKE 'apple'" -s i
	assert_output "$(printf 'i\n2\n4\n5')"
	scan -s "upper(s) AS u, lower(s) AS lo, length(s) AS n, trim(s) AS t, ltrim(s) AS lt, rtrim(s) AS rt, starts_with(s, 'ap') AS sw, contains(s, 'an') AS c, concat(s, '-', i) AS cc, s || '!' AS bang"
	status_is 0
	assert_output "$(cat <<'EOF'
u,lo,n,t,lt,rt,sw,c,cc,bang
APPLE,apple,5,apple,apple,apple,true,false,apple-1,apple!
BANANA,banana,6,Banana,Banana,Banana,false,true,Banana-2,Banana!
,,,,,,,,-,
CHERRY PIE,cherry pie,10,cherry pie,cherry pie,cherry pie,false,false,cherry pie-4,cherry pie!
  PAD  ,  pad  ,7,pad,pad  ,  pad,false,false,  pad  -5,  pad  !
APPLE,apple,5,APPLE,APPLE,APPLE,false,false,APPLE-2147483647,APPLE!
EOF
)"
}

@test "CASE, CAST and ::, coalesce, nullif, greatest, least" {
	scan -s "i, CASE WHEN i < 3 THEN 'small' WHEN i < 10 THEN 'mid' ELSE 'big' END AS sz, CASE i WHEN 1 THEN 'one' END AS o"
	status_is 0
	assert_output "$(printf 'i,sz,o\n1,small,one\n2,small,\n,big,\n4,mid,\n5,mid,\n2147483647,big,')"
	scan -s "CAST(i AS int64) * 10 AS x, l::string || '!' AS y, d::float64 AS z, '42'::int32 + 1 AS w, cast(d AS int32) AS di"
	status_is 0
	assert_output "$(cat <<'EOF'
x,y,z,w,di
10,10!,1.5,43,2
20,-20!,-2.25,43,-2
,30!,3,43,3
40,,,43,
50,50!,5.05,43,5
21474836470,9223372036854775807!,99999999.99,43,100000000
EOF
)"
	scan -s "coalesce(i, -1) AS c, nullif(i, 2) AS n, greatest(i, 3) AS g, least(i, l) AS le"
	status_is 0
	assert_output "$(printf 'c,n,g,le\n1,1,3,1\n2,,3,-20\n-1,,3,30\n4,4,4,4\n5,5,5,5\n2147483647,2147483647,2147483647,2147483647')"
	# A branch not taken cannot fail: row 6 would overflow.
	scan -w "CASE WHEN i < 100 THEN i + 1 > 0 ELSE FALSE END" -s i
	status_is 0
	assert_output "$(printf 'i\n1\n2\n4\n5')"
}

@test "date literals, INTERVAL arithmetic, date parts" {
	scan -s "dt, dt + INTERVAL 1 MONTH AS m, dt - INTERVAL '10' DAY AS d10, dt + INTERVAL 1 YEAR AS y, DATE '1995-03-01' - dt AS diff, year(dt) AS yy, month(dt) AS mm, day(dt) AS dd, extract(year FROM ts) AS ey, dt + 1 AS p1"
	status_is 0
	assert_output "$(cat <<'EOF'
dt,m,d10,y,diff,yy,mm,dd,ey,p1
1995-01-15,1995-02-15 00:00:00,1995-01-05 00:00:00,1996-01-15 00:00:00,45,1995,1,15,1995,1995-01-16
1995-03-31,1995-04-30 00:00:00,1995-03-21 00:00:00,1996-03-31 00:00:00,-30,1995,3,31,1995,1995-04-01
1996-02-29,1996-03-29 00:00:00,1996-02-19 00:00:00,1997-02-28 00:00:00,-365,1996,2,29,,1996-03-01
,,,,,,,,1996,
1994-12-31,1995-01-31 00:00:00,1994-12-21 00:00:00,1995-12-31 00:00:00,60,1994,12,31,1994,1995-01-01
2000-01-01,2000-02-01 00:00:00,1999-12-22 00:00:00,2001-01-01 00:00:00,-1767,2000,1,1,2000,2000-01-02
EOF
)"
	scan -w "dt >= '1995-01-01' AND dt < DATE '1995-01-01' + INTERVAL 1 YEAR" -s dt
	assert_output "$(printf 'dt\n1995-01-15\n1995-03-31')"
	scan -w "ts > '1995-06-01 00:00:00'" -s ts
	assert_output "$(printf 'ts\n1996-12-31 00:00:00\n2000-01-01 00:00:00')"
	scan -w "ts < TIMESTAMP '1995-01-15 10:00:00' + INTERVAL 1 DAY" -s i
	assert_output "$(printf 'i\n1\n5')"
	scan -w "dt = ts" -s i
	assert_output "$(printf 'i\n2147483647')"
}

@test "a pipeline over 30 frames keeps what awk keeps" {
	run --separate-stderr bash -c 'set -o pipefail
	    csv2col big.csv | colscan -w "k % 7 = 0 AND label LIKE '\''label 1%'\''" -s "label, k, k * 3 AS t" | col2csv'
	status_is 0
	stderr_empty
	awk -F, 'BEGIN { print "label,k,t" }
	    NR > 1 && $1 % 7 == 0 && $4 ~ /^label 1/ { print $4 "," $1 "," $1 * 3 }' \
	    big.csv >want.csv
	[ "$(wc -l <want.csv)" -gt 100 ] || fail "too few rows to mean much"
	printf '%s\n' "$output" | cmp - want.csv || fail "differs from awk"
	# Dates and decimals from a file, against awk's string compare.
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -w "day BETWEEN DATE '\''1980-01-01'\'' AND DATE '\''1989-12-31'\'' AND amount >= 500.5" -s "k, amount" big.col | col2csv --no-header'
	status_is 0
	awk -F, 'NR > 1 && $3 >= "1980-01-01" && $3 <= "1989-12-31" &&
	    $2 + 0 >= 500.5 { print $1 "," $2 }' big.csv >want2.csv
	printf '%s\n' "$output" | cmp - want2.csv || fail "dates differ from awk"
	# Every row and none; every row passed through is the same
	# frames.
	run --separate-stderr bash -c 'colscan -w "k > 0" big.col | cmp - big.col'
	status_is 0
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -w "k > 0" big.col | col2csv | cmp - big.csv'
	status_is 0
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -w "k < 0" big.col | col2csv'
	status_is 0
	assert_output "k,amount,day,label"
}

@test "conditions over 30 frames select the rows sqlite3 selects" {
	command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
	sqlite3 b.db "CREATE TABLE big(k INTEGER, amount REAL, day TEXT, label TEXT);" \
	    ".mode csv" ".import --skip 1 big.csv big"
	local w bad=
	while IFS= read -r w; do
		colscan -w "$w" -s "k, label" big.col | col2csv --no-header >got.csv ||
			{ bad+="[$w]: colscan failed"$'\n'; continue; }
		sqlite3 -list -separator , b.db "PRAGMA case_sensitive_like=ON;" \
		    "SELECT k, label FROM big WHERE $w ORDER BY k;" >want.csv
		cmp -s got.csv want.csv ||
			bad+="[$w]: $(wc -l <got.csv) rows, sqlite3 $(wc -l <want.csv)"$'\n'
	done <<'EOF2'
k % 7 = 0 AND label LIKE 'label 1%'
NOT (k BETWEEN 100 AND 20000) OR label IN ('label 5', 'label 500')
day >= '1985-01-01' AND day < '1986-01-01'
amount > 999.5 AND amount < 1000.5
label NOT LIKE '%5%' AND k < 3000
length(label) = 7 AND k % 3 <> 1
CASE WHEN k % 2 = 0 THEN amount > 50 ELSE day < '1975-01-01' END
upper(label) = 'LABEL 12' OR lower(label) = 'label 13'
k % 13 IN (1, 2, 3) AND NOT label LIKE '%1'
label LIKE 'label _' OR label LIKE '%9_9'
(k < 100 OR k > 29900) AND NOT (k % 2 = 0 AND amount < 50)
k - 3 * (k % 3) = 30 AND k <= 300
coalesce(nullif(k % 10, 0), 99) = 99 AND k < 500
EOF2
	[ -z "$bad" ] || fail "$bad"
}

@test "colscan | colsort, and stdin, '-', several inputs, <(...)" {
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -w "k % 1000 = 0" -s "label, k" <big.col |
	    colsort -k label -k k:desc | col2csv --no-header'
	status_is 0
	awk -F, 'NR > 1 && $1 % 1000 == 0 { print $4 "," $1 }' big.csv |
	    sort -t, -k1,1 -k2,2nr >want.csv
	printf '%s\n' "$output" | cmp - want.csv || fail "differs from sort(1)"
	run --separate-stderr colscan -c big.col - big.col <big.col
	status_is 0
	assert_output 90000
	run --separate-stderr bash -c 'cat big.col big.col | colscan -c -w "k <= 10"'
	assert_output 20
	run --separate-stderr bash -c 'colscan -c -w "k <= 10" big.col <(cat big.col) -'  <big.col
	status_is 0
	assert_output 30
	# Concatenated in order: the rows of each input in turn.
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -w "k <= 2 OR k = 30000" -s k big.col - <big.col | col2csv --no-header | tr "\n" " "'
	assert_output "1 2 30000 1 2 30000 "
}

@test "-z output, compressed input, concatenated streams in one file" {
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -z -w "k % 5000 = 0" big.col | colscan -s "label, k" | col2csv --no-header | tr "\n" " "'
	status_is 0
	assert_output "label 115,5000 label 230,10000 label 345,15000 label 460,20000 label 575,25000 label 690,30000 "
	colscan -z9 big.col >z.col
	[ "$(filesize z.col)" -lt "$(stat -L -c %s big.col)" ] || fail "-z9 did not compress"
	# Only the last column is decoded; the compressed ones before it
	# are skipped.
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -s label -w "label = '\''label 976'\''" z.col | col2csv --no-header | wc -l'
	status_is 0
	assert_output "$(awk -F, '$4 == "label 976"' big.csv | wc -l)"
	cat big.col z.col big.col >three.col
	run --separate-stderr colscan -c three.col
	assert_output 90000
	run --separate-stderr colscan -c -n 45000 three.col
	assert_output 45000
	run --separate-stderr colscan -c -w "k = 30000" three.col
	assert_output 3
	# Rows are numbered from the start of the file, across its streams.
	run --separate-stderr colscan -w "k < 30000 OR cast(label AS int32) > 0" three.col -o out.col
	status_is 3
	stderr_has "three.col: row 30000: cannot read 'label 690' as int32"
}

@test "inputs with different schemas are exit 3" {
	run --separate-stderr colscan big.col t.col
	status_is 3
	no_crash
	stderr_has "columns differ"
	stderr_has "t.col"
	run --separate-stderr bash -c 'cat big.col t.col | colscan -c'
	status_is 3
	stderr_has "schema mismatch"
}

# ---- --select ----

@test "--select: *, EXCLUDE, names, quoted names, AS, computed names" {
	scan -s "*"
	status_is 0
	cmp <(printf '%s\n' "$output") <(col2csv t.col) ||
	    fail "* is not every column"
	scan -s "* EXCLUDE (d, f, dt, ts, \"odd name\"), i * 2 AS twice" -w "i < 6"
	status_is 0
	assert_output "$(printf 'i,l,b,s,twice\n1,10,true,apple,2\n2,-20,false,Banana,4\n4,,true,cherry pie,8\n5,50,false,  pad  ,10')"
	scan -s "* EXCLUDE (d, f, dt, ts, \"odd name\", I)"
	status_is 0
	assert_output "$(printf 'l,b,s\n10,true,apple\n-20,false,Banana\n30,,\n,true,cherry pie\n50,false,  pad  \n9223372036854775807,true,APPLE')"
	# Pass-through columns in any order, renamed, quoted, twice.
	scan -s "\"odd name\", s AS \"x y\", \"odd name\" AS o2, l" -w "i < 6"
	status_is 0
	assert_output "$(cat <<'EOF'
odd name,x y,o2,l
x,apple,x,10
y,Banana,y,-20
z,cherry pie,z,
"q""q",  pad  ,"q""q",50
EOF
)"
	# Case-insensitive when unambiguous.
	run --separate-stderr colscan -s "I, ODD NAME" t.col
	status_is 2
	stderr_has "unexpected 'NAME' after the select list"
	scan -s "I, \"ODD NAME\" AS q" -w "L = 10"
	status_is 0
	assert_output "$(printf 'i,q\n1,x')"
	run --separate-stderr colscan --schema -s "i + 1, l * 2, s || 'x', i::int64, abs(d)" t.col
	status_is 0
	assert_output "$(printf '(i + 1):int32\n(l * 2):int64\n(s || '\''x'\''):string\nCAST(i AS int64):int64\nabs(d):decimal(10,2)')"
}

@test "--schema: exact output, reads no row" {
	run --separate-stderr colscan --schema t.col
	status_is 0
	stderr_empty
	assert_output "$(printf '%s\n' i:int32 l:int64 'd:decimal(10,2)' f:float64 dt:date ts:timestamp b:bool s:string 'odd name:string')"
	# A stream cut right after its header has no row to read.
	local h
	h=$(frames big.col | head -n 1 | cut -d' ' -f1)
	head -c "$h" big.col >hdr.col
	run --separate-stderr colscan --schema -s "k, year(day) AS y, k * 2 AS k2, amount::float64 AS a2, label AS l" hdr.col
	status_is 0
	stderr_empty
	assert_output "$(printf 'k:int64\ny:int64\nk2:int64\na2:float64\nl:string')"
	run --separate-stderr bash -c 'head -c '"$h"' big.col | colscan --schema -w "k > 1" -s "* EXCLUDE (amount)"'
	status_is 0
	assert_output "$(printf 'k:int64\nday:date\nlabel:string')"
	# But it is still checked as an expression.
	run --separate-stderr colscan --schema -s "nosuch" hdr.col
	status_is 2
	# And scanning that stream is truncated.
	run --separate-stderr colscan -c hdr.col
	status_is 3
	stderr_has "truncated"
}

# ---- --limit ----

@test "--limit: 0, fewer than the rows, more, and an upstream that ends quietly" {
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -n 0 big.col | col2csv'
	status_is 0
	assert_output "k,amount,day,label"
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -n 1500 -w "k % 2 = 0" big.col | col2csv --no-header'
	status_is 0
	awk -F, 'NR > 1 && $1 % 2 == 0' big.csv | head -n 1500 >want.csv
	printf '%s\n' "$output" | cmp - want.csv || fail "differs from head"
	run --separate-stderr bash -c 'set -o pipefail
	    colscan --limit 100000 big.col | col2csv | cmp - big.csv'
	status_is 0
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -n 3 t.col | col2csv'
	assert_output "$(head -n 4 t.csv)"
	# It reads no further than it needs: one frame for 3 rows.
	run --separate-stderr colscan --stats -n 3 big.col -o out.col
	status_is 0
	stderr_has "1000 rows in, 3 rows out, 1 inputs, 1 frames"
	# A producer that keeps writing is cut off by the pipe; colscan
	# and its reader end cleanly.
	run --separate-stderr bash -c 'set -o pipefail
	    { cat big.col; cat big.col; cat big.col; } |
	    colscan -n 2 | col2csv --no-header; echo "${PIPESTATUS[1]} ${PIPESTATUS[2]}"'
	assert_output "$(printf '1,1.01,1971-02-02,label 1\n2,2.02,1972-03-03,label 2\n0 0')"
	run --separate-stderr bash -c 'colscan big.col | colscan -n 5 | col2csv --no-header | wc -l'
	assert_output 5
}

@test "--limit: rows past the limit are not evaluated, so cannot fail" {
	# Row 6 overflows i + 1; the first four rows that pass do not.
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -n 2 -s "i + 1 AS j" t.col | col2csv --no-header'
	status_is 0
	assert_output "$(printf '2\n3')"
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -n 3 -w "i + 1 > 2" -s i t.col | col2csv --no-header'
	status_is 0
	assert_output "$(printf '2\n4\n5')"
	run --separate-stderr colscan -c -n 3 -w "i + 1 > 2" t.col
	status_is 0
	assert_output 3
	# The fourth is row 6: its error is the user's.
	run --separate-stderr colscan -n 4 -w "i + 1 > 2" -s i t.col -o out.col
	status_is 3
	stderr_has "t.col: row 6: int32 overflow in 'i + 1'"
	run --separate-stderr colscan -c -n 4 -w "i + 1 > 2" t.col
	status_is 3
	stderr_has "t.col: row 6: int32 overflow"
	# Inside the second of 30 frames: rows from 1600 on cannot cast.
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -n 1500 -w "k < 1600 OR cast(label AS int32) > 0" -s k big.col |
	    col2csv --no-header | tail -n 1'
	status_is 0
	assert_output 1500
	run --separate-stderr colscan -c -n 1599 -w "k < 1600 OR cast(label AS int32) > 0" big.col
	status_is 0
	assert_output 1599
	run --separate-stderr colscan -c -n 1600 -w "k < 1600 OR cast(label AS int32) > 0" big.col
	status_is 3
	stderr_has "big.col: row 1600: cannot read 'label 623' as int32"
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -n 1234 -s "CASE WHEN k <= 1234 THEN k ELSE cast(label AS int64) END AS x" big.col |
	    col2csv --no-header | tail -n 1'
	status_is 0
	assert_output 1234
	# The 1073rd even k is 2146, and 2148 * 1000000 is past int32.
	run --separate-stderr bash -c 'set -o pipefail
	    colscan -n 1073 -w "k % 2 = 0" -s "cast(k AS int32) * 1000000 AS x" big.col |
	    col2csv --no-header | tail -n 1'
	status_is 0
	assert_output 2146000000
	run --separate-stderr colscan -n 1074 -w "k % 2 = 0" -s "cast(k AS int32) * 1000000 AS x" -o out.col big.col
	status_is 3
	stderr_has "big.col: row 2148: int32 overflow"
}

# ---- --count ----

@test "--count with and without --where equals the rows written" {
	local w n m
	for w in "" "k % 7 = 0" "k < 0" "label LIKE '%7'" "k > 0"; do
		if [ -z "$w" ]; then
			n=$(colscan -c big.col)
			m=$(colscan big.col | col2csv --no-header | wc -l)
		else
			n=$(colscan -c -w "$w" big.col)
			m=$(colscan -w "$w" big.col | col2csv --no-header | wc -l)
		fi
		[ "$n" = "$m" ] || fail "--where '$w': count $n, rows $m"
	done
	run --separate-stderr colscan -c -w "k % 7 = 0" big.col
	assert_output "$(awk -F, 'NR > 1 && $1 % 7 == 0' big.csv | wc -l)"
	run --separate-stderr colscan -c big.col
	assert_output 30000
	run --separate-stderr colscan -c -n 5 big.col
	assert_output 5
	run --separate-stderr colscan -c -n 0 big.col
	assert_output 0
	run --separate-stderr colscan -c -n 50000 -w "k > 29990" big.col
	assert_output 10
	run --separate-stderr bash -c 'csv2col t.csv | colscan --count -w "b"'
	assert_output 3
	# A value error in the filter is still an error.
	run --separate-stderr colscan -c -w "i + 1 > 0" t.col
	status_is 3
	stderr_has "t.col: row 6: int32 overflow in 'i + 1'"
}

@test "--count without a filter reads only headers; a full scan checks bodies" {
	cp big.col z.col
	frames z.col | while read -r o l; do
		dd if=/dev/zero of=z.col bs=8 seek=$(((o + 32) / 8)) \
		    count=$((l / 8)) conv=notrunc status=none
	done
	cmp -s big.col z.col && fail "the bodies were not overwritten"
	run --separate-stderr colscan -c z.col
	status_is 0
	assert_output 30000
	run --separate-stderr colscan z.col
	status_is 3
	stderr_has "z.col: corrupt stream: frame at byte"
	stderr_has "checksum mismatch"
	run --separate-stderr colscan -c -w "k > 0" z.col
	status_is 3
	stderr_has "checksum mismatch"
	# From a pipe the bodies are read, so checked.
	run --separate-stderr bash -c 'cat z.col | colscan -c'
	status_is 3
	stderr_has "checksum mismatch"
}

@test "--count: a stream cut inside a frame or at a frame boundary is truncated" {
	local sz b2 cut
	sz=$(stat -L -c %s big.col)
	b2=$(frames big.col | sed -n 3p | cut -d' ' -f1)
	for cut in 50000 "$b2" $((sz - 32)) $((sz - 1)) $((b2 + 16)); do
		head -c "$cut" big.col >cut.col
		run --separate-stderr colscan -c cut.col
		status_is 3
		stderr_has "cut.col: truncated stream"
		run --separate-stderr bash -c 'cat cut.col | colscan -c'
		status_is 3
		stderr_has "stdin: truncated stream"
		run --separate-stderr colscan -c - <cut.col
		status_is 3
		stderr_has "truncated stream"
		run --separate-stderr colscan -c -w "k > 0" cut.col
		status_is 3
		stderr_has "truncated stream"
		run --separate-stderr colscan -s k cut.col
		status_is 3
		stderr_has "truncated stream"
	done
	# Cut in the second of two files.
	head -c 50000 big.col >cut.col
	run --separate-stderr colscan -c big.col cut.col
	status_is 3
	stderr_has "cut.col: truncated"
}

# ---- -o, --stats, options ----

@test "-o: a run failing on a row leaves the old file, names file and row" {
	mkdir o
	echo old >o/out.col
	run --separate-stderr colscan -o o/out.col -s "i + 1 AS j" t.col
	status_is 3
	no_crash
	stderr_has "colscan: t.col: row 6: int32 overflow in 'i + 1'"
	[ "$(cat o/out.col)" = old ] || fail "out.col was changed"
	[ "$(ls -A o)" = out.col ] || fail "left behind: $(ls -A o)"
	# Row numbers count from the start of each file.
	run --separate-stderr colscan -o out.col -s "cast(label AS int32) AS x" -w "k > 2500" big.col
	status_is 3
	stderr_has "big.col: row 2501: cannot read 'label 547' as int32"
	run --separate-stderr colscan -o out.col -w "i * 1000 > 0" t.col
	status_is 3
	stderr_has "t.col: row 6: int32 overflow in 'i * 1000'"
	run --separate-stderr colscan -o out.col -w "i < 3" t.col
	status_is 0
	run --separate-stderr col2csv out.col
	assert_output "$(head -n 3 t.csv)"
	# A usage error is found before any output is made.
	run --separate-stderr colscan -o new.col -w "nosuch" t.col
	status_is 2
	[ ! -e new.col ] || fail "new.col made on a usage error"
	run --separate-stderr colscan -o t.col t.col
	status_is 2
	stderr_has "the output is also an input"
}

@test "a failing scan in a pipeline leaves the stream truncated downstream" {
	run --separate-stderr bash -c 'colscan -s "l + 1 AS m" t.col | col2csv'
	status_is 3
	stderr_has "colscan: t.col: row 6: int64 overflow in 'l + 1'"
	stderr_has "col2csv: stdin: truncated stream"
}

@test "a pass-through from pipe to pipe: the input byte for byte, still checked" {
	# Nothing to do, stdin and stdout pipes: the bytes are passed on
	# by the kernel and only read to be checked.
	run --separate-stderr bash -c 'set -o pipefail
	    cat big.col | colscan --stats | cat >out.col'
	status_is 0
	stderr_has "30000 rows in, 30000 rows out, 1 inputs, 30 frames"
	cmp big.col out.col || fail "the output is not the input"
	# Concatenated streams go on as they came: one table downstream.
	run --separate-stderr bash -c 'set -o pipefail
	    cat big.col t.col big.col | colscan | colscan -c'
	status_is 3
	stderr_has "colscan: stdin: "
	run --separate-stderr bash -c 'set -o pipefail
	    cat big.col big.col | colscan | colscan -c'
	status_is 0
	assert_output 60000
	cat big.col big.col | colscan | cmp - <(cat big.col big.col) ||
	    fail "two streams did not pass as they came"
	# A frame body overwritten: colscan says so (exit 3), and so does
	# the reader behind it, which got the bytes.
	local off len
	read -r off len < <(frames big.col | sed -n 7p)
	cp big.col bad.col
	printf 'XXXX' | dd of=bad.col bs=1 seek=$((off + 32 + len / 2)) \
	    conv=notrunc status=none
	run --separate-stderr bash -c 'cat bad.col | colscan | colscan -c'
	status_is 3
	stderr_matches "^colscan: stdin: .*(checksum|corrupt)"
	run --separate-stderr bash -c 'set -o pipefail
	    cat bad.col | colscan | cat >/dev/null'
	status_is 3
	# Cut inside a frame: truncated here as downstream.
	head -c $((off + 100)) big.col >cut_in.col
	run --separate-stderr bash -c 'set -o pipefail
	    cat cut_in.col | colscan | cat >cut.col'
	status_is 3
	stderr_has "colscan: stdin: truncated stream"
	cmp cut.col cut_in.col || fail "cut differs"
	# A reader that stops early ends the pass-through quietly.
	run --separate-stderr bash -c 'set -o pipefail
	    cat big.col big.col big.col | colscan | head -c 1000 | wc -c'
	assert_output 1000
	stderr_empty
}

@test "--stats prints rows in and out" {
	run --separate-stderr colscan --stats -w "k <= 1500" -o out.col big.col
	status_is 0
	stderr_matches "^colscan: 30000 rows in, 1500 rows out, 1 inputs, 30 frames, 0 row groups read, 0 skipped, 0 pages read, 0 skipped, [0-9.]+ MB in, [0-9.]+ s, peak memory [0-9.]+ MB$"
	run --separate-stderr colscan --stats -c big.col
	status_is 0
	assert_output 30000
	stderr_has "30000 rows in, 30000 rows out, 1 inputs, 30 frames"
}

@test "option errors are exit 2" {
	local a
	for a in "-w a -w b" "-s a -s b" "-c --schema" "-c -z" "-n x" "-n -1" \
	    "--nosuch"; do
		# shellcheck disable=SC2086
		run --separate-stderr colscan $a t.col
		status_is 2
		no_crash
		stdout_empty
	done
	run --separate-stderr colscan -w a -w b t.col
	stderr_has "--where given twice"
	run --separate-stderr colscan --schema -z t.col
	status_is 2
	stderr_has "--schema prints text: -z makes no sense with it"
	run --separate-stderr colscan -c -z5 t.col
	status_is 2
	stderr_has "--count prints text: -z makes no sense with it"
	run --separate-stderr colscan --help
	status_is 0
	assert_output --partial "usage: colscan"
}

# ---- expression errors ----

# check_errors OPTION: each line of stdin is EXPR<TAB>MESSAGE; colscan
# OPTION EXPR must exit 2 with "colscan: OPTION: MESSAGE" on the first
# line of stderr and, when the message names a column, the expression
# and a caret line under it.
check_errors() {
	local opt=$1 expr want line1 caret bad=
	while IFS=$'\t' read -r expr want; do
		[ -n "$expr" ] || continue
		run --separate-stderr colscan "$opt" "$expr" t.col
		no_crash
		line1=${stderr%%$'\n'*}
		if [ "$status" -ne 2 ]; then
			bad+="[$expr]: status $status: $stderr"$'\n'
		elif [[ $line1 != "colscan: $opt: $want"* ]]; then
			bad+="[$expr]: got: $line1"$'\n'"    want: colscan: $opt: $want"$'\n'
		elif [[ $want == column* ]]; then
			caret=$(printf '%s\n' "$stderr" | sed -n 3p)
			[[ $caret =~ ^\ \ \ *\^+$ ]] ||
				bad+="[$expr]: no caret line: $stderr"$'\n'
		fi
		[ -n "$output" ] && bad+="[$expr]: wrote to stdout"$'\n'
	done
	[ -z "$bad" ] || fail "$bad"
}

@test "parse errors of --where: message, caret, exit 2" {
	check_errors --where <<'EOF'
i +	column 4: expected an expression
i = 'abc	column 5: unterminated string
"abc	column 1: unterminated quoted name
"a""	column 1: unterminated quoted name
""	column 1: empty quoted name
1x	column 1: bad number '1x'
1.5.5 > 1	column 1: bad number '1.5.5'
@	column 1: unexpected character '@'
i between 1	column 12: expected AND
i not 3	column 3: expected BETWEEN, IN, LIKE or ILIKE after NOT
i is 3	column 6: expected NULL or NOT NULL
i is not 3	column 10: expected NULL
case when i then 1	column 19: expected WHEN, ELSE or END
case i when 1 then 2 else 3	column 28: expected END
case i 1	column 8: expected WHEN
case when i=1 2 end	column 15: expected THEN
cast(i as foo)	column 11: unknown type 'foo'
cast i	column 6: expected '(' after CAST
cast(i int)	column 8: expected AS
i::	column 4: expected a type name
i in (1	column 8: expected ',' or ')'
i in 1	column 6: expected '('
i in (1 2)	column 9: expected ',' or ')'
abs(i	column 6: expected ',' or ')'
abs(i,,)	column 7: expected an expression
count(distinct)	column 15: expected an expression
date 'x'	column 6: bad date 'x'
date '1995-02-30'	column 6: bad date '1995-02-30'
timestamp '1995-13-01 00:00:00'	column 11: bad timestamp '1995-13-01 00:00:00'
interval 'x' day	column 10: bad interval quantity 'x'
dt + interval 3 week	column 17: expected DAY, MONTH or YEAR
dt + interval '3'	column 18: expected DAY, MONTH or YEAR
i = 1 )	column 7: unexpected ')' after the expression
i = 1 j	column 7: unexpected 'j' after the expression
i = 1 AS x	column 7: unexpected 'AS' after the expression
	column 1: empty expression
EOF
	# Empty and blank: the loop above skips an empty line.
	for w in "" "   "; do
		run --separate-stderr colscan -w "$w" t.col
		status_is 2
		stderr_has "column 1: empty expression"
	done
	run --separate-stderr colscan -w "$(printf 'i = \001')" t.col
	status_is 2
	stderr_has "column 5: unexpected byte 0x01"
	# A long token is cut short in the message; a long expression is
	# shown as a window around the error, the caret under it.
	run --separate-stderr colscan -w "i = 1 $(printf 'a%.0s' $(seq 60))" t.col
	status_is 2
	stderr_has "column 7: unexpected 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' after the expression"
	local long k line2 line3 pre
	long="i = 1 AND "
	for k in $(seq 20); do long+="i <> $k AND "; done
	long+="nosuch = 3"
	for k in $(seq 20); do long+=" AND i <> $k"; done
	run --separate-stderr colscan -w "$long" t.col
	status_is 2
	stderr_has "column 242: unknown column 'nosuch'"
	line2=$(printf '%s\n' "$stderr" | sed -n 2p)
	line3=$(printf '%s\n' "$stderr" | sed -n 3p)
	[[ $line2 == "  ..."*"..." ]] || fail "no window: $line2"
	[ "${#line2}" -lt 100 ] || fail "window too wide: $line2"
	pre=${line2%%nosuch*}
	[ "$line3" = "$(printf '%*s^^^^^^' "${#pre}" '')" ] ||
		fail "caret not under nosuch: $stderr"
	# Nesting: 1000 levels are fine, 1001 are refused, by parentheses
	# and by a chain of operators alike.
	local p q
	p=$(printf '(%.0s' $(seq 999)); q=$(printf ')%.0s' $(seq 999))
	run --separate-stderr colscan -c -w "${p}i${q} = 1" t.col
	status_is 0
	assert_output 1
	p=$(printf '(%.0s' $(seq 1001)); q=$(printf ')%.0s' $(seq 1001))
	run --separate-stderr colscan -c -w "${p}i${q} = 1" t.col
	status_is 2
	stderr_has "expression nested too deeply (limit 1000)"
	p=$(printf 'i + %.0s' $(seq 1001))
	run --separate-stderr colscan -c -w "${p}i > 0" t.col
	status_is 2
	stderr_has "expression nested too deeply (limit 1000)"
	p=$(printf 'NOT %.0s' $(seq 1002))
	run --separate-stderr colscan -c -w "${p}b" t.col
	status_is 2
	stderr_has "expression nested too deeply (limit 1000)"
}

@test "type errors of --where: message, caret, exit 2" {
	check_errors --where <<'EOF'
i	column 1: a filter must be a condition (boolean), not int32
s || 'x'	column 1: a filter must be a condition (boolean), not string
d + 1	column 1: a filter must be a condition (boolean), not decimal(13,2)
nosuch > 1	column 1: unknown column 'nosuch'; the columns are i, l, d, f, dt, ts, b, s, odd name
I_ > 1	column 1: unknown column 'I_' (did you mean 'i'?); the columns are i, l, d, f, dt, ts, b, s, odd name
odd_name = 'x'	column 1: unknown column 'odd_name' (did you mean 'odd name'?)
i + s > 1	column 5: cannot apply '+' to int32 and string
s + 1 > 1	column 1: cannot apply '+' to string and int32
i % 'a' = 1	column 5: cannot apply '%' to int32 and string
-s = 'a'	column 2: cannot apply '-' to string
not i	column 5: NOT needs a bool, not int32
i and b	column 1: AND needs a bool, not int32
b or s	column 6: OR needs a bool, not string
case when i then 1 end = 1	column 11: WHEN needs a bool, not int32
i = s	column 5: cannot compare int32 with string
dt = 1	column 6: cannot compare date with int32
nullif(i, s) = 1	column 11: cannot compare int32 with string
i in (1, 'a')	column 10: cannot read 'a' as int32
i between 'a' and 2	column 11: cannot read 'a' as int32
case when 'x'::int = 1 then 1 end = 1	column 11: cannot read 'x' as int32
cast('abc' as int32) = 1	column 1: cannot read 'abc' as int32
2147483647 + 1 > 0	column 1: int32 overflow
i like 'a%'	column 1: LIKE needs a string, not int32
s like s	column 8: a LIKE pattern must be a constant for now
s like 1	column 8: a LIKE pattern is a string, not int32
cast(dt as int32) = 1	column 1: cannot cast date to int32
cast(b as date) is null	column 1: cannot cast bool to date
abs(s) = 1	column 5: abs does not take string
lower(i) = 'a'	column 7: lower does not take int32
length(dt) = 1	column 8: length does not take date
year(i) = 1	column 6: year does not take int32
starts_with(s, 1)	column 16: starts_with does not take int32
round(f, i) > 1	column 10: round takes a constant integer of digits
greatest(i, s) = 1	column 13: cannot mix int32 and string
nosuch(i) = 1	column 1: unknown function nosuch()
count(*) = 1	column 1: unknown function count()
abs(i, i) = 1	column 1: abs() takes 1 argument
upper(s, s) = 'A'	column 1: upper() takes 1 argument
coalesce() is null	column 1: coalesce() takes 1 to 1000 arguments
i + interval 1 day is null	column 1: an interval is added to a date or timestamp, not int32
interval 1 day is null	column 1: an interval goes only after + or - next to a date or timestamp
dt + interval 2000000 day is null	column 6: interval out of range
100000000000000000000000000000000000000 > 1	column 1: integer out of range '100000000000000000000000000000000000000'
i < -170141183460469231731687303715884105728	column 5: integer out of range '-170141183460469231731687303715884105728'
l = 0340282366920938463463374607431768211455	column 5: integer out of range '340282366920938463463374607431768211455'
99999999999999999999999999999999999999 + 1 > i	column 1: decimal(38,0) overflow
EOF
}

@test "a constant error in a CASE branch or a later coalesce argument: raised only if a row reaches it" {
	printf 'b,i\ntrue,1\nfalse,2\n' | csv2col >t3.col
	# No row reaches it: no error, as DuckDB.
	for e in "CASE WHEN i > 5 THEN log10(-9.75) ELSE 1 END" \
	    "CASE WHEN TRUE THEN 1 ELSE log10(-1) END" \
	    "coalesce(i, log10(-1))" "CASE WHEN b OR NOT b THEN 1 ELSE 'x' END"; do
		run --separate-stderr bash -c "set -o pipefail; colscan \
		    -w 'NOT b OR b' -s \"\$1 AS x\" t3.col |
		    col2csv --no-header | tr '\n' ' '" _ "$e"
		status_is 0
		[ -n "$output" ] || fail "$e: no rows"
	done
	# A row reaches it: exit 3, naming the row and the expression.
	run --separate-stderr colscan -s "CASE WHEN i > 1 THEN log10(-9.75) \
	    ELSE 1 END AS x" t3.col
	status_is 3
	[[ $stderr == *"row 2: cannot take the logarithm of a negative number in 'log10(-9.75)'"* ]] ||
		fail "$stderr"
	run --separate-stderr colscan -w "CASE WHEN b THEN 1 ELSE 'x' END = 1" \
	    t3.col
	status_is 3
	[[ $stderr == *"row 2: cannot read 'x' as int32"* ]] || fail "$stderr"
	# The first WHEN, a CASE operand, coalesce's first argument and both
	# of nullif's (even beside a NULL, colscan(1)) are evaluated on
	# every row: refused before any row is read.
	for e in "CASE WHEN log10(-1) > 0 THEN 1 END" \
	    "CASE log10(-1) WHEN 1 THEN 2 END" "coalesce(log10(-1), 1)" \
	    "nullif(i, log10(-1))" "nullif(NULL, log10(-1) + i)" \
	    "nullif(log10(-1), i)"; do
		run --separate-stderr colscan -s "$e AS x" t3.col
		status_is 2
		[[ $stderr == *"cannot take the logarithm"* ]] || fail "$stderr"
	done
}

@test "errors of --select: message, caret, exit 2" {
	check_errors --select <<'EOF'
i, i	the output has two columns named 'i': name one with AS, or leave one out with * EXCLUDE (...)
*, i	the output has two columns named 'i'
*, *	the output has two columns named 'i'
i + 1, i + 1	the output has two columns named '(i + 1)'
s AS i, i	the output has two columns named 'i'
* EXCLUDE (nosuch)	column 12: unknown column 'nosuch'; the columns are i, l, d, f, dt, ts, b, s, odd name
* EXCLUDE (i, sx)	column 15: unknown column 'sx' (did you mean 's'?)
extract(year dt)	column 14: expected FROM: write extract(year FROM value)
* EXCLUDE (i	column 13: expected ',' or ')'
* EXCLUDE i	column 11: expected '('
* EXCLUDE ()	column 12: expected a column name
* EXCLUDE (1)	column 12: expected a column name
i AS	column 5: expected a name after AS
i AS 1	column 6: expected a name after AS
i,	column 3: expected an expression
,i	column 1: expected an expression
i j	column 3: unexpected 'j' after the select list
nosuch	column 1: unknown column 'nosuch'
i, s + 1 AS x	column 4: cannot apply '+' to string and int32
i, "odd  name"	column 4: unknown column 'odd  name' (did you mean 'odd name'?)
EOF
	# The message says which option the text came from.
	run --separate-stderr colscan -w "i > 0" -s "nosuch" t.col
	status_is 2
	stderr_has "colscan: --select: column 1: unknown column 'nosuch'"
	run --separate-stderr colscan -w "nosuch > 0" -s "nosuch" t.col
	status_is 2
	stderr_has "colscan: --where: column 1: unknown column 'nosuch'"
}

@test "integer literals past int64 are DuckDB's HUGEINT, as decimal(38,0)" {
	# DuckDB 1.5: typeof(18446744073709551613) is HUGEINT, of
	# -2147483648 BIGINT, of 2^128 DOUBLE.
	run --separate-stderr bash -c 'set -o pipefail
	    printf "a\n1\n" | csv2col | colscan -w "a < 18446744073709551613" --count'
	status_is 0
	assert_output 1
	[ -z "$stderr" ] || fail "stderr: $stderr"
	local sel="l * 100000000000000000000 AS x, -9223372036854775809 AS y, "
	sel+="-2147483648 AS z, 99999999999999999999999999999999999999 - i AS w, "
	sel+="d + 100000000000000000000 AS v, "
	sel+="340282366920938463463374607431768211456 AS f"
	run --separate-stderr colscan --schema -s "$sel" t.col
	status_is 0
	assert_output "x:decimal(38,0)
y:decimal(38,0)
z:int64
w:decimal(38,0)
v:decimal(38,2)
f:float64"
	scan -s "$sel" -w "i = 1 OR i = 2"
	status_is 0
	assert_output "x,y,z,w,v,f
1000000000000000000000,-9223372036854775809,-2147483648,99999999999999999999999999999999999998,100000000000000000001.50,3.402823669209385e+38
-2000000000000000000000,-9223372036854775809,-2147483648,99999999999999999999999999999999999997,99999999999999999997.75,3.402823669209385e+38"
	# Against a decimal(38,0) column, such as colagg's sum() gives.
	printf 's\n18446744073709551614\n18446744073709551613\n-5\n\n' >s.csv
	run --separate-stderr bash -c 'set -o pipefail
	    csv2col -s "s:decimal(38,0)" s.csv |
	    colscan -w "s > 18446744073709551613 OR s < -9223372036854775809" |
	    col2csv'
	status_is 0
	assert_output "s
18446744073709551614"
	# A product past 38 digits is an overflow naming the row.
	scan -s "l * 10000000000000000000000000000 AS x" -w "l IS NOT NULL"
	status_is 3
	stderr_has "row 6: decimal(38,0) overflow in 'l * 10000000000000000000000000000'"
}

@test "SQL spellings DuckDB reads: INTERVAL -n, loose date casts, constant AND/OR" {
	scan -s "dt + INTERVAL -1 MONTH AS m, dt - INTERVAL - 2 DAY AS d2" -w "i = 1"
	status_is 0
	assert_output "m,d2
1994-12-15 00:00:00,1995-01-17 00:00:00"
	scan -s "'1995-1-5'::date AS a, CAST('01995/01/05' AS date) AS b, DATE '1995 1 5' AS c" --limit 1
	status_is 0
	assert_output "a,b,c
1995-01-05,1995-01-05,1995-01-05"
	scan -s "'1995-2-29'::date AS a" --limit 1
	status_is 3
	stderr_has "cannot read '1995-2-29' as date"
	scan -s "'1995-1/5'::date AS a" --limit 1
	status_is 3
	# A constant side decides AND/OR: i is never read, so even a
	# filter that would overflow on every row is not evaluated.
	scan -s "s" -w "(i * 2000000000 > 0) OR TRUE" --limit 2
	status_is 0
	assert_output "s
apple
Banana"
	scan -s "s" -w "(i * 2000000000 > 0) AND FALSE"
	status_is 0
	assert_output "s"
}

@test "--schema --stats: the schema, then stats of a run that read no rows" {
	run --separate-stderr colscan --schema --stats -s "i, s" t.col
	status_is 0
	assert_output "i:int32
s:string"
	stderr_has "colscan: 0 rows in, 0 rows out, 1 inputs"
}

@test "an input with no columns" {
	run --separate-stderr colscan -s '* EXCLUDE (i, l, d, f, dt, ts, b, s, "odd name")' -o zc.col t.col
	status_is 0
	run --separate-stderr colscan -c zc.col
	assert_output 6
	run --separate-stderr colscan -w "x = 1" zc.col
	status_is 2
	stderr_has "column 1: unknown column 'x'; the input has no columns"
	run --separate-stderr bash -c 'colscan -s "1 AS one" zc.col | col2csv'
	status_is 0
	assert_output "$(printf 'one\n1\n1\n1\n1\n1\n1')"
}

@test "a write error is exit 5; a closed pipe downstream ends colscan quietly" {
	local a
	for a in "" "-c" "--schema"; do
		# shellcheck disable=SC2086
		run --separate-stderr bash -c "colscan $a big.col >/dev/full"
		status_is 5
		stderr_has "write error on stdout"
	done
	run --separate-stderr bash -c 'colscan big.col big.col | head -c 10 >/dev/null; echo "${PIPESTATUS[0]}"'
	assert_output 141
	[ -z "$stderr" ] || fail "stderr: $stderr"
}

@test "-o: a killed run leaves the old file and nothing else" {
	local sig wp cp
	mkdir o
	for sig in KILL TERM INT; do
		echo old >o/out.col
		# A FIFO of its own each round: a writer of the last round
		# still holding one open (its sleep) kept its unread bytes
		# for this round's reader, which saw a stream cut mid-way.
		rm -f in.fifo
		mkfifo in.fifo
		{ head -c 500000 big.col; exec sleep 2; } >in.fifo &
		wp=$!
		colscan -o o/out.col -w "k > 5" in.fifo &
		cp=$!
		sleep 0.5
		kill -s "$sig" "$cp"
		wait "$cp" && fail "colscan was not killed by $sig"
		# A colscan killed before it opened the FIFO (a slow start)
		# leaves the writer waiting for a reader for ever.
		kill "$wp" 2>/dev/null || true
		wait "$wp" || true
		[ "$(cat o/out.col)" = old ] || fail "$sig: out.col changed"
		[ "$(ls -A o)" = out.col ] || fail "$sig: left behind: $(ls -A o)"
	done
}

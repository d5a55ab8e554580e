#!/usr/bin/env bats
# csv2col.bats - csv2col as users run it: in pipelines into col2csv, on
# plain, compressed and archived files, with its dialect, header, schema,
# NULL and rejects options, and on bad input.  Expected outputs are
# written out literally; each follows csv2col(1) and col2csv(1).

load helpers

@test "round trip: csv2col | col2csv gives a canonical CSV back byte for byte" {
	need csv2col col2csv
	make_canonical in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv > out.csv'
	status_is 0
	stderr_empty
	cmp in.csv out.csv || fail "$(diff in.csv out.csv)"
}

@test "round trip from stdin, with '-', and through a .col file" {
	need csv2col col2csv
	make_canonical in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col < in.csv | col2csv > a.csv'
	status_is 0
	cmp in.csv a.csv
	run --separate-stderr bash -c 'set -o pipefail; cat in.csv | csv2col - | col2csv - > b.csv'
	status_is 0
	cmp in.csv b.csv
	run --separate-stderr bash -c 'csv2col in.csv > t.col && col2csv t.col > c.csv'
	status_is 0
	cmp in.csv c.csv
}

@test "round trip is the same with tiny batches, compression and one or two threads" {
	need csv2col col2csv
	make_canonical in.csv
	make_big big.csv 30000
	local opts
	for opts in "--batch-rows 1" "--batch-rows 2" "-z" "--compress=19" "-j 1" "-j 2" "-z --batch-rows 3 -j 2"; do
		run --separate-stderr bash -c "set -o pipefail; csv2col $opts in.csv | col2csv > out.csv"
		status_is 0
		cmp in.csv out.csv || fail "csv2col $opts: $(diff in.csv out.csv)"
		run --separate-stderr bash -c "set -o pipefail; csv2col $opts big.csv | col2csv > big.out"
		status_is 0
		cmp big.csv big.out || fail "csv2col $opts changed big.csv"
	done
}

@test "quoted fields, embedded newlines, doubled quotes, CRLF and a BOM" {
	need csv2col col2csv
	printf '\357\273\277name,text,n\r\n"Smith, J","He said ""no""\r\nthen left",1\r\nplain,"multi\nline\nfield",2\r\n"",x,3\r\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv --format jsonl'
	status_is 0
	stderr_empty
	assert_equal "${lines[0]}" '{"name":"Smith, J","text":"He said \"no\"\r\nthen left","n":1}'
	assert_equal "${lines[1]}" '{"name":"plain","text":"multi\nline\nfield","n":2}'
	assert_equal "${lines[2]}" '{"name":"","text":"x","n":3}'
	assert_equal "${#lines[@]}" 3
}

@test "a BOM is not part of the first column's name" {
	need csv2col col2csv
	printf '\357\273\277a,b\n1,2\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv'
	status_is 0
	assert_output $'a,b\n1,2'
}

@test "CRLF input comes out with LF line ends" {
	need csv2col col2csv
	printf 'a,b\r\nx,1\r\ny,2\r\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv | od -c'
	status_is 0
	refute_output --partial '\r'
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv'
	assert_output $'a,b\nx,1\ny,2'
}

@test "no final newline, and a blank last line, read the same" {
	need csv2col col2csv
	printf 'a,b\nx,1\ny,2' >nofinal.csv
	printf 'a,b\nx,1\ny,2\n' >final.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col nofinal.csv | col2csv'
	status_is 0
	assert_output $'a,b\nx,1\ny,2'
	run --separate-stderr bash -c 'set -o pipefail; csv2col final.csv | col2csv'
	assert_output $'a,b\nx,1\ny,2'
}

@test "sniffs the delimiter: semicolon, tab, pipe, comma" {
	need csv2col col2csv
	local d
	for d in ';' $'\t' '|' ','; do
		printf 'name%sqty%sprice\nbolt%s10%s1.25\n"nut%s washer"%s20%s0.10\n' \
		    "$d" "$d" "$d" "$d" "$d" "$d" "$d" >in.csv
		run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv'
		status_is 0
		stderr_empty
		assert_output "$(printf 'name,qty,price\nbolt,10,1.25\nnut%s washer,20,0.10' "$d" |
		    sed 's/^nut, washer/"nut, washer"/')"
	done
}

@test "-d sets the delimiter (one byte, tab, \\t) and -q the quote" {
	need csv2col col2csv
	printf 'a;b\n1,5;2\n' >semi.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col -d ";" semi.csv | col2csv'
	status_is 0
	assert_output $'a,b\n"1,5",2'
	printf 'a\tb\nx y\t2\n' >t.tsv
	run --separate-stderr bash -c 'set -o pipefail; csv2col -d tab t.tsv | col2csv'
	status_is 0
	assert_output $'a,b\nx y,2'
	run --separate-stderr bash -c 'set -o pipefail; csv2col --delimiter "\t" t.tsv | col2csv'
	status_is 0
	assert_output $'a,b\nx y,2'
	printf "a,b\n'x,y',2\n" >sq.csv
	run --separate-stderr bash -c "set -o pipefail; csv2col -q \"'\" sq.csv | col2csv"
	status_is 0
	assert_output $'a,b\n"x,y",2'
	printf 'a,b\n"x",2\n' >nq.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col -q none nq.csv | col2csv'
	status_is 0
	assert_output $'a,b\n"""x""",2'
}

@test "-d with two bytes is a usage error" {
	need csv2col
	printf 'a,b\n1,2\n' >in.csv
	run --separate-stderr csv2col -d ';;' in.csv
	status_is 2
	stdout_empty
	stderr_matches '^csv2col: '
}

@test "header detection, --header and --no-header" {
	need csv2col col2csv
	printf 'city,pop\nOslo,709000\nBergen,291000\n' >h.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col h.csv | col2csv --format jsonl'
	status_is 0
	assert_equal "${lines[0]}" '{"city":"Oslo","pop":709000}'
	assert_equal "${#lines[@]}" 2

	run --separate-stderr bash -c 'set -o pipefail; csv2col --no-header h.csv | col2csv'
	status_is 0
	assert_output $'c1,c2\ncity,pop\nOslo,709000\nBergen,291000'

	# Numbers in the first row look like data; --header says otherwise.
	printf '1,2\n3,4\n5,6\n' >n.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col n.csv | col2csv'
	status_is 0
	assert_output $'c1,c2\n1,2\n3,4\n5,6'
	run --separate-stderr bash -c 'set -o pipefail; csv2col --header n.csv | col2csv --format jsonl'
	status_is 0
	assert_output $'{"1":3,"2":4}\n{"1":5,"2":6}'
}

@test "a header-only file gives zero rows with its names" {
	need csv2col col2csv
	printf 'a,b,c\n' >h.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --header h.csv | col2csv'
	status_is 0
	assert_output 'a,b,c'
	run --separate-stderr bash -c 'set -o pipefail; csv2col --header h.csv | col2csv --format jsonl'
	status_is 0
	assert_output ''
}

@test "type inference: int64, decimal keeps its text, bool, date, timestamp, float, string" {
	need csv2col col2csv
	printf 'i,d,b,dt,ts,f,s\n1,24386.67,true,1996-03-13,2024-01-02 03:04:05,1.5e0,x\n-2,0.5,FALSE,2000-02-29,2024-01-02 03:04:05.25,2.5E-1,7a\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv --format jsonl'
	status_is 0
	stderr_empty
	assert_equal "${lines[0]}" '{"i":1,"d":24386.67,"b":true,"dt":"1996-03-13","ts":"2024-01-02 03:04:05","f":1.5,"s":"x"}'
	assert_equal "${lines[1]}" '{"i":-2,"d":0.50,"b":false,"dt":"2000-02-29","ts":"2024-01-02 03:04:05.250000","f":0.25,"s":"7a"}'
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv'
	status_is 0
	assert_output $'i,d,b,dt,ts,f,s\n1,24386.67,true,1996-03-13,2024-01-02 03:04:05,1.5,x\n-2,0.50,false,2000-02-29,2024-01-02 03:04:05.250000,0.25,7a'
}

@test "decimal scale is the most fraction digits seen; sums stay exact" {
	need csv2col col2csv
	printf 'm\n0.1\n0.2\n0.30\n1234567890.12\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv'
	status_is 0
	assert_output $'m\n0.10\n0.20\n0.30\n1234567890.12'
}

@test "a value with an exponent makes the column float64, not decimal" {
	need csv2col col2csv
	printf 'x\n1.5\n2.5e1\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv --format jsonl'
	status_is 0
	assert_output $'{"x":1.5}\n{"x":25}'
}

@test "a value past the sample that does not fit is exit 3 naming FILE:LINE:COL and --schema" {
	need csv2col
	{ echo 'n,s'; seq 1 100 | sed 's/$/,a/'; echo 'oops,b'; } >late.csv
	# From a pipe, so the sample is only the first rows.
	run --separate-stderr bash -c 'cat late.csv | csv2col --sample-rows 10 >/dev/null'
	status_is 3
	stderr_matches '^csv2col: [^:]+:102:1: '
	stderr_has 'oops'
	stderr_has '--schema'
	no_crash
}

@test "--schema pins types by column name" {
	need csv2col col2csv
	printf 'zip,amount,n,day\n00501,1.5,7,2020-01-01\n10001,2,8,2020-01-02\n' >in.csv
	run --separate-stderr bash -c "set -o pipefail; csv2col --schema 'zip:string,amount:decimal(15,2),n:int32' in.csv | col2csv --format jsonl"
	status_is 0
	stderr_empty
	assert_output $'{"zip":"00501","amount":1.50,"n":7,"day":"2020-01-01"}\n{"zip":"10001","amount":2.00,"n":8,"day":"2020-01-02"}'
	run --separate-stderr bash -c "set -o pipefail; csv2col -s 'day:string' in.csv | col2csv --format jsonl | head -n1"
	status_is 0
	assert_output '{"zip":"00501","amount":1.5,"n":7,"day":"2020-01-01"}'
}

@test "--schema: a value that does not fit the pinned type is exit 3 with its place" {
	need csv2col
	printf 'a,b\n1,x\n2,y\n3000000000,z\n' >in.csv
	run --separate-stderr csv2col --schema 'a:int32' in.csv
	status_is 3
	stderr_matches '^csv2col: in\.csv:4:1: '
	stderr_has '3000000000'
}

@test "--schema naming no column, or an unknown type, is a usage error" {
	need csv2col
	printf 'a,b\n1,2\n' >in.csv
	run --separate-stderr csv2col --schema 'nosuch:int64' in.csv
	no_crash
	[ "$status" -eq 2 ] || [ "$status" -eq 3 ] || fail "status $status"
	stderr_has 'nosuch'
	stdout_empty
	run --separate-stderr csv2col --schema 'a:frobnicate' in.csv
	status_is 2
	stderr_has 'frobnicate'
	stdout_empty
}

@test "--schema with --no-header uses c1, c2, ..." {
	need csv2col col2csv
	printf '007,1\n008,2\n' >in.csv
	run --separate-stderr bash -c "set -o pipefail; csv2col --no-header --schema c1:string in.csv | col2csv"
	status_is 0
	assert_output $'c1,c2\n007,1\n008,2'
}

@test "NULL policy: empty unquoted is NULL, quoted \"\" is the empty string, --null matches unquoted only" {
	need csv2col col2csv
	printf 's,n\n"",1\n,2\nNA,NA\n"NA",3\n-,4\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --null NA -n - in.csv | col2csv --format jsonl'
	status_is 0
	stderr_empty
	assert_output $'{"s":"","n":1}\n{"s":null,"n":2}\n{"s":null,"n":null}\n{"s":"NA","n":3}\n{"s":null,"n":4}'
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv --format jsonl'
	status_is 0
	# Without --null, NA is text and the second column is a string.
	assert_line --index 2 '{"s":"NA","n":"NA"}'
}

@test "a quoted empty field in a number column is NULL" {
	need csv2col col2csv
	printf 'a,b\n1,x\n"",y\n3,z\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv --format jsonl'
	status_is 0
	assert_output $'{"a":1,"b":"x"}\n{"a":null,"b":"y"}\n{"a":3,"b":"z"}'
}

@test "leading and trailing spaces are kept" {
	need csv2col col2csv
	printf 'a,b\n lead,trail \n"  both  ",x\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv --format jsonl'
	status_is 0
	assert_output $'{"a":" lead","b":"trail "}\n{"a":"  both  ","b":"x"}'
}

@test "compressed input is recognised by content: gzip, bzip2, xz, zstd" {
	need csv2col col2csv
	make_canonical plain.csv
	local z
	for z in gzip bzip2 xz zstd; do
		command -v $z >/dev/null || fail "$z not installed"
		$z -c plain.csv >data.csv
		run --separate-stderr bash -c 'set -o pipefail; csv2col data.csv | col2csv > out.csv'
		status_is 0
		stderr_empty
		cmp plain.csv out.csv || fail "$z: output differs"
	done
}

@test "compressed input on stdin is recognised too" {
	need csv2col col2csv
	make_canonical plain.csv
	local z
	for z in gzip zstd; do
		run --separate-stderr bash -c "set -o pipefail; $z -c plain.csv | csv2col | col2csv > out.csv"
		status_is 0
		cmp plain.csv out.csv || fail "$z on stdin: output differs"
	done
}

@test "a tar archive's members are read one after another, header once" {
	need csv2col col2csv
	mkdir d
	printf 'k,v\n1,a\n2,b\n' >d/one.csv
	printf 'k,v\n3,c\n' >d/two.csv
	tar -C d -cf all.tar one.csv two.csv
	tar -C d -czf all.tgz one.csv two.csv
	local t
	for t in all.tar all.tgz; do
		run --separate-stderr bash -c "set -o pipefail; csv2col $t | col2csv"
		status_is 0
		stderr_empty
		assert_output $'k,v\n1,a\n2,b\n3,c'
	done
}

@test "a tar member with other column names is exit 3 naming the member" {
	need csv2col
	mkdir d
	printf 'k,v\n1,a\n' >d/one.csv
	printf 'k,w\n3,c\n' >d/two.csv
	tar -C d -cf all.tar one.csv two.csv
	run --separate-stderr csv2col all.tar
	status_is 3
	stderr_matches '^csv2col: '
	stderr_has 'two.csv'
}

@test "several files: same header is a union, another column count is exit 3" {
	need csv2col col2csv
	printf 'a,b\n1,x\n' >one.csv
	printf 'a,b\n2,y\n' >two.csv
	printf 'a,b,c\n3,z,0\n' >three.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col one.csv two.csv | col2csv'
	status_is 0
	assert_output $'a,b\n1,x\n2,y'
	run --separate-stderr csv2col one.csv three.csv
	status_is 3
	stderr_has 'three.csv'
}

@test "bad input: exit 3 with one 'csv2col: FILE:LINE:COL: ...' message (unterminated quote, extra field)" {
	need csv2col col2csv
	printf 'a,b\n1,x\n2,y\n3,"open quote\n' >bad.csv
	run --separate-stderr bash -c 'csv2col bad.csv > /dev/null'
	status_is 3
	stderr_matches '^csv2col: bad\.csv:4:[0-9]+: '
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || fail "more than one message: $stderr"

	printf 'a,b\n1,x\n2,y,extra\n' >cols.csv
	run --separate-stderr bash -c 'csv2col cols.csv > /dev/null'
	status_is 3
	stderr_matches '^csv2col: cols\.csv:3:[0-9]+: '
}

@test "bad input early: downstream col2csv reports a truncated stream, with and without pipefail" {
	need csv2col col2csv
	printf 'a,b\n1,x\n2,y,extra\n' >bad.csv
	run --separate-stderr bash -c 'csv2col bad.csv | col2csv'
	status_is 3
	stderr_matches 'csv2col: bad\.csv:3:'
	stderr_matches 'col2csv: .*truncated'
	run --separate-stderr bash -c 'set -o pipefail; csv2col bad.csv | col2csv'
	[ "$status" -ne 0 ] || fail "pipeline succeeded"
	stderr_matches 'col2csv: .*truncated'
}

@test "bad input after many good rows: col2csv has printed rows, then says truncated and exits 3" {
	need csv2col col2csv
	make_big bad.csv 50000
	printf '50001,1.00,1999-01-01,x,surplus\n' >>bad.csv
	run --separate-stderr bash -c 'csv2col bad.csv | col2csv > out.csv'
	status_is 3
	stderr_matches 'csv2col: bad\.csv:50002:'
	stderr_matches 'col2csv: .*truncated'
	run --separate-stderr bash -c 'set -o pipefail; csv2col bad.csv | col2csv > out.csv'
	[ "$status" -eq 3 ] || fail "status $status; $stderr"
}

@test "--rejects writes bad rows with line number and reason and goes on" {
	need csv2col col2csv
	printf 'a,b\n1,x\n2,y,extra\n3,z\n4\n5,w\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --rejects rej.txt in.csv | col2csv'
	status_is 0
	assert_output $'a,b\n1,x\n3,z\n5,w'
	[ -s rej.txt ] || fail "rejects file empty"
	grep '2,y,extra' rej.txt | grep -q 3 ||
	    fail "row 3 (with its line number) not in rejects: $(cat rej.txt)"
	grep -q 5 rej.txt || fail "line 5 not in rejects: $(cat rej.txt)"
	grep -q '1,x\|3,z\|5,w' rej.txt && fail "good rows in rejects: $(cat rej.txt)"
	true
}

@test "--max-errors N: exit 4 once more than N rows were rejected" {
	need csv2col col2csv
	printf 'a,b\n1,x\n2,y,extra\n3,z\n4\n5,w\n' >in.csv
	run --separate-stderr bash -c 'csv2col --rejects rej.txt --max-errors 2 in.csv | col2csv >/dev/null'
	status_is 0
	run --separate-stderr csv2col --rejects rej.txt --max-errors 1 in.csv
	no_crash
	status_is 4
	stderr_matches '^csv2col: '
	run --separate-stderr bash -c 'csv2col --rejects rej.txt --max-errors 1 in.csv | col2csv'
	stderr_matches 'col2csv: .*truncated'
	status_is 3
}

@test "-o writes atomically: success replaces, failure leaves the old file and no temp file" {
	need csv2col col2csv
	make_canonical good.csv
	printf 'a,b\n1,x\n2,y,extra\n' >bad.csv
	mkdir out
	run --separate-stderr csv2col -o out/t.col good.csv
	status_is 0
	stdout_empty
	stderr_empty
	run --separate-stderr col2csv out/t.col
	status_is 0
	cmp good.csv <(printf '%s\n' "$output")
	cp out/t.col before.col
	run --separate-stderr csv2col --output out/t.col bad.csv
	status_is 3
	cmp before.col out/t.col || fail "failed run changed the output file"
	[ "$(ls -A out)" = "t.col" ] || fail "left behind: $(ls -A out)"
	# A failure before any output file existed leaves nothing at all.
	run --separate-stderr csv2col -o out/new.col bad.csv
	status_is 3
	[ "$(ls -A out)" = "t.col" ] || fail "left behind: $(ls -A out)"
}

@test "-o to a directory that does not exist is exit 5 naming it" {
	need csv2col
	printf 'a\n1\n' >in.csv
	run --separate-stderr csv2col -o nodir/x.col in.csv
	status_is 5
	stderr_has 'nodir'
}

@test "--stats reports rows to stderr and leaves stdout a valid stream" {
	need csv2col col2csv
	make_big big.csv 1000
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats big.csv | col2csv | wc -l'
	status_is 0
	assert_output '1001'
	stderr_has '1000'
}

@test "a file that is not text (NUL bytes) is a clean error or a string, never a crash" {
	need csv2col col2csv
	printf 'a,b\n1,x\0y\n' >nul.csv
	run --separate-stderr bash -c 'csv2col nul.csv | col2csv'
	no_crash
	[ "$status" -eq 0 ] || [ "$status" -eq 3 ] || fail "status $status: $stderr"
}

@test "invalid UTF-8 in a string column is exit 3 with its place" {
	need csv2col
	printf 'a,b\n1,ok\n2,\377bad\n' >in.csv
	run --separate-stderr csv2col in.csv
	no_crash
	status_is 3
	stderr_matches '^csv2col: in\.csv:3:[0-9]+: '
}

@test "--schema decimal(38,10): 38-digit values read exactly, one digit more is exit 3 with its place" {
	need csv2col col2csv
	printf '%s\n' 'a,n' '9999999999999999999999999999.9999999999,1' \
	    '-9999999999999999999999999999.9999999999,2' '.0000000001,3' \
	    '-0.5,4' '+00012345678901234567890.123,5' ',6' '0,7' >in.csv
	run --separate-stderr bash -c "set -o pipefail; csv2col --schema 'a:decimal(38,10)' in.csv | col2csv"
	status_is 0
	stderr_empty
	assert_output "$(printf '%s\n' 'a,n' \
	    '9999999999999999999999999999.9999999999,1' \
	    '-9999999999999999999999999999.9999999999,2' '0.0000000001,3' \
	    '-0.5000000000,4' '12345678901234567890.1230000000,5' ',6' \
	    '0.0000000000,7')"
	# 29 integer digits, or 11 fraction digits, do not fit.
	printf '%s\n' 'n,a' '1,2' '2,99999999999999999999999999999' >big.csv
	run --separate-stderr csv2col --schema 'a:decimal(38,10)' big.csv
	status_is 3
	assert_output ''
	stderr_matches '^csv2col: big\.csv:3:2: value does not fit column a of type decimal\(38,10\)'
	stderr_has '99999999999999999999999999999'
	printf '%s\n' 'n,a' '1,0.00000000001' >frac.csv
	run --separate-stderr csv2col --schema 'a:decimal(38,10)' frac.csv
	status_is 3
	stderr_matches '^csv2col: frac\.csv:2:2: '
	# Precision 39 is a usage error.
	run --separate-stderr csv2col --schema 'a:decimal(39,2)' in.csv
	status_is 2
	stderr_has 'decimal precision must be 1 to 38'
}

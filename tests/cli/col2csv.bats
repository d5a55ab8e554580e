#!/usr/bin/env bats
# col2csv.bats - col2csv's output formats, concatenated streams, and its
# refusal of truncated, corrupt or mismatched MLSPILL3 input.  Streams are
# made with csv2col, as users make them.

load helpers

# The small table most tests print.
make_small() {
	printf '%s\n' \
	    'id,name,price,day,ok' \
	    '1,"a,b",1.50,2024-02-29,true' \
	    '2,tab	and\back,,1999-12-31,false' \
	    '3,"say ""x""",-0.05,,' \
	    '4,"two' \
	    'lines",10.00,2000-01-01,true' \
	    '5,"",3.25,2000-01-02,false' >small.csv
	csv2col small.csv >small.col || fail "csv2col small.csv failed"
}

@test "csv is the default format, with RFC 4180 quoting" {
	need csv2col col2csv
	make_small
	run --separate-stderr col2csv small.col
	status_is 0
	stderr_empty
	assert_output "$(cat small.csv)"
	run --separate-stderr col2csv --format csv small.col
	assert_output "$(cat small.csv)"
	run --separate-stderr col2csv -f csv --no-header small.col
	assert_output "$(tail -n +2 small.csv)"
}

@test "csv with another delimiter quotes that delimiter instead" {
	need csv2col col2csv
	printf 'a,b\nx;y,"1,2"\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv -d ";"'
	status_is 0
	assert_output $'a;b\n"x;y";1,2'
}

@test "tsv: no quoting, backslash escapes, NULL as \\N" {
	need csv2col col2csv
	make_small
	run --separate-stderr col2csv --format tsv small.col
	status_is 0
	stderr_empty
	local want
	want=$(printf '%s\n' \
	    'id	name	price	day	ok' \
	    '1	a,b	1.50	2024-02-29	true' \
	    '2	tab\tand\\back	\N	1999-12-31	false' \
	    '3	say "x"	-0.05	\N	\N' \
	    '4	two\nlines	10.00	2000-01-01	true' \
	    '5		3.25	2000-01-02	false')
	assert_output "$want"
	run --separate-stderr col2csv -f tsv --no-header small.col
	assert_output "$(printf '%s\n' "$want" | tail -n +2)"
}

@test "jsonl: one strict JSON object per line, decimals with their scale" {
	need csv2col col2csv
	make_small
	run --separate-stderr col2csv --format jsonl small.col
	status_is 0
	stderr_empty
	assert_equal "${lines[0]}" '{"id":1,"name":"a,b","price":1.50,"day":"2024-02-29","ok":true}'
	assert_equal "${lines[1]}" '{"id":2,"name":"tab\tand\\back","price":null,"day":"1999-12-31","ok":false}'
	assert_equal "${lines[2]}" '{"id":3,"name":"say \"x\"","price":-0.05,"day":null,"ok":null}'
	assert_equal "${lines[3]}" '{"id":4,"name":"two\nlines","price":10.00,"day":"2000-01-01","ok":true}'
	assert_equal "${lines[4]}" '{"id":5,"name":"","price":3.25,"day":"2000-01-02","ok":false}'
	assert_equal "${#lines[@]}" 5
}

@test "jsonl: control characters are escaped and the output parses as JSON" {
	need csv2col col2csv
	printf 's\n"a\001b\037c\177d"\n"é\\\\/"\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2csv --format jsonl'
	status_is 0
	# Raw control characters are not allowed inside JSON strings.
	if printf '%s' "$output" | tr -d '\n' | grep -q "$(printf '[\001-\037]')"; then
		fail "raw control character in: $output"
	fi
	assert_output --partial 'a\u0001b\u001'
	command -v node >/dev/null || skip "node not installed: JSON not parsed"
	csv2col in.csv | col2csv -f jsonl >out.jsonl
	run --separate-stderr node -e '
		const fs = require("fs");
		const lines = fs.readFileSync("out.jsonl", "utf8").split("\n");
		if (lines.pop() !== "") throw new Error("no final newline");
		const got = lines.map((l) => JSON.parse(l).s);
		const want = ["a\x01b\x1fc\x7fd", "\u00e9\\\\/"];
		if (JSON.stringify(got) !== JSON.stringify(want))
			throw new Error("got " + JSON.stringify(got));
	'
	status_is 0
}

@test "jsonl: NaN and infinities become null" {
	need csv2col col2csv
	printf 'x\n1.5\nnan\ninf\n-inf\n-0.25\n' >in.csv
	run --separate-stderr bash -c "set -o pipefail; csv2col --schema 'x:float64' in.csv | col2csv --format jsonl"
	status_is 0
	stderr_empty
	assert_output $'{"x":1.5}\n{"x":null}\n{"x":null}\n{"x":null}\n{"x":-0.25}'
}

@test "floats print shortest round trip in csv" {
	need csv2col col2csv
	printf 'x\n0.1\n0.30000000000000004\n1.7976931348623157e308\n-2.5\n' >in.csv
	run --separate-stderr bash -c "set -o pipefail; csv2col --schema 'x:float64' in.csv | col2csv"
	status_is 0
	assert_line --index 1 '0.1'
	assert_line --index 2 '0.30000000000000004'
	assert_line --index 4 '-2.5'
	# However the large one is spelt, it must read back as the same double.
	[ "$(printf '%s\n' "${lines[3]}" | awk '{ printf "%.17g", $1 }')" = "1.7976931348623157e+308" ] ||
	    fail "1.7976931348623157e308 printed as ${lines[3]}"
}

@test "table: aligned, with every name and value" {
	need csv2col col2csv
	make_small
	run --separate-stderr col2csv --format table small.col
	status_is 0
	stderr_empty
	local name
	for name in id name price day ok 1.50 -0.05 10.00 2024-02-29 true false; do
		assert_output --partial "$name"
	done
	# Aligned: every line that is not a rule is as wide as the header.
	local w=${#lines[0]} l
	for l in "${lines[@]}"; do
		[ "${#l}" -le $((w + 16)) ] || fail "line wider than the header: '$l'"
	done
	run --separate-stderr col2csv --format table --no-header small.col
	status_is 0
	refute_output --partial 'price'
}

@test "an unknown format is a usage error" {
	need csv2col col2csv
	make_small
	run --separate-stderr col2csv --format xml small.col
	status_is 2
	stdout_empty
	stderr_has 'xml'
}

@test "concatenated streams: cat a.col b.col | col2csv is the union, header once" {
	need csv2col col2csv
	printf 'k,v\n1,a\n2,b\n' >a.csv
	printf 'k,v\n3,c\n' >b.csv
	csv2col a.csv >a.col
	csv2col b.csv >b.col
	run --separate-stderr bash -c 'set -o pipefail; cat a.col b.col a.col | col2csv'
	status_is 0
	stderr_empty
	assert_output $'k,v\n1,a\n2,b\n3,c\n1,a\n2,b'
	run --separate-stderr col2csv a.col b.col
	status_is 0
	assert_output $'k,v\n1,a\n2,b\n3,c'
	run --separate-stderr bash -c 'col2csv - b.col < a.col'
	status_is 0
	assert_output $'k,v\n1,a\n2,b\n3,c'
}

@test "concatenated streams with another schema: exit 3" {
	need csv2col col2csv
	printf 'k,v\n1,a\n' >a.csv
	printf 'k,w\n2,b\n' >names.csv
	printf 'k,v\nx,b\n' >types.csv
	printf 'k,v,z\n1,a,0\n' >count.csv
	csv2col a.csv >a.col
	local f
	for f in names types count; do
		csv2col $f.csv >$f.col
		run --separate-stderr bash -c "cat a.col $f.col | col2csv"
		no_crash
		status_is 3
		stderr_matches '^col2csv: '
		stderr_has 'schema'
	done
}

@test "an empty zero-row stream still prints its header" {
	need csv2col col2csv
	printf 'a,b\n' >h.csv
	csv2col --header h.csv >h.col
	run --separate-stderr col2csv h.col
	status_is 0
	assert_output 'a,b'
	run --separate-stderr bash -c 'cat h.col h.col | col2csv -f tsv'
	status_is 0
	assert_output $'a\tb'
}

@test "a truncated stream is exit 3 'truncated', wherever it is cut" {
	need csv2col col2csv
	make_big big.csv 20000
	csv2col --batch-rows 4096 big.csv >big.col
	local size cut
	size=$(filesize big.col)
	for cut in 1 8 16 $((size / 3)) $((size / 2)) $((size - 8)) $((size - 1)); do
		run --separate-stderr bash -c "head -c $cut big.col | col2csv > out.csv"
		no_crash
		status_is 3
		stderr_matches '^col2csv: '
		stderr_has 'truncated'
	done
}

@test "an empty input is not a valid stream" {
	need col2csv
	run --separate-stderr col2csv </dev/null
	no_crash
	status_is 3
	stderr_matches '^col2csv: '
	stdout_empty
}

@test "a flipped byte is exit 3: checksum or corrupt" {
	need csv2col col2csv
	make_big big.csv 20000
	csv2col big.csv >big.col
	cp big.col bad.col
	flip_byte bad.col $(($(filesize bad.col) / 2))
	run --separate-stderr bash -c 'col2csv bad.col > out.csv'
	no_crash
	status_is 3
	[[ $stderr == *checksum* || $stderr == *corrupt* ]] ||
	    fail "no checksum/corrupt in: $stderr"
}

@test "no flipped byte anywhere in a stream passes as data" {
	need csv2col col2csv
	printf 'a,b,c\n1,x,2.5\n2,,3.5\n3,"q""q",\n' >in.csv
	csv2col in.csv >t.col
	local size off
	size=$(filesize t.col)
	for ((off = 0; off < size; off++)); do
		cp t.col f.col
		flip_byte f.col $off
		run --separate-stderr col2csv f.col
		no_crash
		[ "$status" -eq 3 ] || fail "byte $off of $size flipped: status $status, output '$output'"
	done
}

@test "garbage that is not MLSPILL3 is exit 3" {
	need col2csv
	printf 'a,b\n1,2\n' >not.col
	run --separate-stderr col2csv not.col
	no_crash
	status_is 3
	stderr_matches '^col2csv: '
	stdout_empty
}

@test "-o writes atomically; a failed run leaves the old file" {
	need csv2col col2csv
	make_small
	mkdir out
	run --separate-stderr col2csv -o out/t.csv small.col
	status_is 0
	stdout_empty
	cmp small.csv out/t.csv
	cp out/t.csv before.csv
	head -c 40 small.col >cut.col
	run --separate-stderr col2csv -o out/t.csv cut.col
	status_is 3
	cmp before.csv out/t.csv || fail "failed run changed out/t.csv"
	[ "$(ls -A out)" = t.csv ] || fail "left behind: $(ls -A out)"
	run --separate-stderr col2csv -o out/new.csv cut.col
	status_is 3
	[ "$(ls -A out)" = t.csv ] || fail "left behind: $(ls -A out)"
}

@test "--stats goes to stderr only" {
	need csv2col col2csv
	make_small
	run --separate-stderr col2csv --stats small.col
	status_is 0
	assert_output "$(cat small.csv)"
	stderr_has '5'
}

# make_mixed FILE ROWS: a canonical CSV with every type, NULLs, empty and
# quoted strings.
make_mixed() {
	awk -v n="$2" 'BEGIN {
		print "k,amount,day,ts,ok,name"
		for (i = 1; i <= n; i++) {
			name = "n" i
			if (i % 7 == 0)
				name = "\"a, \"\"b\"\" " i "\""
			else if (i % 11 == 0)
				name = "\"\""
			else if (i % 13 == 0)
				name = ""
			ok = i % 5 == 0 ? "" : i % 2 ? "true" : "false"
			frac = i % 4 ? sprintf(".%06d", i % 999999 + 1) : ""
			printf "%d,%s%d.%02d,19%02d-%02d-%02d,2024-01-%02d %02d:%02d:%02d%s,%s,%s\n",
			    i * 7919 % 1000003, i % 3 ? "" : "-", i % 1000,
			    1 + i % 99, 70 + i % 30, 1 + i % 12, 1 + i % 28,
			    1 + i % 28, i % 24, i % 60, (i * 7) % 60, frac,
			    ok, name
		}
	}' >"$1"
}

@test "30000 rows of every type and many frames come back byte for byte" {
	need csv2col col2csv
	make_mixed mixed.csv 30000
	csv2col mixed.csv >mixed.col || fail "csv2col mixed.csv failed"
	run --separate-stderr col2csv -o out.csv mixed.col
	status_is 0
	stderr_empty
	cmp mixed.csv out.csv || fail "csv2col | col2csv changed the CSV"
	# An unusual delimiter quotes the values whose text holds it.
	col2csv -d : mixed.col >colon.csv || fail "col2csv -d : failed"
	grep -q '^[0-9]*:-*[0-9]*\.[0-9][0-9]:[0-9-]*:"2024-01-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9.]*":' colon.csv ||
	    fail "timestamps not quoted under -d :"
}

@test "decimal(38,s) prints every digit with its scale in csv, jsonl and table" {
	need csv2col col2csv
	printf '%s\n' 'a' '-9999999999999999999999999999.9999999999' '1.5' \
	    '0' >in.csv
	csv2col --schema 'a:decimal(38,10)' in.csv >in.col
	run --separate-stderr col2csv --format jsonl in.col
	status_is 0
	assert_output "$(printf '%s\n' \
	    '{"a":-9999999999999999999999999999.9999999999}' \
	    '{"a":1.5000000000}' '{"a":0.0000000000}')"
	run --separate-stderr col2csv --format table in.col
	status_is 0
	assert_output "$(printf '%s\n' \
	    '                                       a' \
	    '----------------------------------------' \
	    '-9999999999999999999999999999.9999999999' \
	    '                            1.5000000000' \
	    '                            0.0000000000' '(3 rows)')"
	printf '%s\n' 'b' '12345678901234567890123456789012345678' >z.csv
	run --separate-stderr bash -c "set -o pipefail; csv2col --schema 'b:decimal(38,0)' z.csv | col2csv --format tsv"
	status_is 0
	assert_output "$(printf '%s\n' b 12345678901234567890123456789012345678)"
}

@test "-j 1 and -j 2 write the same bytes, from a file, a pipe and compressed frames" {
	need csv2col col2csv
	make_mixed mixed.csv 30000
	csv2col --batch-rows 1000 mixed.csv >mixed.col ||
	    fail "csv2col mixed.csv failed"
	csv2col -z --batch-rows 777 mixed.csv >mixedz.col ||
	    fail "csv2col -z mixed.csv failed"
	local f fmt
	for f in mixed.col mixedz.col; do
		for fmt in csv tsv; do
			col2csv -j 1 -f $fmt $f >one.txt || fail "-j 1 failed"
			col2csv -j 2 -f $fmt $f >two.txt || fail "-j 2 failed"
			cmp one.txt two.txt || fail "-j 2 -f $fmt $f differs"
			cat $f $f | col2csv -j 2 -f $fmt >pipe.txt ||
			    fail "a pipe of two streams failed"
			col2csv -j 1 -f $fmt $f $f >two1.txt
			cmp two1.txt pipe.txt || fail "two streams differ"
		done
	done
	cmp mixed.csv one.txt >/dev/null && fail "tsv equal to csv?"
	col2csv -j 2 mixed.col | cmp - mixed.csv || fail "round trip changed"
	col2csv -j 2 --limit 2500 mixed.col >lim.csv
	head -n 2501 mixed.csv | cmp - lim.csv || fail "--limit 2500 differs"
}

@test "-j 2: a stream cut short writes the rows before the cut, then exit 3" {
	need csv2col col2csv
	make_big big.csv 20000
	csv2col --batch-rows 1000 big.csv >big.col
	local size
	size=$(filesize big.col)
	head -c $((size / 2)) big.col >half.col
	run --separate-stderr bash -c "col2csv -j 1 half.col > one.csv"
	status_is 3
	run --separate-stderr bash -c "col2csv -j 2 half.col > two.csv"
	status_is 3
	stderr_has 'truncated'
	cmp one.csv two.csv || fail "-j 2 wrote other rows before the cut"
	# A reader that stops early is no error.
	run --separate-stderr bash -c "col2csv -j 2 big.col | head -n 3"
	status_is 0
	stderr_empty
	[ "${#lines[@]}" -eq 3 ] || fail "head -n 3 saw ${#lines[@]} lines"
}

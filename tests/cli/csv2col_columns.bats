#!/usr/bin/env bats
# csv2col_columns.bats - csv2col --columns as users run it: only the
# listed columns come out, in the order listed, with the values and types
# they have without it; the other fields are delimited (quoting and field
# counts checked) but not typed or converted.  Follows csv2col(1).

load helpers

@test "--columns: the listed columns in the listed order, by name or number" {
	need csv2col col2csv
	printf 'a,b,c\n1,x,2024-01-02\n2,y,2024-01-03\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --columns c,a in.csv | col2csv'
	status_is 0
	stderr_empty
	assert_equal "$output" "$(printf 'c,a\n2024-01-02,1\n2024-01-03,2')"
	run --separate-stderr bash -c 'set -o pipefail; csv2col --columns 3,b in.csv | col2csv'
	status_is 0
	assert_equal "$output" "$(printf 'c,b\n2024-01-02,x\n2024-01-03,y')"
}

@test "--columns gives what a projection of the whole conversion gives" {
	need csv2col colscan col2csv
	make_big big.csv 30000
	local opts
	for opts in "" "-j 1" "-j 2 --batch-rows 7"; do
		run --separate-stderr bash -c "set -o pipefail; csv2col $opts big.csv | colscan --select 'day, k, label' | col2csv > want.csv"
		status_is 0
		run --separate-stderr bash -c "set -o pipefail; csv2col $opts --columns day,k,label big.csv | col2csv > got.csv"
		status_is 0
		cmp want.csv got.csv || fail "csv2col $opts --columns: $(diff want.csv got.csv | head)"
	done
	run --separate-stderr bash -c 'csv2col --columns amount,day big.csv | colscan --schema'
	status_is 0
	assert_equal "$output" "$(printf 'amount:decimal(18,2)\nday:date')"
}

@test "--columns: a name no column has is a usage error naming the closest" {
	need csv2col
	printf 'price,qty\n1.5,2\n' >in.csv
	run --separate-stderr csv2col --columns qty,prise in.csv
	status_is 2
	stdout_empty
	stderr_has "no column 'prise' (did you mean 'price'?)"
	run --separate-stderr csv2col --columns 3 in.csv
	status_is 2
	stderr_has "no column 3; the input has 2 columns"
	run --separate-stderr csv2col --columns 0 in.csv
	status_is 2
	stderr_has "no column 0"
	run --separate-stderr csv2col --columns 'price,,qty' in.csv
	status_is 2
	stderr_has "an empty column name"
}

@test "--columns: a column listed twice, by name or by number, is a usage error" {
	need csv2col
	printf 'price,qty\n1.5,2\n' >in.csv
	run --separate-stderr csv2col --columns qty,qty in.csv
	status_is 2
	stdout_empty
	stderr_has "column qty is listed twice"
	run --separate-stderr csv2col --columns price,1 in.csv
	status_is 2
	stderr_has "column price is listed twice"
}

@test "--columns with --no-header and --header: numbers, cN names, header names" {
	need csv2col col2csv
	printf '1,2,3\n4,5,6\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --no-header --columns c3,1 in.csv | col2csv'
	status_is 0
	assert_equal "$output" "$(printf 'c3,c1\n3,1\n6,4')"
	run --separate-stderr bash -c 'set -o pipefail; csv2col --header --columns 2 in.csv | col2csv'
	status_is 0
	assert_equal "$output" "$(printf '2\n5')"
	# A header name made of digits is a name first: column "3" is the
	# first column here, not the third.
	printf '3,x,y\n7,8,9\n' >num.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --header --columns 3 num.csv | col2csv'
	status_is 0
	assert_equal "$output" "$(printf '3\n7')"
	run --separate-stderr bash -c 'set -o pipefail; csv2col --names p,q,r --columns r,p in.csv | col2csv'
	status_is 0
	assert_equal "$output" "$(printf 'r,p\n3,1\n6,4')"
}

@test "--columns with --schema: pins apply to the selected columns, others are not typed" {
	need csv2col col2csv colscan
	printf 'a,b,c\n1,2,3\nx,5,6\n' >in.csv
	# Column a holds text below an integer; unselected, it is no error,
	# even pinned to int64.
	run --separate-stderr bash -c 'set -o pipefail; csv2col --schema "a:int64,c:decimal(9,1)" --columns c,b in.csv | col2csv'
	status_is 0
	stderr_empty
	assert_equal "$output" "$(printf 'c,b\n3.0,2\n6.0,5')"
	run --separate-stderr bash -c 'csv2col --schema b:int32 --columns b in.csv | colscan --schema'
	status_is 0
	assert_equal "$output" "b:int32"
	# Selected, the same value is an error naming its line and field.
	run --separate-stderr bash -c 'csv2col --schema a:int64 --columns c,a in.csv > /dev/null'
	status_is 3
	stderr_has "in.csv:3:1: value does not fit column a of type int64 (x)"
	# An inferred type's hint pins the selected columns only.
	printf 'a,b,c\n1,2,3\n4,5,x\n' >late.csv
	run --separate-stderr bash -c 'csv2col --sample-rows 1 --columns b,c late.csv > /dev/null'
	status_is 3
	stderr_has "late.csv:3:3: value does not fit column c of type int64 (x); to read column c as text, give --schema 'b:int64,c:string'"
	# A pin naming no column is still an error.
	run --separate-stderr csv2col --schema zz:int64 --columns a in.csv
	status_is 2
}

@test "--columns: unselected fields still have their quoting and field count checked" {
	need csv2col col2csv
	printf 'a,b,c\n1,x,2\n3,"y"z,4\n5,6\n7,\377,8\n9,"q,r",10\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --columns c,a --rejects rej.txt in.csv | col2csv'
	status_is 0
	assert_equal "$output" "$(printf 'c,a\n2,1\n8,7\n10,9')"
	assert_equal "$(wc -l < rej.txt)" 2
	grep -q $'^3\tin.csv:3:2: unexpected text after closing quote' rej.txt ||
	    fail "bad quoting in column b not rejected: $(cat rej.txt)"
	grep -q $'^4\tin.csv:4:2: row has 2 fields, expected 3' rej.txt ||
	    fail "short row not rejected: $(cat rej.txt)"
	# Without --rejects the first of them stops the run.
	run --separate-stderr bash -c 'csv2col --columns c in.csv > /dev/null'
	status_is 3
	stderr_has "in.csv:3:2: unexpected text after closing quote"
	# Invalid UTF-8 is checked in the selected string columns only.
	run --separate-stderr bash -c 'csv2col --columns b --rejects rej2.txt in.csv > /dev/null'
	status_is 0
	grep -q $'^5\tin.csv:5:2: invalid UTF-8 in column b' rej2.txt ||
	    fail "invalid UTF-8 in selected column b not rejected: $(cat rej2.txt)"
}

@test "--describe with --columns prints them and the selected columns' types" {
	need csv2col
	printf 'a,b,c\n1,x,2.5\n' >in.csv
	run --separate-stderr csv2col --describe --columns c,a in.csv
	status_is 0
	assert_equal "$output" "-d ',' -q '\"' --header --columns 'c,a' -s 'c:decimal(18,1),a:int64'"
}

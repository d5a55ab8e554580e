#!/usr/bin/env bats
# csv2col_values.bats - csv2col's reading of values: inference that never
# changes a value's text (leading zeros, '+' signs, integers too wide for
# int64, a date column with one impossible date), ragged rows (NULL
# padding, one trailing empty field), each checked through col2csv as a
# user would, with the --stats notes csv2col(1) describes.

load helpers

@test "inference: leading zeros and '+' signs stay text, byte for byte" {
	need csv2col col2csv
	printf 'zip,phone,code\n01234,+4912345,007\n00501,+1,010\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats in.csv | col2csv > out.csv'
	status_is 0
	cmp in.csv out.csv || fail "$(diff in.csv out.csv)"
	stderr_has 'schema: zip:string,phone:string,code:string'
	stderr_has "column zip: string, not a number: in.csv:2 has 01234 (a leading zero or '+' would not print back)"
	stderr_has 'column phone: string, not a number: in.csv:2 has +4912345'
	stderr_has 'column code: string, not a number: in.csv:2 has 007'
}

@test "inference: 0, 0.5 and -0.25 are still numbers" {
	need csv2col col2csv
	printf 'a,b,c\n0,0.5,-0.25\n10,1.5,3.75\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats in.csv | col2csv > out.csv'
	status_is 0
	stderr_has 'schema: a:int64,b:decimal(18,1),c:decimal(18,2)'
	cmp in.csv out.csv || fail "$(diff in.csv out.csv)"
}

@test "inference: integers too wide for int64 are decimal(38,0), exact" {
	need csv2col col2csv
	printf 'id,n\n123456789012345678901,1\n-99999999999999999999999999999999999999,2\n7,3\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats in.csv | col2csv > out.csv'
	status_is 0
	stderr_has 'schema: id:decimal(38,0),n:int64'
	cmp in.csv out.csv || fail "$(diff in.csv out.csv)"
}

@test "inference: one impossible date makes the column text, and --stats names its line" {
	need csv2col col2csv
	printf 'd,n\n2024-02-28,1\n2024-02-29,2\n2024-02-30,3\n2024-03-01,4\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats in.csv | col2csv > out.csv'
	status_is 0
	cmp in.csv out.csv || fail "$(diff in.csv out.csv)"
	stderr_has 'schema: d:string,n:int64'
	stderr_has 'column d: string, not date: in.csv:4 has 2024-02-30, which is no valid date'
	printf 't\n2024-01-01 10:00:00\n2024-01-01 25:00:00\n' >ts.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats ts.csv | col2csv > out.csv'
	status_is 0
	cmp ts.csv out.csv
	stderr_has 'column t: string, not timestamp: ts.csv:3 has 2024-01-01 25:00:00, which is no valid timestamp'
}

@test "inference: a text column is not noted" {
	need csv2col
	printf 'name,n\nann,1\nbob,2\n' >in.csv
	run --separate-stderr bash -c 'csv2col --stats in.csv > /dev/null'
	status_is 0
	[[ $stderr != *'column name'* ]] || fail "$stderr"
}

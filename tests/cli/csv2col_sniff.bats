#!/usr/bin/env bats
# csv2col_sniff.bats - csv2col on the CSV people have: comment and title
# lines above the table (--comment, --skip, the preamble message), tables
# whose header is a row of years, two plausible dialects, broken quoting
# in the first record, and empty inputs through the downstream tools.
# Each expectation follows csv2col(1), section SNIFFING.

load helpers

# A World Bank indicator export: four lines (two of them blank) above a
# header whose year columns head decimal values.
world_bank() {
	printf '%s\n' \
	    '"Data Source","World Development Indicators",' \
	    '' \
	    '"Last Updated Date","2024-06-28",' \
	    '' \
	    '"Country Name","Country Code","Indicator Name","Indicator Code","1960","1961","2023",' \
	    '"Aruba","ABW","GDP (current US$)","NY.GDP.MKTP.CD","","405586592.17","3545110614.50",' \
	    '"Africa Eastern","AFE","GDP (current US$)","NY.GDP.MKTP.CD","21125015251.50","21616228139.10","1245472471780.25",' > "$1"
}

# Three columns under more '#' comment lines than rows: read as one column
# named "x,y,z" once, with exit status 0.
commented() {
	printf '%s\n' '# exported by a tool' '# second note' '# third note' \
	    '# fourth note' 'x,y,z' '1,2,3' '4,5,6' > "$1"
}

@test "a commented file is never read as one column: it fails naming --skip and --comment" {
	need csv2col
	commented c.csv
	run --separate-stderr csv2col c.csv
	status_is 3
	stdout_empty
	stderr_has "c.csv:5: the table seems to start here (3 fields"
	stderr_has "--skip 4"
	stderr_has "--comment '#'"
}

@test "--comment drops comment lines wherever they are and counts them in --stats" {
	need csv2col col2csv
	commented c.csv
	printf '# a comment between rows\n7,8,9\n#last\n' >> c.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats --comment "#" c.csv | col2csv'
	status_is 0
	[ "$output" = "$(printf 'x,y,z\n1,2,3\n4,5,6\n7,8,9')" ] || fail "got: $output"
	stderr_has "6 comment lines"
	stderr_has "schema: x:int64,y:int64,z:int64"
	# Mapped or streamed, one thread or two: the same rows.
	run --separate-stderr bash -c 'set -o pipefail; cat c.csv | csv2col -j 2 --comment "#" | col2csv'
	status_is 0
	[ "$output" = "$(printf 'x,y,z\n1,2,3\n4,5,6\n7,8,9')" ] || fail "got: $output"
	# A '#' inside a field, or not at a line's start, is data.
	printf 'a,b\n1,x#y\n2, #z\n' > d.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --comment "#" d.csv | col2csv'
	status_is 0
	[ "$output" = "$(printf 'a,b\n1,x#y\n2, #z')" ] || fail "got: $output"
}

@test "--comment refuses the delimiter or the quote" {
	need csv2col
	printf 'a,b\n1,2\n' > in.csv
	run --separate-stderr csv2col -d , --comment , in.csv
	status_is 2
	stderr_has "comment character"
}

@test "a World Bank file: the preamble error names line 5 and --skip 4, which reads it" {
	need csv2col col2csv
	world_bank wb.csv
	run --separate-stderr csv2col wb.csv
	status_is 3
	stderr_has "wb.csv:5: the table seems to start here (8 fields"
	stderr_has "after 4 lines with other field counts"
	stderr_has "--skip 4"
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats --skip 4 wb.csv | col2csv'
	status_is 0
	stderr_has "4 lines skipped (--skip)"
	stderr_has "header: the first row's numbers are labels"
	stderr_has "schema: Country Name:string,Country Code:string,Indicator Name:string,Indicator Code:string,1960:decimal(18,2),1961:decimal(18,2),2023:decimal(18,2),c8:string"
	[ "$(printf '%s\n' "$output" | sed -n 2p)" = 'Aruba,ABW,GDP (current US$),NY.GDP.MKTP.CD,,405586592.17,3545110614.50,' ] ||
	    fail "got: $output"
}

@test "--skip applies to every input, and line numbers still count from the file's first line" {
	need csv2col col2csv
	printf 'Title\nx,y\n1,2\n' > a.csv
	printf 'Other title\nx,y\n3,oops\n' > b.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --skip 1 a.csv a.csv | col2csv'
	status_is 0
	[ "$output" = "$(printf 'x,y\n1,2\n1,2')" ] || fail "got: $output"
	run --separate-stderr csv2col --skip 1 a.csv b.csv
	status_is 3
	stderr_has "b.csv:3:2: value does not fit column y of type int64 (oops)"
}

@test "a header that lost a field is reported with the line the table starts at" {
	need csv2col
	printf 'a,b\n1,2,3\n4,5,6\n' > in.csv
	run --separate-stderr csv2col in.csv
	status_is 3
	stderr_has "in.csv:2: the table seems to start here (3 fields"
	stderr_has "after 1 line with other field counts"
	stderr_has "--skip 1"
}

@test "year-headed tables: years over decimals are a header; over integers beside text, an error" {
	need csv2col col2csv
	printf 'country,2019,2020\nFrance,1.5,2.25\nSpain,3.5,4.75\n' > y.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats y.csv | col2csv'
	status_is 0
	[ "$output" = "$(printf 'country,2019,2020\nFrance,1.50,2.25\nSpain,3.50,4.75')" ] ||
	    [ "$output" = "$(printf 'country,2019,2020\nFrance,1.5,2.25\nSpain,3.5,4.75')" ] ||
	    fail "got: $output"
	stderr_has "header: the first row's numbers are labels"
	stderr_has "schema: country:string,2019:decimal(18,1),2020:decimal(18,2)"
	# A run of column numbers over floats.
	printf '1,2,3\n1.5e3,2.5,0.5\n2e1,1.25,7.5\n' > n.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats n.csv | col2csv'
	status_is 0
	stderr_has "schema: 1:float64,2:decimal(18,2),3:decimal(18,1)"
	# Years over integers may be names or values.
	printf 'country,2019,2020\nFrance,67,68\n' > yi.csv
	run --separate-stderr csv2col yi.csv
	status_is 3
	stderr_has "yi.csv:1: cannot tell whether this row is a header"
	stderr_has "--header or --no-header"
	run --separate-stderr bash -c 'set -o pipefail; csv2col --header yi.csv | col2csv'
	status_is 0
	[ "$output" = "$(printf 'country,2019,2020\nFrance,67,68')" ] || fail "got: $output"
	run --separate-stderr bash -c 'set -o pipefail; csv2col --no-header --stats yi.csv | col2csv'
	status_is 0
	stderr_has "no header: as given"
	# Numbers that are no label pattern stay data.
	printf '7,3\n1.5,2.5\n' > d.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats d.csv | col2csv'
	status_is 0
	stderr_has "no header: the first row has values"
}

@test "two delimiters giving the same table fail, naming both" {
	need csv2col col2csv
	printf 'a,b;c\nd,e;f\n' > in.csv
	run --separate-stderr csv2col in.csv
	status_is 3
	stderr_has "two readings fit: delimiter ',' gives 2 columns and delimiter ';' gives 2"
	run --separate-stderr bash -c 'set -o pipefail; csv2col -d ";" --no-header in.csv | col2csv'
	status_is 0
	[ "$output" = "$(printf 'c1,c2\na\\,b,c\nd\\,e,f')" ] || [ "$output" = "$(printf 'c1,c2\n"a,b",c\n"d,e",f')" ] ||
	    fail "got: $output"
	# Types decide when they can: numbers split by the wrong delimiter
	# are text.
	printf 'a;b\n1;2.5\n3;4.5\n' > t.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats t.csv | col2csv'
	status_is 0
	stderr_has "delimiter ';'"
}

@test "a broken quote in the first record gets its precise message" {
	need csv2col
	printf '"Pedro "the" legend",1\n' > a.csv
	run --separate-stderr csv2col a.csv
	status_is 3
	stderr_has 'a.csv:1:1: unexpected text after closing quote ("Pedro "the" legend",1)'
	printf '\n"abc,1\nx,2\n' > b.csv
	run --separate-stderr csv2col b.csv
	status_is 3
	stderr_has 'b.csv:2:1: unterminated quote ("abc,1\nx,2\n)'
	printf 'x,"Pedro "the" legend"\ny,z\n' > c.csv
	run --separate-stderr csv2col --no-header c.csv
	status_is 3
	stderr_has 'c.csv:1:2: unexpected text after closing quote'
}

@test "an input of no bytes is an empty stream every tool accepts" {
	need csv2col col2csv col2parquet colsort colscan colagg
	run --separate-stderr bash -c 'set -o pipefail; : | csv2col | col2csv'
	status_is 0
	stdout_empty
	run --separate-stderr bash -c 'set -o pipefail; : | csv2col | col2parquet -o e.parquet'
	status_is 0
	[ -s e.parquet ] || fail "no e.parquet"
	run --separate-stderr bash -c 'set -o pipefail; : | csv2col | colscan | col2csv'
	status_is 0
	run --separate-stderr bash -c "set -o pipefail; : | csv2col | colagg 'count(*)' | col2csv"
	status_is 0
	[ "$output" = "$(printf 'count(*)\n0')" ] || fail "got: $output"
	# Blank and comment lines only: as empty.
	printf '\n# nothing today\n\n' > blank.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats --comment "#" blank.csv | col2csv'
	status_is 0
	stderr_has "no rows: an empty stream of no columns"
	# Rows after an empty first input have no columns to go to.
	printf 'a,b\n1,2\n' > rows.csv
	run --separate-stderr csv2col --comment "#" blank.csv rows.csv
	status_is 3
	stderr_has "after an empty first input"
}

@test "an empty input with --schema is an empty stream of that schema, for a cron job" {
	need csv2col col2csv col2parquet colsort colscan colagg
	local s='k:int64,price:decimal(10,2),day:date'
	run --separate-stderr bash -c "set -o pipefail; : | csv2col -s '$s' | col2csv"
	status_is 0
	[ "$output" = "k,price,day" ] || fail "got: $output"
	run --separate-stderr bash -c "set -o pipefail; : | csv2col -s '$s' | colsort -k k | col2csv"
	status_is 0
	[ "$output" = "k,price,day" ] || fail "got: $output"
	run --separate-stderr bash -c "set -o pipefail; : | csv2col -s '$s' | colscan | col2csv"
	status_is 0
	[ "$output" = "k,price,day" ] || fail "got: $output"
	run --separate-stderr bash -c "set -o pipefail; : | csv2col -s '$s' | colagg --by k 'sum(price)' | col2csv"
	status_is 0
	run --separate-stderr bash -c "set -o pipefail; : | csv2col -s '$s' | col2parquet -o e.parquet && colscan e.parquet | col2csv"
	status_is 0
	[ "$output" = "k,price,day" ] || fail "got: $output"
}

@test "a header-only file gives its columns as strings and no rows" {
	need csv2col col2csv
	printf 'a,b,c\n' > h.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats h.csv | col2csv'
	status_is 0
	[ "$output" = "a,b,c" ] || fail "got: $output"
	stderr_has "schema: a:string,b:string,c:string"
	stderr_has "0 rows"
}

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

@test "ragged rows: one trailing empty field on data rows is dropped and counted" {
	need csv2col col2csv
	printf 'a,b,c\n1,2,3,\n4,5,6,\n7,8,9\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats in.csv | col2csv'
	status_is 0
	assert_output $'a,b,c\n1,2,3\n4,5,6\n7,8,9'
	stderr_has 'schema: a:int64,b:int64,c:int64'
	stderr_has 'ragged rows: 0 padded with NULLs, 2 read without a trailing empty field'
	# Not an empty field, nor a quoted one, nor two: still an error.
	printf 'a,b\n1,2,x\n' >x.csv
	run --separate-stderr csv2col x.csv
	status_is 3
	stderr_has 'x.csv:2:3: row has 3 fields, expected 2 (1,2,x)'
	printf 'a,b\n1,2,""\n' >q.csv
	run --separate-stderr csv2col q.csv
	status_is 3
	stderr_has 'q.csv:2:3: row has 3 fields, expected 2'
	printf 'a,b\n1,2,,\n' >t.csv
	run --separate-stderr csv2col t.csv
	status_is 3
	stderr_has 't.csv:2:3: row has 4 fields, expected 2'
}

@test "ragged rows: --null-padding pads short rows with NULL, from a pipe and a big file alike" {
	need csv2col col2csv
	printf 'a,b,c\n1,2,3\n4,5\n6\n' >in.csv
	run --separate-stderr csv2col in.csv
	status_is 3
	stderr_has 'in.csv:3:2: row has 2 fields, expected 3 (4,5)'
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats --null-padding < in.csv | col2csv --format jsonl'
	status_is 0
	assert_output $'{"a":1,"b":2,"c":3}\n{"a":4,"b":5,"c":null}\n{"a":6,"b":null,"c":null}'
	stderr_has 'ragged rows: 2 padded with NULLs, 0 read without a trailing empty field'
	# Several chunks on several threads: every padded row counted once.
	awk 'BEGIN { print "a,b,c"; for (i = 0; i < 400000; i++) print (i % 2 ? i "," i : i "," i "," i) }' >big.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col -j 2 --stats --null-padding big.csv | col2csv | tail -n 2'
	status_is 0
	assert_output $'399998,399998,399998\n399999,399999,'
	stderr_has 'ragged rows: 200000 padded with NULLs, 0 read without a trailing empty field'
	stderr_has '400000 rows, 0 rejected'
}

@test "numbers: a ';' file with decimal commas is sniffed and typed as exact decimals" {
	need csv2col col2csv
	printf 'city;temp;rain\nBonn;1,5;0,25\nKoeln;-2,75;12,5\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats in.csv | col2csv'
	status_is 0
	assert_output $'city,temp,rain\nBonn,1.50,0.25\nKoeln,-2.75,12.50'
	stderr_has 'schema: city:string,temp:decimal(18,2),rain:decimal(18,2)'
	stderr_has "numbers: decimal comma (sniffed: 2 columns of numbers with ',', 0 with '.')"
}

@test "numbers: --decimal-comma and --thousands read 1.234,5 exactly, and refuse 1.5" {
	need csv2col col2csv
	printf 'a,b\n"1.234,5",3\n"2,25",1.000\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --decimal-comma --thousands . in.csv | col2csv'
	status_is 0
	assert_output $'a,b\n1234.50,3\n2.25,1000'
	# A '.' in a decimal-comma file is no number: the column stays text.
	printf 'a;b\n1,5;x\n3.5;y\n' >dot.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats --decimal-comma dot.csv | col2csv'
	status_is 0
	assert_output $'a,b\n"1,5",x\n3.5,y'
	# Pinned, it is an error with its place.
	run --separate-stderr bash -c 'csv2col --decimal-comma -s "a:decimal(10,2)" dot.csv > /dev/null'
	status_is 3
	stderr_has 'dot.csv:3:1: value does not fit column a of type decimal(10,2) (3.5)'
	run --separate-stderr csv2col --thousands 5 in.csv
	status_is 2
	stderr_has 'the thousands separator cannot be a digit'
}

@test "--names: a headerless file gets its columns' names, and -s pins by them" {
	need csv2col col2csv
	printf '1,Bonn,2.5\n2,Koeln,3.25\n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats --names id,city,v -s v:float64 in.csv | col2csv'
	status_is 0
	assert_output $'id,city,v\n1,Bonn,2.5\n2,Koeln,3.25'
	stderr_has 'schema: id:int64,city:string,v:float64'
	stderr_has 'dialect: delimiter'
	stderr_has ', no header'
}

@test "--names with --header: the header row is read and its names replaced" {
	need csv2col col2csv
	printf 'a,b\n1,x\n' >in.csv
	printf 'a,b\n2,y\n' >in2.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --header --names n,s in.csv in2.csv | col2csv'
	status_is 0
	assert_output $'n,s\n1,x\n2,y'
	# Without --header the first row is data.
	run --separate-stderr bash -c 'set -o pipefail; csv2col --names n,s in.csv | col2csv'
	status_is 0
	assert_output $'n,s\na,b\n1,x'
}

@test "--names: a wrong count, an empty or a repeated name is exit 2" {
	need csv2col
	printf '1,2,3\n4,5,6\n' >in.csv
	run --separate-stderr csv2col --names a,b in.csv
	status_is 2
	stderr_has 'names: 2 names given (a,b), but the table has 3 columns: give one name per column'
	run --separate-stderr csv2col --names a,b,c,d in.csv
	status_is 2
	stderr_has '4 names given (a,b,c,d), but the table has 3 columns'
	run --separate-stderr csv2col --names a,,c in.csv
	status_is 2
	stderr_has "names: name 2 is empty in 'a,,c'"
	run --separate-stderr csv2col --names a,b,a in.csv
	status_is 2
	stderr_has "names: 'a' is given twice in 'a,b,a'"
}

@test "--trim: blanks around unquoted fields go before typing; quoted fields keep theirs" {
	need csv2col col2csv
	printf ' id , city ,v\n 1 ,  Bonn\t, 2.5 \n2," Koeln ",  \n' >in.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats --trim in.csv | col2csv'
	status_is 0
	stderr_has 'schema: id:int64,city:string,v:decimal(18,1)'
	assert_output $'id,city,v\n1,Bonn,2.5\n2, Koeln ,'
	# The blanks-only field is NULL, not "".
	run --separate-stderr bash -c 'set -o pipefail; csv2col --trim in.csv | colscan --where "v is null" | col2csv'
	status_is 0
	assert_output $'id,city,v\n2, Koeln ,'
	# Without --trim nothing changes: the blanks are text.
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats in.csv | col2csv'
	status_is 0
	stderr_has 'schema:  id :string, city :string,v:string'
}

@test "--trim: a pinned column and a later input's header are trimmed; a bad value names its place" {
	need csv2col col2csv
	printf 'a ,b\n 1 ,x\n' >a.csv
	printf ' a, b \n2 , y\n 3x ,z\n' >b.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --trim -s a:int32 a.csv b.csv | col2csv'
	status_is 3
	stderr_has 'b.csv:3:1: value does not fit column a of type int32 (3x)'
	run --separate-stderr bash -c 'set -o pipefail; head -2 b.csv > c.csv; csv2col --trim -s a:int32 a.csv c.csv | col2csv'
	status_is 0
	assert_output $'a,b\n1,x\n2,y'
}

@test "--date-format and --timestamp-format: inferred, and read exactly" {
	need csv2col col2csv
	printf 'id,d,t,iso\n1,03/05/2024,03.05.2024 14:30:05.25,2024-01-01\n2,31/12/1999,,2024-01-02\n3,,1.1.1970 0:00:00.5,2024-01-03\n' >in.csv
	run --separate-stderr bash -c "set -o pipefail; csv2col --stats --date-format '%d/%m/%Y' --timestamp-format '%d.%m.%Y %H:%M:%S.%f' in.csv | col2csv"
	status_is 0
	stderr_has 'schema: id:int64,d:date,t:timestamp,iso:string'
	assert_output $'id,d,t,iso\n1,2024-05-03,2024-05-03 14:30:05.250000,2024-01-01\n2,1999-12-31,,2024-01-02\n3,,1970-01-01 00:00:00.500000,2024-01-03'
	# Without the formats the columns are text (and the ISO one a date).
	run --separate-stderr bash -c 'set -o pipefail; csv2col --stats in.csv > /dev/null'
	status_is 0
	stderr_has 'schema: id:int64,d:string,t:string,iso:date'
}

@test "--date-format: a value that does not parse names its place; a pinned column too" {
	need csv2col
	printf 'd\n03/05/2024\n30/02/2024\n' >in.csv
	run --separate-stderr bash -c "csv2col --date-format '%d/%m/%Y' --sample-rows 1 in.csv > /dev/null"
	status_is 3
	stderr_has 'in.csv:3:1: value does not fit column d of type date (30/02/2024); to read column d as text, give --schema '\''d:string'\'' (or edit the types; --describe prints all the options)'
	printf 'd\n2024-05-03\n5 Mar 2024\n' >pin.csv
	run --separate-stderr bash -c "csv2col -s d:date --date-format '%e %b %Y' pin.csv > /dev/null"
	status_is 3
	stderr_has 'pin.csv:2:1: value does not fit column d of type date (2024-05-03)'
	# A format that is not supported is a usage error.
	run --separate-stderr csv2col --date-format '%d/%m/%Y %H' in.csv
	status_is 2
	stderr_has "date format '%d/%m/%Y %H': %H is not supported"
	run --separate-stderr csv2col --timestamp-format '%H:%M' in.csv
	status_is 2
	stderr_has 'needs a year'
}

@test "--describe: the sample's dialect, header and schema as options that read the file alike" {
	need csv2col col2csv
	printf 'id;name;price\n1;a b;1,5\n2;x'"'"'y;2,25\n' >in.csv
	run --separate-stderr csv2col --describe in.csv
	status_is 0
	stderr_empty
	assert_output $'-d \';\' -q \'"\' --header --decimal-comma -s \'id:int64,name:string,price:decimal(18,2)\''
	# Pasted back, it reads the file as without it.
	csv2col in.csv | col2csv > want.csv
	eval "csv2col $output in.csv" | col2csv > got.csv
	cmp want.csv got.csv || fail "$(diff want.csv got.csv)"
	# Tabs, no quote, given options repeated, shell quoting of a name.
	printf "it's\tb\n1\tx\n" >t.tsv
	run --separate-stderr csv2col --describe -q none --trim --date-format '%d/%m/%Y' -n NA t.tsv
	status_is 0
	assert_output "-d tab -q none --header --trim -n 'NA' --date-format '%d/%m/%Y' -s 'it'\\''s:int64,b:string'"
	eval "csv2col $output t.tsv" | col2csv > got.csv
	assert_equal "$(cat got.csv)" $'it\'s,b\n1,x'
}

@test "--describe: reads only the sample, writes no stream, refuses -o and names a spec cannot hold" {
	need csv2col
	run --separate-stderr timeout 60 bash -c '(echo a,b; yes 1,2.5) | csv2col --describe'
	status_is 0
	assert_output "-d ',' -q '\"' --header -s 'a:int64,b:decimal(18,1)'"
	printf 'a,b\n1,2\n' >in.csv
	run --separate-stderr csv2col --describe -o out.col in.csv
	status_is 2
	stderr_has '--describe writes no stream and no rejects: drop -o and --rejects'
	[ ! -e out.col ] || fail "out.col was written"
	printf '"x,y",b\n"p",q\n' >c.csv
	run --separate-stderr csv2col --describe --header c.csv
	status_is 3
	stdout_empty
	stderr_has "column 1's name 'x,y' cannot be written in a --schema spec"
	run --separate-stderr csv2col --describe --header --names xy,b c.csv
	status_is 0
	assert_output "-d ',' -q '\"' --header --names 'xy,b' -s 'xy:string,b:string'"
}

# ---- encodings ----

# A table with accents, curly quotes and the euro sign, as UTF-8.
enc_table() {
	printf 'name,note,price\ncaf\xc3\xa9,\xe2\x80\x9cbon\xe2\x80\x9d,1.50\nna\xc3\xafve,\xe2\x82\xac 2,2.25\n'
}

@test "--encoding: windows-1252, latin-1 and utf-16 files read as their UTF-8, from files, pipes and gzip" {
	need csv2col col2csv
	enc_table >want.csv
	iconv -f UTF-8 -t WINDOWS-1252 want.csv >cp.csv
	iconv -f UTF-8 -t UTF-16LE want.csv >le.csv
	iconv -f UTF-8 -t UTF-16BE want.csv >be.csv
	printf 'name,x\ncaf\xc3\xa9,\xc3\xbf\n' >l1want.csv
	iconv -f UTF-8 -t ISO-8859-1 l1want.csv >l1.csv
	for e in windows-1252 CP1252 Windows_1252; do
		csv2col --encoding "$e" cp.csv | col2csv >got.csv
		cmp want.csv got.csv || fail "$e: $(diff want.csv got.csv)"
	done
	csv2col --encoding cp1252 <cp.csv | col2csv >got.csv
	cmp want.csv got.csv || fail "pipe: $(diff want.csv got.csv)"
	gzip -c cp.csv >cp.csv.gz
	csv2col --encoding cp1252 cp.csv.gz | col2csv >got.csv
	cmp want.csv got.csv || fail "gzip: $(diff want.csv got.csv)"
	for e in latin-1 ISO-8859-1 latin1; do
		csv2col --encoding "$e" l1.csv | col2csv >got.csv
		cmp l1want.csv got.csv || fail "$e: $(diff l1want.csv got.csv)"
	done
	csv2col --encoding utf-16le le.csv | col2csv >got.csv
	cmp want.csv got.csv || fail "utf-16le: $(diff want.csv got.csv)"
	gzip -c be.csv | csv2col --encoding UTF16BE | col2csv >got.csv
	cmp want.csv got.csv || fail "utf-16be gzip pipe: $(diff want.csv got.csv)"
	# Two files in one encoding, each with its header.
	csv2col --encoding cp1252 cp.csv cp.csv | col2csv >got.csv
	(cat want.csv; tail -n +2 want.csv) >want2.csv
	cmp want2.csv got.csv || fail "two files: $(diff want2.csv got.csv)"
	# --describe repeats it.
	run --separate-stderr csv2col --describe --encoding latin1 l1.csv
	status_is 0
	assert_output --partial " --encoding latin-1 "
}

@test "--encoding: UTF-16 with a byte order mark needs no option, in a file, a pipe or a tar member; a UTF-8 mark is skipped" {
	need csv2col col2csv
	enc_table >want.csv
	iconv -f UTF-8 -t UTF-16 want.csv >u16.csv
	{ printf '\xfe\xff'; iconv -f UTF-8 -t UTF-16BE want.csv; } >u16be.csv
	head -c 2 u16.csv | od -An -tx1 | grep -q 'ff fe' || skip "iconv wrote no little-endian mark"
	for f in u16.csv u16be.csv; do
		csv2col "$f" | col2csv >got.csv
		cmp want.csv got.csv || fail "$f: $(diff want.csv got.csv)"
		csv2col <"$f" | col2csv >got.csv
		cmp want.csv got.csv || fail "pipe $f: $(diff want.csv got.csv)"
		csv2col --encoding utf-16 "$f" | col2csv >got.csv
		cmp want.csv got.csv || fail "utf-16 $f: $(diff want.csv got.csv)"
	done
	gzip -c u16be.csv | csv2col | col2csv >got.csv
	cmp want.csv got.csv || fail "gzip: $(diff want.csv got.csv)"
	cp want.csv a.csv
	tar cf t.tar u16.csv a.csv
	csv2col t.tar | col2csv >got.csv
	(cat want.csv; tail -n +2 want.csv) >want2.csv
	cmp want2.csv got.csv || fail "tar: $(diff want2.csv got.csv)"
	{ printf '\xef\xbb\xbf'; cat want.csv; } >bom8.csv
	csv2col bom8.csv | col2csv >got.csv
	cmp want.csv got.csv || fail "UTF-8 mark: $(diff want.csv got.csv)"
	# The fixed orders keep a mark, which is then skipped as UTF-8's.
	csv2col --encoding utf-16le u16.csv | col2csv >got.csv
	cmp want.csv got.csv || fail "utf-16le with its mark: $(diff want.csv got.csv)"
	run --separate-stderr csv2col --encoding utf-16le u16be.csv
	status_is 3
	stderr_has "u16be.csv: its byte order mark says UTF-16BE, not UTF-16LE: give --encoding utf-16be"
}

@test "--encoding: invalid bytes for the encoding name file, line and byte offset; a bad name lists the encodings" {
	need csv2col
	printf 'a,b\nx,1\ny\x81z,2\n' >bad.csv
	run --separate-stderr csv2col --encoding windows-1252 bad.csv
	status_is 3
	stderr_has "csv2col: bad.csv:3: invalid Windows-1252 at byte offset 9 (0x81 is no character in it): if the file is Latin-1, give --encoding latin-1"
	run --separate-stderr csv2col --encoding latin-1 bad.csv
	status_is 0
	printf 'a\0,\0b\0\n\0x\0y' >odd.csv
	run --separate-stderr csv2col --encoding utf-16le odd.csv
	status_is 3
	stderr_has "odd.csv:2: the input ends inside a UTF-16LE character at byte offset 10"
	printf 'a\0,\0b\0\n\0\x00\xdc,\0' >sur.csv
	run --separate-stderr csv2col --encoding utf-16le sur.csv
	status_is 3
	stderr_has "sur.csv:2: invalid UTF-16LE at byte offset 8 (0x00 0xDC"
	{ printf '\xef\xbb\xbf'; printf 'a,b\n1,2\n'; } >u8.csv
	run --separate-stderr csv2col --encoding latin-1 u8.csv
	status_is 3
	stderr_has "u8.csv: starts with a UTF-8 byte order mark, so it is UTF-8, not Latin-1: drop --encoding latin-1"
	run --separate-stderr csv2col --encoding latin2 u8.csv
	status_is 2
	stderr_has "unknown encoding 'latin2' (did you mean 'latin-1'?); the encodings are utf-8 (the default), latin-1 (iso-8859-1), windows-1252 (cp1252), utf-16, utf-16le, utf-16be"
}

@test "invalid UTF-8: the message names the encoding the bytes look like and the option to give" {
	need csv2col
	enc_table | iconv -f UTF-8 -t WINDOWS-1252 >cp.csv
	run --separate-stderr csv2col cp.csv
	status_is 3
	stderr_has "cp.csv:2:1: invalid UTF-8 in column name (caf\\xe9); looks like Windows-1252 (bytes 0x80-0x9F as its punctuation): try --encoding windows-1252"
	printf 'name,x\ncaf\xe9,1\nna\xefve,2\n' >l1.csv
	run --separate-stderr csv2col l1.csv
	status_is 3
	stderr_has "l1.csv:2:1: invalid UTF-8 in column name (caf\\xe9); looks like Latin-1 (ISO-8859-1) or Windows-1252: try --encoding latin-1"
	# Streamed alike.
	run --separate-stderr bash -c 'gzip -c l1.csv | csv2col'
	status_is 3
	stderr_has "stdin:2:1: invalid UTF-8 in column name (caf\\xe9); looks like Latin-1"
	# A header pinned as one.
	printf 'caf\xe9,b\n1,2\n' >h.csv
	run --separate-stderr csv2col --header h.csv
	status_is 3
	stderr_has "h.csv:1:1: invalid UTF-8 or NUL in header name (caf\\xe9); looks like Latin-1"
	# UTF-8 and Latin-1 in one file: no one encoding.
	printf 'a,b\n\xc3\xa9\xc3\xa9\xc3\xa9,1\nx\xe9,2\n' >mix.csv
	run --separate-stderr csv2col mix.csv
	status_is 3
	stderr_has "mix.csv:3:1: invalid UTF-8 in column a (x\\xe9); the input is not UTF-8 throughout"
	# UTF-16 without its mark, from a file and a pipe.
	enc_table | iconv -f UTF-8 -t UTF-16LE >le.csv
	run --separate-stderr csv2col le.csv
	status_is 3
	stderr_has "le.csv: looks like UTF-16LE without a byte order mark (a NUL byte every other byte): try --encoding utf-16le"
	enc_table | iconv -f UTF-8 -t UTF-16BE >be.csv
	run --separate-stderr bash -c 'csv2col <be.csv'
	status_is 3
	stderr_has "stdin: looks like UTF-16BE without a byte order mark (a NUL byte every other byte): try --encoding utf-16be"
}

@test "a type error gives the -s spec to paste with that column as text, and the spec reads the file" {
	need csv2col col2csv
	printf 'id,price,day\n1,2.50,2024-01-02\n2,3.75,2024-01-03\n3,n/a,2024-01-04\n' >in.csv
	run --separate-stderr bash -c 'csv2col --sample-rows 2 in.csv > /dev/null'
	status_is 3
	stderr_has "in.csv:4:2: value does not fit column price of type decimal(18,2) (n/a); to read column price as text, give --schema 'id:int64,price:string,day:date' (or edit the types; --describe prints all the options)"
	spec=$(printf '%s\n' "$stderr" | sed -n "s/.*give --schema '\([^']*\)'.*/\1/p")
	csv2col --sample-rows 2 -s "$spec" in.csv | col2csv >got.csv
	cmp in.csv got.csv || fail "$(diff in.csv got.csv)"
	# A pinned type too; names a spec cannot hold get the pointer.
	run --separate-stderr bash -c 'printf "\"a,b\",c\n1,5\n2,6\n3,4z\n" | csv2col -s "c:int64" > /dev/null'
	status_is 3
	stderr_has "stdin:4:2: value does not fit column c of type int64 (4z); give column c its type with --schema (--describe prints the schema to edit)"
	run --separate-stderr bash -c 'csv2col -s price:decimal\(9,2\) in.csv > /dev/null'
	status_is 3
	stderr_has "in.csv:4:2: value does not fit column price of type decimal(9,2) (n/a); to read column price as text, give --schema 'id:int64,price:string,day:date'"
}

@test "a short row suggests --null-padding; a long one does not" {
	need csv2col
	printf 'a,b,c\n1,2,3\n4,5\n' >short.csv
	run --separate-stderr bash -c 'csv2col short.csv > /dev/null'
	status_is 3
	stderr_has "short.csv:3:2: row has 2 fields, expected 3 (4,5); if rows leave out empty trailing fields, give --null-padding"
	printf 'a,b\n1,2\n4,5,6\n' >long.csv
	run --separate-stderr bash -c 'csv2col long.csv > /dev/null'
	status_is 3
	stderr_has "long.csv:3:3: row has 3 fields, expected 2 (4,5,6)"
	[[ "$stderr" != *null-padding* ]] || fail "a long row got the --null-padding hint: $stderr"
}

@test "--date-format COLUMN=FORMAT: each column its own format, the bare one for the rest" {
	need csv2col col2csv
	printf 'a,b,c,d\n03/05/2024,2024-05-03,05.03.2024,x\n04/05/2024,2024-05-04,06.13.2024,y\n' >in.csv
	csv2col --date-format a=%d/%m/%Y --date-format c=%m.%d.%Y in.csv | col2csv >got.csv
	printf 'a,b,c,d\n2024-05-03,2024-05-03,2024-05-03,x\n2024-05-04,2024-05-04,2024-06-13,y\n' >want.csv
	cmp want.csv got.csv || fail "$(diff want.csv got.csv)"
	run --separate-stderr csv2col --describe --date-format a=%d/%m/%Y --date-format c=%m.%d.%Y in.csv
	status_is 0
	assert_output "-d ',' -q '\"' --header --date-format 'a=%d/%m/%Y' --date-format 'c=%m.%d.%Y' -s 'a:date,b:date,c:date,d:string'"
	# The bare format for the other columns: a is read by it.
	csv2col --date-format %d/%m/%Y --date-format c=%m.%d.%Y in.csv | col2csv >got.csv
	cmp want.csv got.csv || fail "bare + column: $(diff want.csv got.csv)"
	# A column's format is a pin: a value it does not read is an error.
	run --separate-stderr bash -c 'csv2col --date-format a=%m.%d.%Y in.csv > /dev/null'
	status_is 3
	stderr_has "in.csv:2:1: value does not fit column a of type date (03/05/2024)"
	run --separate-stderr csv2col --date-format aa=%d/%m/%Y in.csv
	status_is 2
	stderr_has "--date-format aa=%d/%m/%Y: no column 'aa' (did you mean 'a'?); the columns are a, b, c, d"
	run --separate-stderr csv2col --date-format a=%d/%m/%Y --date-format a=%d/%m/%Y in.csv
	status_is 2
	stderr_has "--date-format a=%d/%m/%Y: column a has a format already"
	run --separate-stderr csv2col --date-format a=%d in.csv
	status_is 2
	stderr_has "date format '%d' needs a year"
}

@test "NUL-separated bytes are not taken for UTF-16; a one-field short row gets no --null-padding hint" {
	need csv2col
	printf 'a\0b\0c' >nul.csv
	run --separate-stderr bash -c 'csv2col nul.csv > /dev/null'
	status_is 0
	printf 'a,b,c\n# note\n1,2,3\n' >c.csv
	run --separate-stderr bash -c 'csv2col c.csv > /dev/null'
	status_is 3
	[[ "$stderr" != *null-padding* ]] || fail "a one-field row got the --null-padding hint: $stderr"
}

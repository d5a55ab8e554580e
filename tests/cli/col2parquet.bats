#!/usr/bin/env bats
# col2parquet.bats - col2parquet as users run it: pipelines, options, the
# all-or-nothing promise of -o (a truncated or corrupt stream, a signal
# mid-write: no file at the target, no temporary file, an old file left
# as it was), output failures and bounded memory, per-column dictionary
# modes and bounded string statistics.  Streams are made with csv2col;
# whether readers accept the files is tests/oracle/parquet.sh.

load helpers

# is_parquet FILE: "PAR1" at both ends and a footer length that fits.
is_parquet() {
	local size len
	size=$(filesize "$1")
	[ "$size" -ge 12 ] || fail "$1: $size bytes"
	[ "$(head -c 4 "$1")" = PAR1 ] || fail "$1: no leading PAR1"
	[ "$(tail -c 4 "$1")" = PAR1 ] || fail "$1: no trailing PAR1"
	len=$(tail -c 8 "$1" | head -c 4 | od -An -tu4 | tr -d ' ')
	[ "$len" -gt 0 ] && [ "$len" -le $((size - 12)) ] ||
	    fail "$1: footer length $len in a $size-byte file"
}

@test "csv2col | col2parquet -o FILE: a Parquet file, nothing on stdout or stderr" {
	need csv2col col2parquet
	make_canonical in.csv
	mkdir d
	run --separate-stderr bash -c 'set -o pipefail; csv2col in.csv | col2parquet -o d/out.parquet'
	status_is 0
	stderr_empty
	stdout_empty
	is_parquet d/out.parquet
	[ "$(ls -A d)" = out.parquet ] || fail "left behind: $(ls -A d)"
}

@test "-o - streams the same bytes to stdout; runs are deterministic" {
	need csv2col col2parquet
	make_big big.csv 20000
	csv2col big.csv >big.col
	run --separate-stderr col2parquet -o a.parquet big.col
	status_is 0
	col2parquet -o - <big.col >b.parquet
	cmp a.parquet b.parquet
	col2parquet -o c.parquet - <big.col
	cmp a.parquet c.parquet
	is_parquet a.parquet
}

@test "one or two encoding threads write the same bytes, for every codec" {
	need csv2col col2parquet
	make_big big.csv 30000
	csv2col big.csv >big.col
	for c in none snappy zstd gzip; do
		col2parquet -j1 -c "$c" --row-group-rows 7000 --page-bytes 20K \
		    -o one.parquet big.col
		col2parquet -j2 -c "$c" --row-group-rows 7000 --page-bytes 20K \
		    -o two.parquet big.col
		cmp one.parquet two.parquet || fail "$c: -j1 and -j2 differ"
	done
	# -j beyond what the tool can use is clamped, as -j $(nproc) asks.
	col2parquet -j 64 -c gzip --row-group-rows 7000 --page-bytes 20K \
	    -o many.parquet big.col
	cmp two.parquet many.parquet
	run --separate-stderr col2parquet -j0 -o x.parquet big.col
	status_is 2
	stderr_has "--threads must be at least 1"
}

@test "every codec and dictionary mode makes a file; codecs differ in size" {
	need csv2col col2parquet
	make_big big.csv 50000
	csv2col big.csv >big.col
	local c d
	for c in none snappy zstd zstd:1 zstd:19 gzip gzip:9; do
		for d in auto on off; do
			run --separate-stderr col2parquet -c "$c" --dictionary "$d" -o "$c-$d.parquet" big.col
			status_is 0
			stderr_empty
			is_parquet "$c-$d.parquet"
		done
	done
	[ "$(filesize zstd-auto.parquet)" -lt "$(filesize none-auto.parquet)" ] ||
	    fail "zstd is not smaller than none"
	[ "$(filesize snappy-off.parquet)" -ne "$(filesize snappy-on.parquet)" ] ||
	    fail "the dictionary changed nothing"
	run --separate-stderr col2parquet --compression=gzip -o long.parquet big.col
	status_is 0
	cmp long.parquet gzip-auto.parquet
}

# make_dict FILE: 20000 rows; k unique, label 977 distinct strings, day
# dates, flag bools.
make_dict() {
	awk 'BEGIN {
		print "k,label,day,flag"
		for (i = 1; i <= 20000; i++)
			printf "%d,label %d,19%02d-%02d-%02d,%s\n", i, i % 977,
			    70 + i % 30, 1 + i % 12, 1 + i % 28,
			    i % 3 ? "true" : "false"
	}' >"$1"
}

# dict_chunks ARGS...: col2parquet ARGS on dict.col in 4 row groups; prints
# the dictionary-encoded column chunks --stats counts.
dict_chunks() {
	local err
	err=$(col2parquet --stats --row-group-rows 5000 "$@" -o d.parquet \
	    dict.col 2>&1) || fail "col2parquet $*: $err"
	[[ $err =~ ([0-9]+)\ dictionary\ chunks ]] || fail "no count: $err"
	printf '%s\n' "${BASH_REMATCH[1]}"
}

@test "--dictionary COL=MODE: per column, over the global mode, the last wins" {
	need csv2col col2parquet
	make_dict dict.csv
	csv2col dict.csv >dict.col
	# 4 row groups: a dictionary-encoded column makes 4 chunks.
	[ "$(dict_chunks --dictionary off)" -eq 0 ]
	[ "$(dict_chunks --dictionary on)" -eq 12 ] # the bool column never
	[ "$(dict_chunks --dictionary off --dictionary label=on)" -eq 4 ]
	[ "$(dict_chunks --dictionary label=on --dictionary off)" -eq 4 ]
	[ "$(dict_chunks --dictionary off --dictionary label=on --dictionary day=on)" -eq 8 ]
	[ "$(dict_chunks --dictionary on --dictionary k=off)" -eq 8 ]
	[ "$(dict_chunks --dictionary on --dictionary k=off --dictionary label=off)" -eq 4 ]
	[ "$(dict_chunks --dictionary off --dictionary label=on --dictionary label=off)" -eq 0 ]
	[ "$(dict_chunks --dictionary on --dictionary k=off --dictionary k=on)" -eq 12 ]
	[ "$(dict_chunks --dictionary off --dictionary flag=on)" -eq 0 ]
	# auto for one column: 977 labels pay, a unique key does not.
	[ "$(dict_chunks --dictionary on --dictionary label=auto --dictionary k=auto --dictionary day=off)" -eq 4 ]
	# Per column everywhere is the global mode, byte for byte; the
	# order of global and per-column options changes nothing.
	local m
	for m in auto on off; do
		col2parquet --dictionary "$m" -o global.parquet dict.col
		col2parquet --dictionary k="$m" --dictionary label="$m" \
		    --dictionary day="$m" --dictionary flag="$m" -o cols.parquet dict.col
		cmp global.parquet cols.parquet || fail "$m: per column differs"
	done
	col2parquet --dictionary off --dictionary label=on -o a.parquet dict.col
	col2parquet --dictionary label=on --dictionary off -o b.parquet dict.col
	cmp a.parquet b.parquet
}

@test "--dictionary COL=MODE: a column name holding '=' takes the last '=' as the mode's" {
	need csv2col col2parquet
	printf 'a=b,c\nx,1\ny,2\nx,3\n' >eq.csv
	csv2col eq.csv >eq.col
	run --separate-stderr col2parquet --stats --dictionary off --dictionary a=b=on -o eq.parquet eq.col
	status_is 0
	stderr_has ' 1 dictionary chunks'
	run --separate-stderr col2parquet --dictionary a=on -o eq.parquet eq.col
	status_is 2
	stderr_has "no column 'a'"
}

@test "--dictionary with a column the input lacks: exit 2, nothing written" {
	need csv2col col2parquet
	make_dict dict.csv
	csv2col dict.csv >dict.col
	mkdir d
	run --separate-stderr col2parquet --dictionary off --dictionary lable=on -o d/out.parquet dict.col
	status_is 2
	stderr_matches "^col2parquet: .*no column 'lable'"
	[ -z "$(ls -A d)" ] || fail "left behind: $(ls -A d)"
	# An existing file stays as it was; stdout gets no byte.
	printf 'old contents\n' >d/out.parquet
	run --separate-stderr col2parquet --dictionary K=on -o d/out.parquet dict.col
	status_is 2
	stderr_has "'K'"
	[ "$(cat d/out.parquet)" = "old contents" ] || fail "out.parquet changed"
	[ "$(ls -A d)" = out.parquet ] || fail "left behind: $(ls -A d)"
	run --separate-stderr bash -c 'col2parquet --dictionary label=on --dictionary nope=off -o - <dict.col | wc -c'
	[ "$output" -eq 0 ] || fail "$output bytes on stdout"
	stderr_has "'nope'"
}

@test "a string over 4096 bytes: min and max cut to 4096-byte bounds in the footer" {
	need csv2col col2parquet
	local x4095 len
	x4095=$(printf '%04095d' 0 | tr 0 x)
	{
		printf 'id,s\n'
		printf '1,%s\n' "${x4095}x$(printf '%01000d' 0 | tr 0 x)2"
		printf '2,%s\n' "${x4095}x$(printf '%01000d' 0 | tr 0 x)1"
	} >long.csv
	csv2col long.csv >long.col
	run --separate-stderr col2parquet -o long.parquet long.col
	status_is 0
	is_parquet long.parquet
	len=$(tail -c 8 long.parquet | head -c 4 | od -An -tu4 | tr -d ' ')
	tail -c $((len + 8)) long.parquet | head -c "$len" >footer
	# Both bounds, 4096 bytes each, and nothing longer: the min is the
	# prefix, the max the prefix with its last byte raised.
	[ "$len" -lt 9000 ] || fail "footer of $len bytes"
	grep -aqF "${x4095}y" footer || fail "no upper bound xxx...y"
	grep -aqF "${x4095}x" footer || fail "no lower bound xxx...x"
	! grep -aqF "${x4095}xx" footer || fail "a min/max longer than 4096"
}

@test "row groups and pages follow the size options" {
	need csv2col col2parquet
	make_big big.csv 30000
	csv2col big.csv >big.col
	run --separate-stderr col2parquet --stats --row-group-rows 1000 -o a.parquet big.col
	status_is 0
	stderr_has '30000 rows, 30 row groups'
	run --separate-stderr col2parquet --stats --row-group-rows 7000 --page-bytes 1K -o b.parquet big.col
	status_is 0
	stderr_has '30000 rows, 5 row groups'
	run --separate-stderr col2parquet --stats --row-group-bytes 64K -o c.parquet big.col
	status_is 0
	[[ $stderr =~ ([0-9]+)\ row\ groups ]] || fail "no row group count: $stderr"
	[ "${BASH_REMATCH[1]}" -gt 1 ] || fail "64K made ${BASH_REMATCH[1]} row group"
}

@test "zero rows make a valid file" {
	need csv2col col2parquet
	printf 'a,b\n' >empty.csv
	run --separate-stderr bash -c 'set -o pipefail; csv2col --schema a:int64,b:string empty.csv | col2parquet -o e.parquet --stats'
	status_is 0
	stderr_has '0 rows, 0 row groups'
	is_parquet e.parquet
}

@test "several inputs are one table" {
	need csv2col col2parquet
	make_big big.csv 1000
	csv2col big.csv >a.col
	run --separate-stderr col2parquet --stats -o out.parquet a.col a.col - <a.col
	status_is 0
	stderr_has '3000 rows'
}

@test "usage errors: exit 2, no output file" {
	need col2parquet
	local args
	for args in "" "-c lz4" "-c zstd:0" "-c zstd:23" "-c gzip:10" \
	    "-c snappy:3" "--dictionary maybe" "--dictionary =on" \
	    "--dictionary k=maybe" "--dictionary k=" "--page-bytes 0" \
	    "--page-bytes 2G" "--row-group-rows 0" "--row-group-bytes 0" \
	    "--row-group-bytes 12Q" "--row-group-rows x"; do
		if [ -n "$args" ]; then
			run --separate-stderr col2parquet $args -o out.parquet
		else
			run --separate-stderr col2parquet
		fi
		[ "$status" -eq 2 ] || fail "'$args': status $status; $stderr"
		[[ $stderr == col2parquet:* ]] || fail "'$args': $stderr"
		[ ! -e out.parquet ] || fail "'$args' made out.parquet"
	done
	run --separate-stderr col2parquet
	stderr_has '-o FILE'
}

@test "a truncated stream: exit 3, no file and no temporary file" {
	need csv2col col2parquet
	make_big big.csv 50000
	csv2col big.csv >big.col
	mkdir d
	run --separate-stderr bash -c 'head -c 300000 big.col | col2parquet -o d/out.parquet'
	status_is 3
	stderr_has 'truncated'
	[ -z "$(ls -A d)" ] || fail "left behind: $(ls -A d)"
	# Cut just before the end record, too.
	head -c $(($(filesize big.col) - 8)) big.col >cut.col
	run --separate-stderr col2parquet -o d/out.parquet cut.col
	status_is 3
	[ -z "$(ls -A d)" ] || fail "left behind: $(ls -A d)"
}

@test "a failing run leaves an existing file as it was" {
	need csv2col col2parquet
	make_big big.csv 20000
	csv2col big.csv >big.col
	mkdir d
	printf 'old contents\n' >d/out.parquet
	run --separate-stderr bash -c 'head -c 100000 big.col | col2parquet -o d/out.parquet'
	status_is 3
	[ "$(cat d/out.parquet)" = "old contents" ] || fail "out.parquet changed"
	printf 'not a stream at all, just text\n' >junk.col
	run --separate-stderr col2parquet -o d/out.parquet junk.col
	status_is 3
	[ "$(cat d/out.parquet)" = "old contents" ] || fail "out.parquet changed"
	[ "$(ls -A d)" = out.parquet ] || fail "left behind: $(ls -A d)"
	# And a good run replaces it.
	run --separate-stderr col2parquet -o d/out.parquet big.col
	status_is 0
	is_parquet d/out.parquet
	[ "$(ls -A d)" = out.parquet ] || fail "left behind: $(ls -A d)"
}

@test "a corrupt frame: exit 3 and no file" {
	need csv2col col2parquet
	make_big big.csv 20000
	csv2col big.csv >big.col
	flip_byte big.col 5000
	mkdir d
	run --separate-stderr col2parquet -o d/out.parquet big.col
	status_is 3
	[ -z "$(ls -A d)" ] || fail "left behind: $(ls -A d)"
}

@test "SIGTERM, SIGINT, SIGHUP or SIGKILL mid-write leave no file, named or temporary" {
	need csv2col col2parquet
	make_big big.csv 50000
	csv2col big.csv >big.col
	local sig pid
	# Job control, so that the background writer does not start with
	# SIGINT ignored as a script's background commands do.
	set -m
	for sig in TERM INT HUP KILL; do
		mkdir "d$sig"
		rm -f fifo
		mkfifo fifo
		col2parquet -o "d$sig/out.parquet" <fifo &
		pid=$!
		exec 7>fifo
		head -c 400000 big.col >&7
		sleep 0.3
		# The file being written has no name until it is complete.
		[ -z "$(ls -A "d$sig")" ] || fail "SIG$sig: visible: $(ls -A "d$sig")"
		kill -0 "$pid" || fail "SIG$sig: the writer ended early"
		kill -"$sig" "$pid"
		wait "$pid" && fail "SIG$sig: exit status 0"
		exec 7>&-
		[ -z "$(ls -A "d$sig")" ] || fail "SIG$sig left: $(ls -A "d$sig")"
	done
}

@test "output failures: /dev/full is exit 5; a missing directory is an error" {
	[ -w /dev/full ] || skip "no /dev/full"
	need csv2col col2parquet
	make_big big.csv 20000
	csv2col big.csv >big.col
	run --separate-stderr bash -c 'col2parquet -o - <big.col >/dev/full'
	status_is 5
	stderr_matches '^col2parquet: '
	run --separate-stderr col2parquet -o no/such/dir/out.parquet big.col
	[ "$status" -ne 0 ] || fail "status 0"
	stderr_has 'no/such/dir'
}

@test "--stats: rows, row groups and peak memory on stderr" {
	need csv2col col2parquet
	make_big big.csv 5000
	csv2col big.csv >big.col
	run --separate-stderr col2parquet --stats -o out.parquet big.col
	status_is 0
	stdout_empty
	stderr_matches '^col2parquet: 5000 rows, 1 row groups, [0-9]+ pages, .*peak memory'
}

@test "memory does not grow with the input: 8x the rows, the same peak" {
	# ASan's quarantine holds on to freed memory: RSS means nothing there.
	col2parquet --version | grep -q 'asan mode' &&
	    skip "peak memory is not measurable under ASan"
	[ -z "${COLPIPE_VALGRIND:-}" ] || skip "valgrind inflates memory"
	# Small row groups and pages, so that both runs fill and flush
	# several: the bound (row group bytes plus a page and a dictionary
	# per column) is reached in the smaller run too.
	need csv2col col2parquet
	make_big big.csv 100000
	csv2col big.csv >one.col
	for i in 1 2 3 4 5 6 7 8; do cat one.col; done >eight.col
	local p1 p8
	run --separate-stderr col2parquet --stats --row-group-bytes 256K \
	    --page-bytes 64K -o a.parquet one.col
	status_is 0
	[[ $stderr =~ peak\ memory\ ([0-9.]+)\ MB ]] || fail "no peak: $stderr"
	p1=${BASH_REMATCH[1]}
	run --separate-stderr col2parquet --stats --row-group-bytes 256K \
	    --page-bytes 64K -o b.parquet eight.col
	status_is 0
	stderr_has '800000 rows'
	[[ $stderr =~ peak\ memory\ ([0-9.]+)\ MB ]] || fail "no peak: $stderr"
	p8=${BASH_REMATCH[1]}
	awk -v a="$p1" -v b="$p8" 'BEGIN { exit !(b <= a * 1.10 + 1) }' ||
	    fail "peak $p1 MB for 100000 rows, $p8 MB for 800000"
}

#!/usr/bin/env bats
# col2parquet.bats - col2parquet as users run it: pipelines, options, the
# all-or-nothing promise of -o (a truncated or corrupt stream, a signal
# mid-write: no file at the target, no temporary file, an old file left
# as it was), output failures and bounded memory.  Streams are made with
# csv2col; whether readers accept the files is tests/oracle/parquet.sh.

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
	run --separate-stderr col2parquet -j3 -o x.parquet big.col
	status_is 2
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
	    "-c snappy:3" "--dictionary maybe" "--page-bytes 0" \
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

@test "SIGTERM or SIGINT mid-write leaves no file and no temporary file" {
	need csv2col col2parquet
	make_big big.csv 50000
	csv2col big.csv >big.col
	local sig pid
	# Job control, so that the background writer does not start with
	# SIGINT ignored as a script's background commands do.
	set -m
	for sig in TERM INT HUP; do
		mkdir "d$sig"
		rm -f fifo
		mkfifo fifo
		col2parquet -o "d$sig/out.parquet" <fifo &
		pid=$!
		exec 7>fifo
		head -c 400000 big.col >&7
		sleep 0.3
		# The temporary file exists while the writer waits for more.
		[ -n "$(ls -A "d$sig")" ] || fail "SIG$sig: no temporary file yet"
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
	# Small row groups, so that both runs fill and flush several.
	need csv2col col2parquet
	make_big big.csv 100000
	csv2col big.csv >one.col
	for i in 1 2 3 4 5 6 7 8; do cat one.col; done >eight.col
	local p1 p8
	run --separate-stderr col2parquet --stats --row-group-bytes 256K -o a.parquet one.col
	status_is 0
	[[ $stderr =~ peak\ memory\ ([0-9.]+)\ MB ]] || fail "no peak: $stderr"
	p1=${BASH_REMATCH[1]}
	run --separate-stderr col2parquet --stats --row-group-bytes 256K -o b.parquet eight.col
	status_is 0
	stderr_has '800000 rows'
	[[ $stderr =~ peak\ memory\ ([0-9.]+)\ MB ]] || fail "no peak: $stderr"
	p8=${BASH_REMATCH[1]}
	awk -v a="$p1" -v b="$p8" 'BEGIN { exit !(b <= a * 1.10 + 1) }' ||
	    fail "peak $p1 MB for 100000 rows, $p8 MB for 800000"
}

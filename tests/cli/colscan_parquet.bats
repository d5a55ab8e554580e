#!/usr/bin/env bats
# colscan_parquet.bats - colscan reading Parquet files as users run it:
# the same answers as from the MLSPILL3 stream the file was written
# from, a count from the footer alone, row groups skipped by their
# statistics or dictionaries without changing an answer, columns
# colpipe cannot hold, Parquet and MLSPILL3 inputs mixed, and the
# errors.  Whether files of
# other writers read right is tests/unit/test_parquet_read.c's corpus.

load helpers

# A table of a few thousand rows in row groups of 1000, with NULLs in
# every column but k (k ascends, so row groups have disjoint k ranges).
setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export LC_ALL=C
	need csv2col col2csv col2parquet colscan
	awk 'BEGIN {
		print "k,amount,day,label,score"
		for (i = 1; i <= 5000; i++) {
			a = i % 11 == 0 ? "" : sprintf("%d.%02d", i % 300, i % 100)
			d = i % 13 == 0 ? "" : sprintf("19%02d-%02d-%02d", \
			    70 + i % 30, 1 + i % 12, 1 + i % 28)
			l = i % 17 == 0 ? "" : "label " (i % 97)
			s = i % 19 == 0 ? "" : sprintf("%d.5", i % 40)
			printf "%d,%s,%s,%s,%s\n", i, a, d, l, s
		}
	}' >t.csv
	csv2col t.csv >t.col
	col2parquet --row-group-rows 1000 -o t.parquet t.col
}

# same ARGS...: colscan ARGS over t.col and over t.parquet print the
# same CSV.
same() {
	colscan "$@" t.col | col2csv >want.csv
	colscan "$@" t.parquet | col2csv >got.csv
	cmp want.csv got.csv || fail "colscan $*: Parquet and .col differ:
$(diff want.csv got.csv | head -5)"
}

@test "Parquet reads back what it was written from: every column, filters, projections" {
	run colscan --schema t.parquet
	status_is 0
	[ "$output" = "$(colscan --schema t.col)" ] ||
	    fail "schemas differ: $output"
	same
	same --where "amount > 100 AND label LIKE 'label 1%'"
	same --where "day IS NULL OR score < 3" --select "k * 2 AS k2, score"
	same --where "k BETWEEN 1500 AND 2500" --select "label, k"
	same --limit 1234
	colscan t.parquet | col2csv >got.csv
	cmp t.csv got.csv || fail "the table does not round-trip"
}

@test "--count reads the footer only: it works with every data page overwritten" {
	run colscan --count t.parquet
	status_is 0
	[ "$output" = 5000 ] || fail "count: $output"
	# Zero everything between the leading magic and the footer.
	size=$(filesize t.parquet)
	flen=$(tail -c 8 t.parquet | head -c 4 | od -An -tu4 | tr -d ' ')
	cp t.parquet z.parquet
	dd if=/dev/zero of=z.parquet bs=1 seek=4 \
	    count=$((size - 12 - flen)) conv=notrunc status=none
	run colscan --count z.parquet
	status_is 0
	[ "$output" = 5000 ] || fail "count of the zeroed file: $output"
	# Reading the values finds the damage, naming the file.
	run --separate-stderr colscan --select k z.parquet
	status_is 3
	stderr_has "z.parquet"
}

@test "row groups ruled out by min/max are skipped, and the answers are the same without pruning" {
	for w in "k < 1500" "k >= 4200" "k BETWEEN 2100 AND 2200" \
	    "k IN (7, 4999)" "k = 3001 AND amount > 0" "label >= 'zz'" \
	    "k > 5000"; do
		run --separate-stderr colscan --stats --count --where "$w" \
		    t.parquet
		status_is 0
		[[ $stderr =~ ([0-9]+)\ row\ groups\ read,\ ([0-9]+)\ skipped ]] ||
		    fail "$w: no row group counts in: $stderr"
		[ "${BASH_REMATCH[2]}" -gt 0 ] ||
		    fail "$w: nothing skipped: $stderr"
		colscan --where "$w" t.parquet | col2csv >pruned.csv
		colscan --no-prune --where "$w" t.parquet | col2csv >all.csv
		colscan --where "$w" t.col | col2csv >col.csv
		cmp pruned.csv all.csv || fail "$w: pruning changed the answer"
		cmp pruned.csv col.csv || fail "$w: differs from the .col scan"
		run colscan --count --where "$w" t.parquet
		[ "$output" = "$(colscan --no-prune --count --where "$w" t.parquet)" ] ||
		    fail "$w: counts differ"
	done
	# An OR, a computed term and LIKE are not pruned on.
	for w in "k < 10 OR k > 4990" "k + 1 < 10" "label LIKE 'zz%'"; do
		run --separate-stderr colscan --stats --count --where "$w" \
		    t.parquet
		[[ $stderr == *" 0 skipped"* ]] || fail "$w: skipped: $stderr"
	done
	# A file written without statistics is read whole, and right.
	col2parquet --no-statistics --row-group-rows 1000 -o n.parquet t.col
	run --separate-stderr colscan --stats --count --where "k < 1500" n.parquet
	[ "$output" = 1499 ] || fail "no statistics: count $output"
	[[ $stderr == *" 0 skipped"* ]] || fail "skipped without stats: $stderr"
}

@test "row groups whose dictionaries lack every = or IN constant are skipped, with the answers of --no-prune" {
	# Every row group spans v0..v9 and 0..100, so min/max rule nothing
	# out; only row group g holds v<g+1> and 10*(g+1).
	awk 'BEGIN {
		print "k,city,code"
		for (i = 0; i < 5000; i++) {
			g = int(i / 1000); m = i % 3
			c = m == 0 ? "v0" : m == 1 ? "v9" : "v" (g + 1)
			n = m == 0 ? 0 : m == 1 ? 100 : 10 * (g + 1)
			if (i % 7 == 0) c = ""
			printf "%d,%s,%d\n", i, c, n
		}
	}' | csv2col >d.col
	for stats in "" --no-statistics; do
		col2parquet $stats --row-group-rows 1000 -o d.parquet d.col
		for w in "city = 'v3'" "code = 30" "city IN ('v3', 'zz')" \
		    "city IN ('v2', 'v5') AND k >= 0" "code IN (20, 31)" \
		    "city = 'v3' AND code = 30"; do
			run --separate-stderr colscan --stats --where "$w" \
			    d.parquet
			status_is 0
			[[ $stderr =~ ([0-9]+)\ row\ groups\ read,\ ([0-9]+)\ skipped ]] ||
			    fail "$w: no row group counts in: $stderr"
			[ "${BASH_REMATCH[2]}" -ge 3 ] ||
			    fail "$w $stats: too few skipped: $stderr"
			colscan --where "$w" d.parquet | col2csv >pruned.csv
			colscan --no-prune --where "$w" d.parquet |
			    col2csv >all.csv
			colscan --where "$w" d.col | col2csv >col.csv
			[ -s pruned.csv ] || fail "$w: no output"
			cmp pruned.csv all.csv ||
			    fail "$w: pruning changed the answer"
			cmp pruned.csv col.csv ||
			    fail "$w: differs from the .col scan"
		done
		# A term a dictionary cannot decide alone keeps every group.
		for w in "city = 'v3' OR k < 0" "city <> 'v3'" \
		    "city IS NULL"; do
			run --separate-stderr colscan --stats --count \
			    --where "$w" d.parquet
			[[ $stderr == *" 0 skipped"* ]] ||
			    fail "$w: skipped: $stderr"
			[ "$output" = "$(colscan --no-prune --count \
			    --where "$w" d.parquet)" ] || fail "$w: counts differ"
		done
	done
}

@test "pages ruled out by the page index are skipped, and the answers are the same without pruning" {
	# One row group of many small pages: only the page index can prune.
	col2parquet --row-group-rows 100000 --page-bytes 2K -o p.parquet t.col
	for w in "k < 700" "k >= 4200" "k BETWEEN 2100 AND 2200" \
	    "k IN (7, 4999)" "k = 3001 AND amount > 0" \
	    "k > 4000 AND k < 4100 AND label LIKE 'label 1%'" \
	    "day >= DATE '1999-12-01' AND k < 2000"; do
		for sel in "*" "label, k" "score"; do
			run --separate-stderr colscan --stats --select "$sel" \
			    --where "$w" p.parquet
			status_is 0
			[[ $stderr =~ ([0-9]+)\ pages\ read,\ ([0-9]+)\ skipped ]] ||
			    fail "$w: no page counts in: $stderr"
			[ "${BASH_REMATCH[2]}" -gt 0 ] ||
			    fail "$w: no page skipped: $stderr"
			colscan --select "$sel" --where "$w" p.parquet |
			    col2csv >pruned.csv
			colscan --no-prune --select "$sel" --where "$w" \
			    p.parquet | col2csv >all.csv
			colscan --select "$sel" --where "$w" t.col |
			    col2csv >col.csv
			cmp pruned.csv all.csv ||
			    fail "$w / $sel: pruning changed the answer"
			cmp pruned.csv col.csv ||
			    fail "$w / $sel: differs from the .col scan"
			colscan -j1 --select "$sel" --where "$w" p.parquet |
			    col2csv >j1.csv
			cmp pruned.csv j1.csv || fail "$w / $sel: -j1 differs"
		done
		run colscan --count --where "$w" p.parquet
		[ "$output" = "$(colscan --count --where "$w" t.col)" ] ||
		    fail "$w: counts differ"
	done
	# Fewer bytes read than the whole file, and none without a match.
	run --separate-stderr colscan --stats --where "k = 2500" p.parquet
	[[ $stderr =~ \ ([0-9.]+)\ MB\ in ]] || fail "no bytes: $stderr"
	run --separate-stderr colscan --stats --no-prune --where "k = 2500" \
	    p.parquet
	[[ $stderr == *" 0 skipped, "*" 0 skipped, "* ]] ||
	    fail "--no-prune skipped: $stderr"
	# Without statistics there is no ColumnIndex to prune with.
	col2parquet --no-statistics --row-group-rows 100000 --page-bytes 2K \
	    -o n.parquet t.col
	run --separate-stderr colscan --stats --count --where "k < 700" \
	    n.parquet
	[ "$output" = 699 ] || fail "no statistics: count $output"
	[[ $stderr =~ \ 0\ skipped,\ [0-9.]+\ MB ]] ||
	    fail "pages skipped without stats: $stderr"
}

@test "a parquet-mr file's page index prunes pages with the same answers" {
	f=${COLPIPE_SHARED:-$TOP/../shared}/corpora/parquet/parquet-testing/data/alltypes_tiny_pages.parquet
	[ -f "$f" ] || skip "no shared Parquet corpus ($f)"
	for w in "id < 100" "id BETWEEN 3000 AND 3100" \
	    "int_col = 3 AND id > 7000" "date_string_col = '01/01/09'" \
	    "tinyint_col IN (1, 2) AND month = 3"; do
		run --separate-stderr colscan --stats --where "$w" "$f"
		status_is 0
		[[ $stderr =~ ([0-9]+)\ pages\ read,\ ([0-9]+)\ skipped ]] &&
		    [ "${BASH_REMATCH[2]}" -gt 0 ] ||
		    fail "$w: no page skipped: $stderr"
		colscan --where "$w" "$f" | col2csv >pruned.csv
		colscan --no-prune --where "$w" "$f" | col2csv >all.csv
		cmp pruned.csv all.csv || fail "$w: pruning changed the answer"
	done
}

@test "a page index that does not fit its chunk is exit 3 naming the row group and column" {
	col2parquet --row-group-rows 100000 --page-bytes 2K -o p.parquet t.col
	# The first OffsetIndex follows k's chunk: a list field (0x19),
	# its header, then the first PageLocation's offset field (0x16)
	# holding 4 (zigzag varint 0x08), the chunk's first page.  Make
	# that offset 63 (0x7e), inside no page's place.
	pos=$(LC_ALL=C grep -obUaP '\x19[\x1c-\xfc][\x01-\x7f]?\x16\K\x08' \
	    p.parquet | head -1 | cut -d: -f1)
	[ -n "$pos" ] || fail "no OffsetIndex found"
	cp p.parquet bad.parquet
	printf '\176' | dd of=bad.parquet bs=1 seek=$pos conv=notrunc \
	    status=none
	run --separate-stderr colscan --where "k < 100" bad.parquet
	status_is 3
	stderr_has "bad.parquet: row group 0, column k: corrupt offset index"
	# Without a filter the page index is not read.
	run colscan --count bad.parquet
	status_is 0
}

@test "decimal(38,2) row groups are pruned on their statistics with the same answers" {
	awk 'BEGIN { print "k,d"
		for (i = 1; i <= 6000; i++)
			printf "%d,%d%018d.%02d\n", i, i, i * 7, i % 100 }' >w.csv
	csv2col -s k:int64,d:decimal\(38,2\) w.csv >w.col
	col2parquet --row-group-rows 1000 -o w.parquet w.col
	for w in "d < 100000000000000000000.00" \
	    "d > 5000000000000000034993.00" "d = 2000000000000000014000.00" \
	    "d IN (3000000000000000021000.00, 7.5)" "d < 0.5" \
	    "d >= 99999999999999999999999999999999999.99"; do
		run --separate-stderr colscan --stats --where "$w" w.parquet
		status_is 0
		[[ $stderr =~ ([0-9]+)\ row\ groups\ read,\ ([0-9]+)\ skipped ]] &&
		    [ "${BASH_REMATCH[2]}" -ge 4 ] ||
		    fail "$w: too few row groups skipped: $stderr"
		colscan --where "$w" w.parquet | col2csv >pruned.csv
		colscan --no-prune --where "$w" w.parquet | col2csv >all.csv
		colscan --where "$w" w.col | col2csv >col.csv
		cmp pruned.csv all.csv || fail "$w: pruning changed the answer"
		cmp pruned.csv col.csv || fail "$w: differs from the .col scan"
	done
}

@test "Parquet and MLSPILL3 inputs are one table; different columns name the first difference" {
	colscan t.parquet t.col - <t.col | colscan --count >n
	[ "$(cat n)" = 15000 ] || fail "three inputs: $(cat n) rows"
	printf 'k,amount\n1,2.50\n' | csv2col >other.col
	run --separate-stderr colscan t.parquet other.col
	status_is 3
	stderr_has "other.col"
	stderr_has "t.parquet"
	printf 'k,amount,day,label,score\n1,x,,,\n' | csv2col >typed.col
	run --separate-stderr colscan --count t.col typed.col
	status_is 3
	stderr_matches "column 2 is amount string here, amount decimal"
}

@test "a Parquet file on a pipe is refused with the reason" {
	run --separate-stderr bash -c 'cat t.parquet | colscan --count'
	status_is 3
	stderr_has "Parquet"
	stderr_has "pipe"
}

@test "a column colpipe cannot hold is named when used, and can be left out" {
	f=${COLPIPE_SHARED:-$TOP/../shared}/corpora/parquet/parquet-testing/data/datapage_v2.snappy.parquet
	[ -r "$f" ] || skip "corpus not found: $f"
	run colscan --count "$f"
	status_is 0
	[ "$output" = 5 ] || fail "count: $output"
	run --separate-stderr colscan "$f"
	status_is 2
	stderr_has "* takes column 'e', which cannot be read"
	stderr_has "EXCLUDE (e)"
	run --separate-stderr colscan --where "e = 1" "$f"
	status_is 2
	stderr_has "column 'e' cannot be read"
	run --separate-stderr bash -c "colscan --select '* EXCLUDE (e)' '$f' | col2csv"
	status_is 0
	[ "${lines[0]}" = "a,b,c,d" ] || fail "header: ${lines[0]}"
	[ "${#lines[@]}" -eq 6 ] || fail "${#lines[@]} lines"
}

@test "a truncated or corrupt Parquet file is exit 3 naming it, never a crash" {
	size=$(filesize t.parquet)
	head -c $((size - 3)) t.parquet >cut.parquet
	run --separate-stderr colscan --count cut.parquet
	no_crash
	[ "$status" -eq 3 ] || fail "cut: status $status: $stderr"
	cp t.parquet bad.parquet
	flip_byte bad.parquet $((size - 20))
	run --separate-stderr colscan bad.parquet
	no_crash
	[ "$status" -eq 3 ] || [ "$status" -eq 0 ] ||
	    fail "flipped footer byte: status $status: $stderr"
	for off in 100 3000 20000; do
		cp t.parquet bad.parquet
		flip_byte bad.parquet $off
		run --separate-stderr bash -c 'colscan bad.parquet | col2csv >/dev/null'
		no_crash
	done
}

@test "one or two decoding threads give the same bytes" {
	for c in snappy zstd none; do
		col2parquet -c "$c" --row-group-rows 1500 -o c.parquet t.col
		for sel in "*" "label, k" "k, score, day"; do
			colscan -j1 --select "$sel" c.parquet >one.col
			colscan -j2 --select "$sel" c.parquet >two.col
			cmp one.col two.col || fail "$c, $sel: -j1 and -j2 differ"
		done
	done
	# Both threads meet the same damage; the message names one column,
	# whatever the timing.
	cp t.parquet bad.parquet
	flip_byte bad.parquet 5000
	run --separate-stderr colscan -j2 bad.parquet
	first=$stderr
	for i in 1 2 3; do
		run --separate-stderr colscan -j2 bad.parquet
		[ "$stderr" = "$first" ] || fail "messages differ: $first / $stderr"
	done
}

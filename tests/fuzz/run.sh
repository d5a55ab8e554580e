#!/bin/sh
# run.sh [TARGET...] - builds the fuzz targets with clang's libFuzzer,
# ASan and UBSan and runs each, one after the other, for FUZZ_SECONDS
# (default 60) on a copy of its seed corpus; "make fuzz" calls it.
#
# Everything it writes goes under $FUZZ_BUILD (default build/fuzz): the
# objects, the binaries, corpus/<target>/ (the seeds plus what libFuzzer
# adds; kept between runs, with the small files of $FUZZ_CORPORA,
# default ../shared/corpora, when there) and crash-*, leak-*, timeout-* and oom-*
# reproducers in artifacts/<target>/.  One fuzzer at a time on one job:
# the machine is shared.  Exit 1 when any target found something; a
# fixed reproducer goes to tests/fuzz/regressions/<target>/ (README).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
secs=${FUZZ_SECONDS:-60}
out=${FUZZ_BUILD:-build/fuzz}
cc=${FUZZ_CC:-clang}
shared=${FUZZ_CORPORA:-$top/../shared/corpora}
# Allocations past the limit count as findings: a crafted input must not
# make a reader take memory its own sizes do not justify.
flags=${FUZZ_FLAGS:--rss_limit_mb=1536 -malloc_limit_mb=512 -timeout=10}
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
cflags="-std=c17 -D_GNU_SOURCE -pthread -g -O1 -fno-omit-frame-pointer \
-DCORE_DEBUG -DCORE_LIBFUZZER -DCOLPIPE_VERSION=\"fuzz\" \
-DCOLPIPE_BUILD=\"fuzz\" -DCOLPIPE_MODE=\"fuzz\" -Ilibcore -Ife"
libs="-larchive -lzstd -lxxhash -lsnappy -llz4 -lbrotlidec -lz -lm"

if [ $# -gt 0 ]; then
	targets=$*
else
	targets=$(for f in tests/fuzz/fuzz_*.c; do
		n=${f##*/fuzz_}; echo "${n%.c}"; done)
fi

# The library and the front end, once, instrumented for coverage.
mkdir -p "$out/obj"
objs=""
for src in libcore/*.c fe/*.c; do
	o="$out/obj/$(echo "${src%.c}" | tr / _).o"
	if [ ! -f "$o" ] || [ "$src" -nt "$o" ] ||
	    [ -n "$(find libcore fe -name '*.h' -newer "$o")" ]; then
		echo "  CC     $src"
		# shellcheck disable=SC2086
		$cc $cflags $san -fsanitize=fuzzer-no-link -c -o "$o" "$src"
	fi
	objs="$objs $o"
done

found=0
for t in $targets; do
	src=tests/fuzz/fuzz_$t.c
	bin=$out/fuzz_$t
	echo "  LD     $bin"
	# shellcheck disable=SC2086
	$cc $cflags $san -fsanitize=fuzzer -o "$bin" "$src" $objs $libs
	mkdir -p "$out/corpus/$t" "$out/artifacts/$t"
	for d in tests/fuzz/corpus/$t tests/fuzz/regressions/$t; do
		[ -d "$d" ] && cp -n "$d"/* "$out/corpus/$t/" 2>/dev/null
	done
	# The shared corpora of real files (tests from other projects),
	# when this checkout has them beside it; small ones only.
	case $t in
	csv|csv_dialect) ext="*" dir=csv max=64k ;;
	parquet_read) ext="*.parquet" dir=parquet max=256k ;;
	*) dir="" ;;
	esac
	if [ -n "$dir" ] && [ -d "$shared/$dir" ]; then
		find "$shared/$dir" -type f -name "$ext" -size -"$max" \
		    -exec cp -n {} "$out/corpus/$t/" \; 2>/dev/null || true
	fi
	dict=""
	[ -f "tests/fuzz/dict/$t.dict" ] && dict="-dict=tests/fuzz/dict/$t.dict"
	echo "fuzz: $t for ${secs}s"
	# shellcheck disable=SC2086
	if ! /usr/bin/time -f '%U %S' -o "$out/$t.time" \
	    "$bin" -max_total_time="$secs" -print_final_stats=1 $flags $dict \
	    -artifact_prefix="$out/artifacts/$t/" "$out/corpus/$t" \
	    >"$out/$t.log" 2>&1; then
		found=1
		echo "fuzz: $t FOUND something; see $out/$t.log and" \
		    "$out/artifacts/$t/"
	fi
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
	    "$out/$t.log")
	cpu=$(awk '/^[0-9.]+ [0-9.]+$/ { print $1 + $2 }' "$out/$t.time")
	echo "fuzz: $t: ${execs:-?} executions, ${cpu:-?} s CPU"
done
exit $found

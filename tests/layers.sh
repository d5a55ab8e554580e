#!/bin/sh
# layers.sh - the include rules of the layers (README, "The repository"),
# checked on the sources; prints TAP.
#
#   libcore/          includes no header of tools/ (fe.h or a tool's)
#   fe/               includes libcore's public headers and its own
#   tools/<tool>/     includes fe.h and libcore's public headers
#   core_X_private.h  included only by libcore/core_X.c, core_X_*.c and
#                     their unit tests tests/unit/test_X*.c
#   libcore/*.c       never prints to stdout/stderr and never exits (the
#                     out-of-memory path in core_alloc.c and
#                     core_err_print, which tools call, are the exceptions)
#
# A rule broken on purpose (an #include "fe.h" added to a libcore file)
# fails its test, naming the file and line.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

n=0
fails=0
# check NAME OFFENDERS: ok when OFFENDERS is empty, else not ok listing them.
check() {
	n=$((n + 1))
	if [ -z "$2" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		printf '%s\n' "$2" | sed 's/^/# /'
		fails=$((fails + 1))
	fi
}

# The quoted includes of the given files, as "file:line:header".
includes() {
	grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$@" \
	    2>/dev/null |
	    sed 's/^\([^:]*:[0-9]*\):.*"\([^"]*\)".*/\1:\2/'
}

echo "1..5"

public=$(cd libcore && ls core_*.h | grep -v '_private\.h$')
fe_headers=$(cd fe && ls *.h)

# 1. libcore includes nothing from fe/ or tools/.
bad=$(includes libcore/*.c libcore/*.h | while IFS=: read -r f l h; do
	case " $(echo $fe_headers) " in *" $h "*)
		echo "$f:$l: includes $h from fe/" ;;
	esac
	case $h in */*) echo "$f:$l: includes $h by path" ;; esac
done)
check "libcore includes no header of fe/ or tools/" "$bad"

# 2. fe/ includes only libcore's public headers and its own.
bad=$(includes fe/*.c fe/*.h | while IFS=: read -r f l h; do
	case " $(echo $public $fe_headers) " in
	*" $h "*) ;;
	*) echo "$f:$l: includes $h" ;;
	esac
done)
check "fe/ includes only libcore's public headers and its own" "$bad"

# 3. A tool includes only fe.h and libcore's public headers.
bad=$(for d in tools/*/; do
	includes "$d"*.c | while IFS=: read -r f l h; do
		case " $(echo $public) fe.h " in
		*" $h "*) ;;
		*) echo "$f:$l: includes $h" ;;
		esac
	done
done)
check "each tool includes only fe.h and libcore's public headers" "$bad"

# 4. A private header stays inside its module (and the module's tests).
bad=$(includes libcore/*.c libcore/*.h tests/unit/*.c tests/fuzz/*.c \
    tools/*/*.c tools/*/*.h | while IFS=: read -r f l h; do
	case $h in
	core_*_private.h) ;;
	*) continue ;;
	esac
	mod=${h#core_}
	mod=${mod%_private.h}
	case ${f##*/} in
	core_"$mod".c | core_"$mod"_*.c | core_"$mod"_*.h) ;;
	test_"$mod".c | test_"$mod"_*.c) ;;
	*) echo "$f:$l: includes $h of module $mod" ;;
	esac
done)
check "private headers are included only inside their module" "$bad"

# 5. libcore never prints and never exits.
bad=$(grep -Hn -E '\b(printf|puts|putchar|perror|exit|_exit|abort)[[:space:]]*\(|\bf(printf|puts)[[:space:]]*\([[:space:]]*std(out|err)' \
    libcore/*.c |
    grep -v -E '^libcore/core_alloc\.c:|^libcore/core_err\.c:' |
    grep -v -E ':[[:space:]]*(/?\*|//)' |
    grep -v -E 'snprintf|vsnprintf|sprintf')
check "libcore never prints and never exits" "$bad"

[ "$fails" -eq 0 ]

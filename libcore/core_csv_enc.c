/*
 * core_csv_enc.c - encoding names, the block transcoder to UTF-8, and the
 * guess at what invalid UTF-8 is (see core_csv_enc.h).
 *
 * The transcoder keeps the raw bytes fed to it in one buffer and hands
 * out UTF-8 in whatever amounts the caller asks for; iconv does the
 * conversion, so a character cut by a block boundary simply waits for its
 * other bytes.  Every unit of the supported encodings is at most 4 bytes,
 * so 4 pending bytes always convert to something or are invalid: a call
 * with at least that much (or the end) pending never returns nothing.
 * Outputs too small for one character go through an 8-byte carry.
 *
 * Invariants: off is the member offset of raw[roff]; lines counts the
 * line feeds handed out, so an error names the line it is on.  Bytes that
 * are valid in front of a bad one are handed out first and the error
 * comes on the next call, with nothing consumed past it.
 *
 * Workload: whole files of text, a block (256 KiB of raw bytes) at a
 * time, on the read-ahead thread when there is one.  UTF-8 input never
 * comes here.
 */
#include <errno.h>
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_csv_enc.h"
#include "core_suggest.h"
#include "core_value.h"

#define RAW_CAP (256u << 10)
#define RAW_ROOM_MIN (64u << 10)

static const struct {
	const char *name;	/* folded: lower case, no '-' or '_' */
	int enc;
} enc_names[] = {
	{ "utf8", CORE_ENC_UTF8 },
	{ "latin1", CORE_ENC_LATIN1 },
	{ "iso88591", CORE_ENC_LATIN1 },
	{ "l1", CORE_ENC_LATIN1 },
	{ "windows1252", CORE_ENC_CP1252 },
	{ "cp1252", CORE_ENC_CP1252 },
	{ "win1252", CORE_ENC_CP1252 },
	{ "utf16", CORE_ENC_UTF16 },
	{ "utf16le", CORE_ENC_UTF16LE },
	{ "utf16be", CORE_ENC_UTF16BE },
};

/* The names as a user would type them, for the closest one. */
static const char *const enc_spelled[] = {
	"utf-8", "latin-1", "iso-8859-1", "l1", "windows-1252", "cp1252",
	"win-1252", "utf-16", "utf-16le", "utf-16be",
};

int
core_csv_enc_lookup(const char *name, int *enc, struct core_err *err)
{
	char f[32];
	size_t i, n = 0;
	int k;

	for (i = 0; name[i] != '\0' && n < sizeof(f) - 1; i++)
		if (name[i] != '-' && name[i] != '_')
			f[n++] = (char)(name[i] >= 'A' && name[i] <= 'Z' ?
			    name[i] - 'A' + 'a' : name[i]);
	f[n] = '\0';
	if (name[0] != '\0' && strlen(name) < sizeof(f))
		for (i = 0; i < sizeof(enc_names) / sizeof(enc_names[0]); i++)
			if (strcmp(f, enc_names[i].name) == 0) {
				*enc = enc_names[i].enc;
				return 0;
			}
	k = core_suggest_closest(name, enc_spelled,
	    sizeof(enc_spelled) / sizeof(enc_spelled[0]));
	return core_err_set(err, CORE_EUSAGE, "unknown encoding '%s'%s%s%s; "
	    "the encodings are utf-8 (the default), latin-1 (iso-8859-1), "
	    "windows-1252 (cp1252), utf-16, utf-16le, utf-16be", name,
	    k >= 0 ? " (did you mean '" : "", k >= 0 ? enc_spelled[k] : "",
	    k >= 0 ? "'?)" : "");
}

const char *
core_csv_enc_name(int enc)
{
	switch (enc) {
	case CORE_ENC_LATIN1:
		return "latin-1";
	case CORE_ENC_CP1252:
		return "windows-1252";
	case CORE_ENC_UTF16:
		return "utf-16";
	case CORE_ENC_UTF16LE:
		return "utf-16le";
	case CORE_ENC_UTF16BE:
		return "utf-16be";
	default:
		return "utf-8";
	}
}

/* The encoding's name in messages, as people write it. */
static const char *
enc_title(int enc)
{
	switch (enc) {
	case CORE_ENC_LATIN1:
		return "Latin-1";
	case CORE_ENC_CP1252:
		return "Windows-1252";
	case CORE_ENC_UTF16LE:
		return "UTF-16LE";
	case CORE_ENC_UTF16BE:
		return "UTF-16BE";
	case CORE_ENC_UTF16:
		return "UTF-16";
	default:
		return "UTF-8";
	}
}

static const char *
iconv_name(int enc)
{
	switch (enc) {
	case CORE_ENC_LATIN1:
		return "ISO-8859-1";
	case CORE_ENC_CP1252:
		return "WINDOWS-1252";
	case CORE_ENC_UTF16BE:
		return "UTF-16BE";
	default:
		return "UTF-16LE";
	}
}

/* ---- the transcoder ---- */

struct core_csv_enc {
	iconv_t cd;		/* (iconv_t)-1 until the start is seen */
	int enc;		/* as asked; UTF16 resolved at the start */
	int eff;		/* what is converted */
	const char *name;	/* borrowed */
	char *raw;		/* owned; pending raw[roff..rlen) */
	size_t roff, rlen;
	bool fed_end, started;
	bool short_in;		/* the last out needed more raw bytes */
	uint64_t off;		/* member offset of raw[roff] */
	uint64_t lines;		/* line feeds handed out */
	char carry[8];		/* converted, not yet handed out */
	size_t coff, clen;
};

int
core_csv_enc_new(int enc, const char *name, struct core_csv_enc **out,
    struct core_err *err)
{
	struct core_csv_enc *e;

	*out = NULL;
	if (enc < CORE_ENC_LATIN1 || enc > CORE_ENC_UTF16BE)
		return core_err_set(err, CORE_EINTERNAL,
		    "encoding %d is not transcoded", enc);
	e = core_xcalloc(1, sizeof(*e));
	e->enc = enc;
	e->eff = enc;
	e->name = name;
	e->cd = (iconv_t)-1;
	e->raw = core_xmalloc(RAW_CAP);
	*out = e;
	return 0;
}

void
core_csv_enc_free(struct core_csv_enc *e)
{
	if (e == NULL)
		return;
	if (e->cd != (iconv_t)-1)
		iconv_close(e->cd);
	free(e->raw);
	free(e);
}

char *
core_csv_enc_space(struct core_csv_enc *e, size_t *room)
{
	if (RAW_CAP - e->rlen < RAW_ROOM_MIN) {
		memmove(e->raw, e->raw + e->roff, e->rlen - e->roff);
		e->rlen -= e->roff;
		e->roff = 0;
	}
	*room = RAW_CAP - e->rlen;
	return e->raw + e->rlen;
}

void
core_csv_enc_feed(struct core_csv_enc *e, size_t n)
{
	if (n == 0)
		e->fed_end = true;
	e->rlen += n;
	e->short_in = false;
}

bool
core_csv_enc_hungry(const struct core_csv_enc *e)
{
	return !e->fed_end && e->clen == e->coff &&
	    (e->rlen - e->roff < 4 || e->short_in);
}

/* The byte order mark and what it says, once 3 bytes (or the end) are
 * there: 0, or CORE_EDATA when it contradicts the encoding asked for. */
static int
enc_start(struct core_csv_enc *e, struct core_err *err)
{
	const unsigned char *p = (const unsigned char *)e->raw + e->roff;
	size_t n = e->rlen - e->roff;
	bool le = n >= 2 && p[0] == 0xff && p[1] == 0xfe;
	bool be = n >= 2 && p[0] == 0xfe && p[1] == 0xff;

	if (e->enc == CORE_ENC_UTF16) {
		e->eff = be ? CORE_ENC_UTF16BE : CORE_ENC_UTF16LE;
		if (le || be) {
			e->roff += 2;
			e->off += 2;
		}
	} else if ((e->enc == CORE_ENC_UTF16LE && be) ||
	    (e->enc == CORE_ENC_UTF16BE && le)) {
		return core_err_set(err, CORE_EDATA, "%s: its byte order mark "
		    "says %s, not %s: give --encoding %s (or utf-16, which "
		    "goes by the mark)", e->name, le ? "UTF-16LE" :
		    "UTF-16BE", enc_title(e->enc), le ? "utf-16le" :
		    "utf-16be");
	} else if ((e->enc == CORE_ENC_LATIN1 || e->enc == CORE_ENC_CP1252) &&
	    n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
		return core_err_set(err, CORE_EDATA, "%s: starts with a UTF-8 "
		    "byte order mark, so it is UTF-8, not %s: drop "
		    "--encoding %s", e->name, enc_title(e->enc),
		    core_csv_enc_name(e->enc));
	}
	e->cd = iconv_open("UTF-8", iconv_name(e->eff));
	if (e->cd == (iconv_t)-1)
		return core_err_errno(err, CORE_EINTERNAL, errno,
		    "%s: cannot convert from %s (iconv)", e->name,
		    enc_title(e->eff));
	e->started = true;
	return 0;
}

static uint64_t
count_lf(const char *p, size_t n)
{
	const char *end = p + n;
	uint64_t k = 0;

	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		k++;
		p++;
	}
	return k;
}

/* The error for the bytes at raw[roff] (invalid, or cut by the end). */
static int
enc_bad(struct core_csv_enc *e, bool cut, struct core_err *err)
{
	const unsigned char *p = (const unsigned char *)e->raw + e->roff;
	size_t n = e->rlen - e->roff, i;
	char hex[32];
	int k = 0;
	bool utf16 = e->eff == CORE_ENC_UTF16LE || e->eff == CORE_ENC_UTF16BE;
	unsigned long long line = (unsigned long long)e->lines + 1;
	unsigned long long off = (unsigned long long)e->off;

	for (i = 0; i < n && i < (utf16 ? 4u : 1u); i++)
		k += snprintf(hex + k, sizeof(hex) - (size_t)k, "%s0x%02X",
		    i ? " " : "", p[i]);
	if (cut)
		return core_err_set(err, CORE_EDATA, "%s:%llu: the input ends "
		    "inside a %s character at byte offset %llu (%s): it is "
		    "cut short, or not %s; give its encoding with --encoding",
		    e->name, line, enc_title(e->eff), off, hex,
		    enc_title(e->eff));
	if (utf16)
		return core_err_set(err, CORE_EDATA, "%s:%llu: invalid %s at "
		    "byte offset %llu (%s, a lone surrogate): if the bytes "
		    "are in the other order, give --encoding %s", e->name,
		    line, enc_title(e->eff), off, hex,
		    e->eff == CORE_ENC_UTF16LE ? "utf-16be" : "utf-16le");
	return core_err_set(err, CORE_EDATA, "%s:%llu: invalid %s at byte "
	    "offset %llu (%s is no character in it): if the file is Latin-1, "
	    "give --encoding latin-1", e->name, line, enc_title(e->eff), off,
	    hex);
}

/* One iconv call into out[0..cap): the bytes written, or -1 with errno
 * (EILSEQ, EINVAL: at raw[roff]; E2BIG with nothing written). */
static ssize_t
enc_step(struct core_csv_enc *e, char *out, size_t cap)
{
	char *in = e->raw + e->roff, *o = out;
	size_t inleft = e->rlen - e->roff, outleft = cap, used;
	size_t r = iconv(e->cd, &in, &inleft, &o, &outleft);
	int saved = errno;

	used = (size_t)(in - (e->raw + e->roff));
	e->roff += used;
	e->off += used;
	if (r == (size_t)-1 && o == out && (saved != E2BIG || used == 0)) {
		errno = saved;
		return -1;
	}
	return o - out;
}

ssize_t
core_csv_enc_out(struct core_csv_enc *e, char *buf, size_t cap,
    struct core_err *err)
{
	size_t pending = e->rlen - e->roff, take;
	ssize_t n;
	int rc;

	if (e->clen > e->coff) {
		take = e->clen - e->coff < cap ? e->clen - e->coff : cap;
		memcpy(buf, e->carry + e->coff, take);
		e->coff += take;
		e->lines += count_lf(buf, take);
		return (ssize_t)take;
	}
	if (!e->started) {
		if (!e->fed_end && pending < 3)
			return 0;
		if ((rc = enc_start(e, err)) != 0)
			return rc;
		pending = e->rlen - e->roff;
	}
	if (pending == 0)
		return 0;
	if (!e->fed_end && pending < 4)
		return 0;
	if (cap < sizeof(e->carry)) {
		n = enc_step(e, e->carry, sizeof(e->carry));
		if (n > 0) {
			e->coff = 0;
			e->clen = (size_t)n;
			return core_csv_enc_out(e, buf, cap, err);
		}
	} else {
		n = enc_step(e, buf, cap);
		if (n > 0) {
			e->lines += count_lf(buf, (size_t)n);
			return n;
		}
	}
	if (n < 0 && errno == EINVAL && !e->fed_end) {
		e->short_in = true;	/* a character's rest is to come */
		return 0;
	}
	return enc_bad(e, n < 0 && errno == EINVAL, err);
}

/* ---- what the bytes look like ---- */

int
core_csv_enc_utf16_guess(const char *p, size_t len)
{
	size_t n = len < 4096 ? len : 4096, i, even = 0, odd = 0, pairs;

	n &= ~(size_t)1;
	pairs = n / 2;
	if (pairs < 2)
		return 0;
	for (i = 0; i < n; i += 2) {
		even += p[i] == '\0';
		odd += p[i + 1] == '\0';
	}
	/* A few NUL-separated bytes look the same: short text must show a
	 * UTF-16 line break too. */
	if (pairs < 32) {
		for (i = 0; i + 1 < n; i += 2)
			if ((p[i] == '\n' && p[i + 1] == '\0') ||
			    (p[i] == '\0' && p[i + 1] == '\n'))
				break;
		if (i + 1 >= n)
			return 0;
	}
	if (odd * 10 >= pairs * 6 && even * 10 <= pairs)
		return CORE_ENC_UTF16LE;
	if (even * 10 >= pairs * 6 && odd * 10 <= pairs)
		return CORE_ENC_UTF16BE;
	return 0;
}

/* Bytes of the valid UTF-8 sequence at s, 0 when it is none. */
static size_t
utf8_seq(const char *s, size_t len)
{
	unsigned char c = (unsigned char)s[0];
	size_t k = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
	    c >= 0xf0 && c <= 0xf4 ? 4 : 0;

	if (k == 0 || k > len || core_utf8_valid_prefix(s, k) != k)
		return 0;
	return k;
}

int
core_csv_enc_guess(const char *p, size_t len)
{
	size_t i = 0, k, valid = 0, bad = 0, c1 = 0, undef = 0;
	unsigned char c;
	int g;

	if ((g = core_csv_enc_utf16_guess(p, len)) != 0)
		return g;
	while (i < len) {
		c = (unsigned char)p[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		if ((k = utf8_seq(p + i, len - i)) != 0) {
			valid++;
			i += k;
			continue;
		}
		bad++;
		if (c == 0x81 || c == 0x8d || c == 0x8f || c == 0x90 ||
		    c == 0x9d)
			undef++;
		else if (c < 0xa0)
			c1++;
		i++;
	}
	/* Latin-1 text rarely holds a valid UTF-8 sequence by chance; many
	 * of them beside the bad bytes are two encodings in one file. */
	if (bad == 0 || valid >= bad)
		return 0;
	if (undef > 0)
		return CORE_ENC_LATIN1;
	return c1 > 0 ? CORE_ENC_CP1252 : CORE_ENC_LATIN1;
}

void
core_csv_enc_hint(const char *p, size_t len, char *msg, size_t size)
{
	size_t have = strlen(msg);
	int g = core_csv_enc_guess(p, len);

	if (have >= size)
		return;
	switch (g) {
	case CORE_ENC_UTF16LE:
	case CORE_ENC_UTF16BE:
		snprintf(msg + have, size - have, "; looks like %s without a "
		    "byte order mark (a NUL byte every other byte): try "
		    "--encoding %s", enc_title(g), core_csv_enc_name(g));
		break;
	case CORE_ENC_CP1252:
		snprintf(msg + have, size - have, "; looks like Windows-1252 "
		    "(bytes 0x80-0x9F as its punctuation): try --encoding "
		    "windows-1252");
		break;
	case CORE_ENC_LATIN1:
		snprintf(msg + have, size - have, "; looks like Latin-1 "
		    "(ISO-8859-1) or Windows-1252: try --encoding latin-1");
		break;
	default:
		snprintf(msg + have, size - have, "; the input is not UTF-8 "
		    "throughout: if it is in another encoding, give it with "
		    "--encoding (latin-1, windows-1252, utf-16)");
		break;
	}
}

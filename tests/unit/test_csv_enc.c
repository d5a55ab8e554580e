/*
 * test_csv_enc.c - the block transcoder against references on random
 * text: Latin-1 and UTF-16 against byte-level encoders written here (a
 * code point is its UTF-8 and its UTF-16 units by the definitions),
 * Windows-1252 against a one-shot iconv(3) of the whole text; fed in
 * random block sizes and read out in random amounts (down to one byte),
 * the UTF-8 must be the reference's exactly.  Invalid bytes put at random
 * places must fail naming their byte offset and line, after the text in
 * front of them came out whole.  The guess at what invalid UTF-8 is, and
 * the name lookup, on made-up cases.
 */
#include <iconv.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core_csv_enc.h"
#include "unit.h"

static void
put_utf8(struct unit_buf *b, uint32_t c)
{
	char u[4];

	if (c < 0x80) {
		unit_buf_ch(b, (char)c);
	} else if (c < 0x800) {
		u[0] = (char)(0xc0 | c >> 6);
		u[1] = (char)(0x80 | (c & 0x3f));
		unit_buf_add(b, u, 2);
	} else if (c < 0x10000) {
		u[0] = (char)(0xe0 | c >> 12);
		u[1] = (char)(0x80 | (c >> 6 & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		unit_buf_add(b, u, 3);
	} else {
		u[0] = (char)(0xf0 | c >> 18);
		u[1] = (char)(0x80 | (c >> 12 & 0x3f));
		u[2] = (char)(0x80 | (c >> 6 & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		unit_buf_add(b, u, 4);
	}
}

static void
put_unit16(struct unit_buf *b, uint32_t u, bool be)
{
	char x[2] = { (char)(be ? u >> 8 : u & 0xff),
	    (char)(be ? u & 0xff : u >> 8) };

	unit_buf_add(b, x, 2);
}

static void
put_utf16(struct unit_buf *b, uint32_t c, bool be)
{
	if (c < 0x10000) {
		put_unit16(b, c, be);
		return;
	}
	c -= 0x10000;
	put_unit16(b, 0xd800 | c >> 10, be);
	put_unit16(b, 0xdc00 | (c & 0x3ff), be);
}

/* A random code point: mostly ASCII with line feeds, some of every
 * plane, never a surrogate. */
static uint32_t
rand_cp(void)
{
	uint32_t c;

	switch (unit_rand() % 8) {
	case 0:
		return '\n';
	case 1:
		return 0x80 + (uint32_t)(unit_rand() % 0x780);
	case 2:
		do
			c = 0x800 + (uint32_t)(unit_rand() % 0xf800);
		while (c >= 0xd800 && c < 0xe000);
		return c;
	case 3:
		return 0x10000 + (uint32_t)(unit_rand() % 0x100000);
	default:
		return 0x20 + (uint32_t)(unit_rand() % 0x5f);
	}
}

/* Runs raw[0..n) through a transcoder for enc in random blocks into
 * *out; returns what core_csv_enc_out last returned (0 or an error). */
static int
convert(int enc, const char *raw, size_t n, struct unit_buf *out,
    struct core_err *err)
{
	struct core_csv_enc *e;
	size_t fed = 0, room, k, cap;
	char obuf[4096], *p;
	ssize_t got;
	int rc;

	if ((rc = core_csv_enc_new(enc, "t.csv", &e, err)) != 0)
		return rc;
	for (;;) {
		if (core_csv_enc_hungry(e)) {
			p = core_csv_enc_space(e, &room);
			k = 1 + unit_rand() % 5000;
			k = k < room ? k : room;
			k = k < n - fed ? k : n - fed;
			memcpy(p, raw + fed, k);
			fed += k;
			core_csv_enc_feed(e, k);
		}
		cap = unit_rand() % 3 == 0 ? 1 + unit_rand() % 7 :
		    1 + unit_rand() % sizeof(obuf);
		got = core_csv_enc_out(e, obuf, cap, err);
		if (got < 0) {
			core_csv_enc_free(e);
			return (int)got;
		}
		if (got > 0)
			unit_buf_add(out, obuf, (size_t)got);
		else if (!core_csv_enc_hungry(e))
			break;
	}
	core_csv_enc_free(e);
	return 0;
}

static bool
same(const struct unit_buf *a, const struct unit_buf *b)
{
	return a->len == b->len && (a->len == 0 ||
	    memcmp(a->p, b->p, a->len) == 0);
}

static void
test_latin1_random(void)
{
	struct unit_buf raw = { 0 }, want = { 0 }, got = { 0 };
	struct core_err err;
	size_t n, i;
	int t, rc;
	unsigned char c;

	for (t = 0; t < 300; t++) {
		raw.len = want.len = got.len = 0;
		n = unit_rand() % 20000;
		for (i = 0; i < n; i++) {
			c = (unsigned char)(1 + unit_rand() % 255);
			unit_buf_ch(&raw, (char)c);
			put_utf8(&want, c);
		}
		/* A UTF-8 mark at the start is refused; not tested here. */
		if (raw.len >= 3 && memcmp(raw.p, "\xef\xbb\xbf", 3) == 0)
			continue;
		rc = convert(CORE_ENC_LATIN1, raw.p ? raw.p : "", raw.len,
		    &got, &err);
		CHECK_EQ_INT(rc, 0);
		if (!same(&got, &want)) {
			CHECK(false);
			printf("# latin-1 case %d: %zu bytes out, want %zu\n",
			    t, got.len, want.len);
			break;
		}
	}
	free(raw.p);
	free(want.p);
	free(got.p);
}

static void
test_utf16_random(void)
{
	struct unit_buf raw = { 0 }, want = { 0 }, got = { 0 };
	struct core_err err;
	size_t n, i;
	uint32_t c;
	int t, rc, enc, bom;
	bool be;

	for (t = 0; t < 600; t++) {
		raw.len = want.len = got.len = 0;
		enc = CORE_ENC_UTF16 + t % 3;
		be = enc == CORE_ENC_UTF16BE ||
		    (enc == CORE_ENC_UTF16 && unit_rand() % 2);
		/* utf-16 by its mark (or little-endian without one); the
		 * fixed orders keep a mark as U+FEFF. */
		bom = enc == CORE_ENC_UTF16 ? (int)(unit_rand() % 2) : 0;
		if (enc == CORE_ENC_UTF16 && !bom)
			be = false;
		if (bom)
			put_unit16(&raw, 0xfeff, be);
		n = unit_rand() % 8000;
		for (i = 0; i < n; i++) {
			c = rand_cp();
			put_utf16(&raw, c, be);
			put_utf8(&want, c);
		}
		rc = convert(enc, raw.p ? raw.p : "", raw.len, &got, &err);
		CHECK_EQ_INT(rc, 0);
		if (rc != 0)
			printf("# %s\n", err.msg);
		if (!same(&got, &want)) {
			CHECK(false);
			printf("# utf-16 case %d (enc %d, be %d, bom %d): %zu "
			    "bytes out, want %zu\n", t, enc, be, bom, got.len,
			    want.len);
			break;
		}
	}
	free(raw.p);
	free(want.p);
	free(got.p);
}

static void
test_cp1252_random(void)
{
	static const unsigned char undef[] = { 0x81, 0x8d, 0x8f, 0x90, 0x9d };
	struct unit_buf raw = { 0 }, want = { 0 }, got = { 0 };
	struct core_err err;
	iconv_t cd = iconv_open("UTF-8", "CP1252");
	char *in, *o, obuf[200000];
	size_t n, i, il, ol;
	int t, rc;
	unsigned char c;

	CHECK(cd != (iconv_t)-1);
	if (cd == (iconv_t)-1)
		return;
	for (t = 0; t < 300; t++) {
		raw.len = want.len = got.len = 0;
		n = unit_rand() % 40000;
		for (i = 0; i < n; i++) {
			c = (unsigned char)(1 + unit_rand() % 255);
			if (memchr(undef, c, sizeof(undef)) != NULL)
				c = '\n';
			unit_buf_ch(&raw, (char)c);
		}
		if (raw.len >= 3 && memcmp(raw.p, "\xef\xbb\xbf", 3) == 0)
			continue;
		in = raw.p ? raw.p : "";
		il = raw.len;
		o = obuf;
		ol = sizeof(obuf);
		CHECK(iconv(cd, &in, &il, &o, &ol) != (size_t)-1);
		unit_buf_add(&want, obuf, (size_t)(o - obuf));
		rc = convert(CORE_ENC_CP1252, raw.p ? raw.p : "", raw.len,
		    &got, &err);
		CHECK_EQ_INT(rc, 0);
		if (!same(&got, &want)) {
			CHECK(false);
			printf("# cp1252 case %d: %zu bytes out, want %zu\n",
			    t, got.len, want.len);
			break;
		}
	}
	iconv_close(cd);
	free(raw.p);
	free(want.p);
	free(got.p);
}

/* An invalid byte (Windows-1252) or a lone surrogate (UTF-16) at a
 * random place: the error names its offset and line, and everything in
 * front of it came out. */
static void
test_invalid_random(void)
{
	struct unit_buf raw = { 0 }, want = { 0 }, got = { 0 };
	struct core_err err;
	char expect[96];
	size_t n, i, at, lines;
	int t, rc;
	bool u16;
	uint32_t c;

	for (t = 0; t < 400; t++) {
		raw.len = want.len = got.len = 0;
		u16 = t % 2;
		n = 1 + unit_rand() % 9000;
		at = unit_rand() % n;
		lines = 1;
		for (i = 0; i < n; i++) {
			if (i == at) {
				if (u16)
					put_unit16(&raw, 0xdc00 +
					    (uint32_t)(unit_rand() % 0x400),
					    false);
				else
					unit_buf_ch(&raw, '\x90');
				snprintf(expect, sizeof(expect), "t.csv:%zu: "
				    "invalid %s at byte offset %zu ", lines,
				    u16 ? "UTF-16LE" : "Windows-1252",
				    raw.len - (u16 ? 2 : 1));
			}
			c = u16 ? rand_cp() : (unit_rand() % 4 == 0 ? '\n' :
			    'a' + (uint32_t)(unit_rand() % 26));
			if (u16)
				put_utf16(&raw, c, false);
			else
				unit_buf_ch(&raw, (char)c);
			if (i < at) {
				put_utf8(&want, c);
				lines += c == '\n';
			}
		}
		rc = convert(u16 ? CORE_ENC_UTF16LE : CORE_ENC_CP1252, raw.p,
		    raw.len, &got, &err);
		CHECK_EQ_INT(rc, CORE_EDATA);
		if (rc != CORE_EDATA || strncmp(err.msg, expect,
		    strlen(expect)) != 0 || !same(&got, &want)) {
			CHECK(false);
			printf("# case %d: '%s', want '%s...'; %zu bytes "
			    "before it, want %zu\n", t, err.msg, expect,
			    got.len, want.len);
			break;
		}
	}
	/* An odd byte at the end is a character cut short. */
	raw.len = got.len = 0;
	unit_buf_add(&raw, "a\0b\0c", 5);
	rc = convert(CORE_ENC_UTF16LE, raw.p, raw.len, &got, &err);
	CHECK_EQ_INT(rc, CORE_EDATA);
	CHECK(strstr(err.msg, "ends inside a UTF-16LE character at byte "
	    "offset 4") != NULL);
	CHECK_EQ_MEM(got.p, got.len, "ab");
	/* Marks that contradict the encoding asked for. */
	got.len = 0;
	rc = convert(CORE_ENC_UTF16LE, "\xfe\xff\0a", 4, &got, &err);
	CHECK_EQ_INT(rc, CORE_EDATA);
	CHECK(strstr(err.msg, "--encoding utf-16be") != NULL);
	rc = convert(CORE_ENC_LATIN1, "\xef\xbb\xbf" "a,b\n", 7, &got, &err);
	CHECK_EQ_INT(rc, CORE_EDATA);
	CHECK(strstr(err.msg, "UTF-8 byte order mark") != NULL);
	free(raw.p);
	free(want.p);
	free(got.p);
}

static int
guess(const char *s, size_t n)
{
	return core_csv_enc_guess(s, n);
}

static void
test_guess(void)
{
	struct unit_buf b = { 0 };
	char msg[256];
	int i;

	CHECK_EQ_INT(guess("caf\xe9,na\xefve\n", 12), CORE_ENC_LATIN1);
	CHECK_EQ_INT(guess("\x93quoted\x94 \x80 5\n", 14), CORE_ENC_CP1252);
	/* 0x81 is no Windows-1252: C1 controls are Latin-1's. */
	CHECK_EQ_INT(guess("\x93q\x81\xe9", 4), CORE_ENC_LATIN1);
	CHECK_EQ_INT(guess("caf\xc3\xa9 ok", 8), 0);
	CHECK_EQ_INT(guess("", 0), 0);
	/* UTF-8 beside the bad byte is a mix, no one encoding. */
	CHECK_EQ_INT(guess("\xc3\xa9\xc3\xa9\xe9", 5), 0);
	CHECK_EQ_INT(guess("a\0,\0b\0\n\0", 8), CORE_ENC_UTF16LE);
	CHECK_EQ_INT(guess("\0a\0,\0b\0\n", 8), CORE_ENC_UTF16BE);
	CHECK_EQ_INT(core_csv_enc_utf16_guess("a,b\nc,d\n", 8), 0);
	/* NUL-separated bytes, no line break: too little to tell. */
	CHECK_EQ_INT(core_csv_enc_utf16_guess("a\0b\0c\0", 6), 0);
	/* Random Latin-1 words: always Latin-1 (or Windows-1252). */
	for (i = 0; i < 200; i++) {
		b.len = 0;
		for (int k = 0; k < 50; k++)
			unit_buf_ch(&b, unit_rand() % 5 == 0 ?
			    (char)(0xc0 + unit_rand() % 0x40) :
			    (char)('a' + unit_rand() % 26));
		if (b.len > 0 && guess(b.p, b.len) != CORE_ENC_LATIN1 &&
		    memchr(b.p, 0xc0, b.len) == NULL) {
			int g = guess(b.p, b.len);

			/* Only chance UTF-8 pairs may say otherwise. */
			CHECK(g == 0);
		}
	}
	strcpy(msg, "x");
	core_csv_enc_hint("\x93q\x94", 3, msg, sizeof(msg));
	CHECK(strstr(msg, "looks like Windows-1252") != NULL &&
	    strstr(msg, "--encoding windows-1252") != NULL);
	strcpy(msg, "x");
	core_csv_enc_hint("a\0b\0c\0\n\0", 8, msg, sizeof(msg));
	CHECK(strstr(msg, "--encoding utf-16le") != NULL);
	free(b.p);
}

static void
test_lookup(void)
{
	struct core_err err;
	int e = -1;

	CHECK_EQ_INT(core_csv_enc_lookup("Latin-1", &e, &err), 0);
	CHECK_EQ_INT(e, CORE_ENC_LATIN1);
	CHECK_EQ_INT(core_csv_enc_lookup("ISO_8859-1", &e, &err), 0);
	CHECK_EQ_INT(e, CORE_ENC_LATIN1);
	CHECK_EQ_INT(core_csv_enc_lookup("CP1252", &e, &err), 0);
	CHECK_EQ_INT(e, CORE_ENC_CP1252);
	CHECK_EQ_INT(core_csv_enc_lookup("windows-1252", &e, &err), 0);
	CHECK_EQ_INT(e, CORE_ENC_CP1252);
	CHECK_EQ_INT(core_csv_enc_lookup("UTF16BE", &e, &err), 0);
	CHECK_EQ_INT(e, CORE_ENC_UTF16BE);
	CHECK_EQ_INT(core_csv_enc_lookup("utf-8", &e, &err), 0);
	CHECK_EQ_INT(e, CORE_ENC_UTF8);
	CHECK_EQ_INT(core_csv_enc_lookup("utf-7", &e, &err), CORE_EUSAGE);
	CHECK(strstr(err.msg, "unknown encoding 'utf-7'") != NULL);
	CHECK_EQ_INT(core_csv_enc_lookup("", &e, &err), CORE_EUSAGE);
	CHECK_EQ_STR(core_csv_enc_name(CORE_ENC_CP1252), "windows-1252");
}

int
main(void)
{
	RUN(test_latin1_random);
	RUN(test_utf16_random);
	RUN(test_cp1252_random);
	RUN(test_invalid_random);
	RUN(test_guess);
	RUN(test_lookup);
	return unit_done();
}

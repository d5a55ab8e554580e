/*
 * core_csv_enc.h - text encodings of CSV input: names, transcoding to
 * UTF-8 in blocks (glibc's iconv), and what invalid UTF-8 looks like.
 *
 * The reader parses UTF-8 only.  Input in another encoding is transcoded
 * by core_input (core_input_set_encoding) before the parser sees a byte,
 * so the parse loop is the same for every encoding and untouched for
 * UTF-8, which is not transcoded at all.  Supported: UTF-8, Latin-1
 * (ISO-8859-1), Windows-1252 and UTF-16 (LE, BE, or by its byte order
 * mark, little-endian without one).
 */
#ifndef CORE_CSV_ENC_H
#define CORE_CSV_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core_err.h"

enum core_enc {
	CORE_ENC_RAW = 0,	/* bytes as they are, nothing detected */
	CORE_ENC_AUTO,		/* UTF-8, or UTF-16 when a member starts
				   with its byte order mark */
	CORE_ENC_UTF8,		/* UTF-8, nothing detected */
	CORE_ENC_LATIN1,
	CORE_ENC_CP1252,
	CORE_ENC_UTF16,		/* by the BOM; little-endian without */
	CORE_ENC_UTF16LE,
	CORE_ENC_UTF16BE,
};

/* The encoding a user's name means: case is ignored, and so are '-' and
 * '_' ("UTF_16LE", "latin1", "ISO-8859-1", "cp1252").  0 with *enc set,
 * or CORE_EUSAGE listing the names (and the closest one). */
int core_csv_enc_lookup(const char *name, int *enc, struct core_err *err);

/* The canonical name of enc ("windows-1252"), for messages. */
const char *core_csv_enc_name(int enc);

/* A transcoder from enc (not RAW, AUTO or UTF8) to UTF-8 for one member.
 * Raw bytes go in with core_csv_enc_space/core_csv_enc_feed, UTF-8 comes
 * out of core_csv_enc_out.  name is borrowed for messages. */
struct core_csv_enc;

/* Owned by the caller (core_csv_enc_free).  CORE_EINTERNAL when iconv
 * has no converter for enc (no gconv modules). */
int core_csv_enc_new(int enc, const char *name, struct core_csv_enc **out,
    struct core_err *err);
void core_csv_enc_free(struct core_csv_enc *e);	/* accepts NULL */

/* Where to put up to *room more raw bytes (at least 64 KiB). */
char *core_csv_enc_space(struct core_csv_enc *e, size_t *room);
/* Commits n raw bytes written at core_csv_enc_space; n == 0 says the
 * member's raw bytes have all been fed. */
void core_csv_enc_feed(struct core_csv_enc *e, size_t n);
/* True when more raw bytes are needed before core_csv_enc_out can give
 * anything (and the end has not been fed). */
bool core_csv_enc_hungry(const struct core_csv_enc *e);

/* Converts what was fed into buf (cap >= 1 bytes): the UTF-8 byte count,
 * 0 when everything fed is out and the end was fed, or CORE_EDATA for
 * bytes invalid in the encoding, the message naming the file, the line
 * (line feeds decoded before it, plus 1), the byte offset in the member
 * and the bytes. */
ssize_t core_csv_enc_out(struct core_csv_enc *e, char *buf, size_t cap,
    struct core_err *err);

/* UTF-16 without a byte order mark: CORE_ENC_UTF16LE or UTF16BE when
 * p[0..len) (the start of a member) has NUL bytes at most odd or most
 * even offsets and few at the others, as UTF-16 text of ASCII has (and,
 * under 64 bytes, a UTF-16 line feed); else 0. */
int core_csv_enc_utf16_guess(const char *p, size_t len);

/* What the bytes of p[0..len), which hold invalid UTF-8, most likely are:
 * CORE_ENC_UTF16LE/BE (NUL bytes every other byte), CORE_ENC_CP1252
 * (invalid bytes 0x80-0x9F that are Windows-1252 punctuation, such as
 * curly quotes and the euro sign), CORE_ENC_LATIN1 (other high bytes
 * that are no UTF-8), or 0 when they do not look like one encoding (a
 * mix of UTF-8 and other bytes, or no invalid byte at all). */
int core_csv_enc_guess(const char *p, size_t len);

/* Appends to msg (size bytes, NUL-terminated) what the guess for
 * p[0..len) says, "; looks like Windows-1252: try --encoding
 * windows-1252", or a pointer to --encoding when nothing fits. */
void core_csv_enc_hint(const char *p, size_t len, char *msg, size_t size);

#endif

/*
 * core_err.c - the error object (see core_err.h).
 *
 * Messages are formatted into the fixed buffer of struct core_err so that
 * reporting an error never allocates (it may be out of memory already).
 * A message too long for the buffer is cut, never overflowed.
 */
#include <stdio.h>
#include <string.h>

#include "core_err.h"

int
core_err_vset(struct core_err *err, int code, const char *fmt, va_list ap)
{
	if (err == NULL)
		return code;
	err->code = code;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return code;
}

int
core_err_set(struct core_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	core_err_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

int
core_err_errno(struct core_err *err, int code, int errnum,
    const char *fmt, ...)
{
	va_list ap;
	size_t len;

	if (err == NULL)
		return code;
	va_start(ap, fmt);
	core_err_vset(err, code, fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, ": %s",
	    strerror(errnum));
	return code;
}

void
core_err_prefix(struct core_err *err, const char *prefix)
{
	size_t plen, mlen;

	if (err == NULL)
		return;
	plen = strlen(prefix) + 2;
	if (plen >= sizeof(err->msg))
		return;
	mlen = strlen(err->msg);
	if (mlen > sizeof(err->msg) - 1 - plen)
		mlen = sizeof(err->msg) - 1 - plen;
	memmove(err->msg + plen, err->msg, mlen);
	err->msg[plen + mlen] = '\0';
	memcpy(err->msg, prefix, plen - 2);
	memcpy(err->msg + plen - 2, ": ", 2);
}

void
core_err_clear(struct core_err *err)
{
	if (err == NULL)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

int
core_err_exit_status(int code)
{
	switch (code) {
	case CORE_OK:
	case CORE_EOF:
	case CORE_EPIPE:
		return CORE_EXIT_OK;
	case CORE_EUSAGE:
		return CORE_EXIT_USAGE;
	case CORE_EDATA:
	case CORE_ETRUNC:
	case CORE_ECORRUPT:
		return CORE_EXIT_DATA;
	case CORE_ELIMIT:
		return CORE_EXIT_LIMIT;
	case CORE_EIO:
		return CORE_EXIT_IO;
	default:
		return CORE_EXIT_INTERNAL;
	}
}

void
core_err_print(const char *progname, const struct core_err *err)
{
	fprintf(stderr, "%s: %s\n", progname,
	    err != NULL && err->msg[0] ? err->msg : "unknown error");
}

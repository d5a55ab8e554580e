/*
 * core_parquet_read.c - the Parquet reader's footer, schema and scans
 * (core_parquet_read.h); pages are decoded in core_parquet_read_decode.c.
 *
 * Opening reads the last 8 bytes (footer length, "PAR1"), then the footer,
 * and parses FileMetaData into what a scan needs: the schema elements
 * reduced to the top-level columns, and per row group its row count and
 * per leaf column where its chunk lies, how it is compressed, its
 * statistics and where its page index is.  Nothing else of the footer is
 * kept (key/value metadata, encodings).
 *
 * Trust: the footer length must fit in the file; every list count in it
 * is bounded by the footer's bytes (core_thrift), and the schema's, row
 * groups' and key/value pairs' by the least bytes each element takes
 * (list_fits) before anything is allocated for them; the schema tree must be
 * well formed (children counts adding up, as many column chunks in every
 * row group as the schema has leaves, of the leaves' physical types); row
 * counts are non-negative and their sum fits; a chunk's byte range must
 * lie between the leading magic and the footer.  So what open allocates
 * is bounded by the footer's size, and what a scan allocates by the
 * sizes of the chunks it reads (and their pages: core_parquet_read_decode.c).
 *
 * A scan reads row group after row group: one pread per selected column
 * of its whole chunk into a buffer kept from one row group to the next,
 * then batches of at most CORE_PARQUET_READ_BATCH_ROWS rows decoded from
 * all of them.  Workload: files of a few to thousands of row groups of
 * up to millions of rows, scanned front to back.
 *
 * Dictionary pruning: before a row group's chunks are read, each column
 * the filter has an = or IN term on whose chunk is dictionary-encoded
 * throughout (encoding_stats, or the encodings list) has only its
 * dictionary page read; when no value of it may pass, the row group is
 * skipped.  A chunk whose dictionary page does not lie before its first
 * data page is not looked at.
 *
 * Page pruning (core_parquet_scan_prune): before a row group's chunks
 * are read, the ColumnIndex and OffsetIndex of each pruned column give
 * the row ranges of its pages that no row of can pass; what is left is
 * keep, the ranges handed out.  Each selected column with an OffsetIndex
 * reads only its pages that overlap keep (and the bytes before its first
 * data page: the dictionary), so columns hold different rows: each
 * cursor's colpages says which, and before every batch a cursor drops
 * the rows of its pages between where it is and the batch's first row.
 * So the columns of a batch stay aligned on the same rows, whatever
 * their pages' boundaries.  Every page location is checked against its
 * chunk's byte range and the row group's rows before it is used.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_codec.h"
#include "core_parquet_read.h"
#include "core_parquet_read_private.h"
#include "core_pool.h"
#include "core_thrift.h"

/* A schema element, as far as the reader cares. */
struct elem {
	char *name;			/* owned */
	int type;			/* physical type, -1 for a group */
	int32_t type_length;
	int repetition;			/* 0 REQUIRED, 1 OPTIONAL, 2 REPEATED */
	int32_t num_children;
	int converted;			/* -1 when absent */
	int32_t scale, precision;	/* -1 when absent */
	int logical;			/* LogicalType's field id, 0 absent */
	int32_t l_scale, l_precision;	/* DECIMAL */
	int l_unit;			/* TIMESTAMP/TIME: 1 ms, 2 us, 3 ns */
	int l_bits;			/* INTEGER */
	bool l_signed;
};

/* A chunk's Statistics, as written: min_value/max_value, or the
 * deprecated min/max (legacy: valid only for signed integers). */
struct stats {
	bool has_nc;
	int64_t null_count;
	uint8_t *min, *max;		/* owned, or NULL */
	uint32_t minlen, maxlen;
	bool legacy;
};

struct chunk {
	int type;			/* physical type, -1 when no metadata */
	int codec;
	int64_t data_off, dict_off;	/* dict_off -1 when absent */
	int64_t csize;
	bool external;			/* in another file */
	/* Every data page dictionary-encoded, by encoding_stats, or
	 * without them by the encodings list. */
	bool all_dict;
	struct stats st;
	/* The page index: OffsetIndex and ColumnIndex places, len 0 when
	 * the file has none. */
	int64_t oi_off, ci_off;
	int32_t oi_len, ci_len;
};

struct row_group {
	int64_t nrows;
	struct chunk *chunks;		/* owned, one per leaf */
};

struct core_parquet_file {
	int fd;				/* borrowed or owned (own_fd) */
	bool own_fd;
	char *name;			/* owned */
	uint64_t size;
	char *created_by;		/* owned */
	uint32_t ncols, nleaves, nrg;
	struct core_parquet_column *cols;	/* owned, ncols */
	struct pq_leaf *leaves;		/* owned, ncols (flat ones set) */
	struct row_group *rgs;		/* owned, nrg */
	uint64_t nrows;
};

/* Rows lo..hi-1 of a row group. */
struct rrange {
	uint64_t lo, hi;
};

/* A page of an OffsetIndex, checked against its chunk. */
struct pageloc {
	int64_t off;
	int32_t size;
	int64_t first;
};

/* A ColumnIndex's lists, as many entries as its OffsetIndex has pages;
 * min and max point into the scan's ix. */
struct colidx {
	uint8_t *null_page;
	struct pq_sv *min, *max;
	int64_t *nulls;			/* entries < 0: not known */
	size_t cap;
};

/* What a column's cursor holds of its row group: the row ranges of the
 * pages read, in order; at the first that may lie past cpos, the row
 * its cursor is at (the rows of those ranges before it are decoded). */
struct colpages {
	struct rrange *r;		/* owned */
	size_t n, cap, at;
	uint64_t cpos;
};

struct core_parquet_scan {
	struct core_parquet_file *f;	/* borrowed */
	struct core_schema *schema;	/* owned */
	uint32_t ncols;
	uint32_t *cols;			/* owned: file column indices */
	uint32_t batch_rows;		/* CORE_PARQUET_READ_BATCH_ROWS, fewer
					   when the columns are many */
	struct pq_cursor *cur;		/* owned, ncols */
	uint8_t **buf;			/* owned chunk buffers, ncols */
	size_t *buf_cap;
	struct core_codec_ctx *cx;	/* owned */
	struct core_codec_ctx *cx2;	/* owned: the second thread's */
	struct core_pool *pool;		/* borrowed, or NULL */
	uint32_t *order;		/* owned: columns, costliest first */
	uint32_t rg;			/* row group being read */
	uint64_t rg_left;		/* its rows not yet handed out */
	bool *skip;			/* owned, nrg flags, or NULL */
	const bool *pending;		/* next_cols' first, until next_rest */
	bool started, done;
	struct core_parquet_scan_stats stats;

	/* Page-level pruning (all borrowed): the pruner, over a schema of
	 * prune_n columns, column j of which is the file's prune_map[j]. */
	const struct core_prune *prune;
	const uint32_t *prune_map;
	uint32_t prune_n;
	struct core_colstats *pst;	/* owned, prune_n: one page's */

	/* The rows of the row group handed out: keep[0..nkeep) in order,
	 * ki the current range, pos the next row.  Without a page ruled
	 * out it is the one range of all rows. */
	struct rrange *keep;		/* owned */
	size_t nkeep, keep_cap, ki;
	uint64_t pos;
	struct rrange *ex;		/* owned scratch: rows ruled out */
	size_t nex, ex_cap;
	struct colpages *cp;		/* owned, ncols */
	struct pageloc *pl;		/* owned scratch: an OffsetIndex */
	size_t npl, pl_cap;
	struct colidx ci;		/* owned scratch: a ColumnIndex */
	/* Dictionary pruning: a cursor holding one chunk's dictionary
	 * (only its dictionary fields used), and the bytes read for it. */
	struct pq_cursor dcur;		/* owned */
	struct pq_scratch sc[2];	/* owned: each decoding thread's */
	uint8_t *dbuf;			/* owned */
	size_t dbuf_cap;
	uint8_t *ix;			/* owned: page index bytes */
	size_t ix_cap;
};

/* ---- footer ---- */

struct parse {
	struct core_thrift_reader r;
	struct core_parquet_file *f;
	struct elem *elems;
	uint32_t nelems;
};

static int
want(struct parse *ps, bool ok)
{
	if (!ok && ps->r.why == NULL)
		ps->r.why = "wrong field type";
	return ok ? 0 : CORE_ECORRUPT;
}

static int
get_i(struct parse *ps, uint8_t t, int64_t lo, int64_t hi, int64_t *v)
{
	return core_thrift_read_int_range(&ps->r, t, lo, hi, v);
}

#define GET32(dst)							\
	do {								\
		int64_t v_;						\
		if (get_i(ps, t, INT32_MIN, INT32_MAX, &v_) != 0)	\
			return CORE_ECORRUPT;				\
		(dst) = (int32_t)v_;					\
	} while (0)

#define SKIP()								\
	do {								\
		if (core_thrift_skip(&ps->r, t) != 0)			\
			return CORE_ECORRUPT;				\
	} while (0)

/* An empty struct of a union (LogicalType's members, TimeUnit's). */
static int
parse_unit(struct parse *ps, int *unit)
{
	int16_t id;
	uint8_t t;
	int rc;

	if (core_thrift_read_struct(&ps->r) != 0)
		return CORE_ECORRUPT;
	while ((rc = core_thrift_read_field(&ps->r, &id, &t)) > 0) {
		if (t == CORE_THRIFT_STRUCT && id >= 1 && id <= 3)
			*unit = id;
		SKIP();
	}
	return rc;
}

static int
parse_logical(struct parse *ps, struct elem *e)
{
	int16_t id, id2;
	uint8_t t;
	int rc, rc2;
	int64_t v;

	if (core_thrift_read_struct(&ps->r) != 0)
		return CORE_ECORRUPT;
	while ((rc = core_thrift_read_field(&ps->r, &id, &t)) > 0) {
		if (want(ps, t == CORE_THRIFT_STRUCT) != 0)
			return CORE_ECORRUPT;
		e->logical = id;
		if (id != 5 && id != 7 && id != 8 && id != 10) {
			SKIP();
			continue;
		}
		if (core_thrift_read_struct(&ps->r) != 0)
			return CORE_ECORRUPT;
		while ((rc2 = core_thrift_read_field(&ps->r, &id2, &t)) > 0) {
			if (id == 5 && (id2 == 1 || id2 == 2) &&
			    t == CORE_THRIFT_I32) {
				if (get_i(ps, t, INT32_MIN, INT32_MAX, &v))
					return CORE_ECORRUPT;
				if (id2 == 1)
					e->l_scale = (int32_t)v;
				else
					e->l_precision = (int32_t)v;
			} else if ((id == 7 || id == 8) && id2 == 2 &&
			    t == CORE_THRIFT_STRUCT) {
				if (parse_unit(ps, &e->l_unit) != 0)
					return CORE_ECORRUPT;
			} else if (id == 10 && id2 == 1 &&
			    t == CORE_THRIFT_BYTE) {
				if (get_i(ps, t, 0, 127, &v) != 0)
					return CORE_ECORRUPT;
				e->l_bits = (int)v;
			} else if (id == 10 && id2 == 2 &&
			    (t == CORE_THRIFT_TRUE || t == CORE_THRIFT_FALSE)) {
				e->l_signed = t == CORE_THRIFT_TRUE;
			} else {
				SKIP();
			}
		}
		if (rc2 < 0)
			return rc2;
	}
	return rc;
}

static int
parse_elem(struct parse *ps, struct elem *e)
{
	const uint8_t *p;
	size_t len;
	int16_t id;
	uint8_t t;
	int rc;

	memset(e, 0, sizeof(*e));
	e->type = -1;
	e->converted = -1;
	e->scale = e->precision = -1;
	e->l_scale = e->l_precision = -1;
	e->repetition = 0;
	if (core_thrift_read_struct(&ps->r) != 0)
		return CORE_ECORRUPT;
	while ((rc = core_thrift_read_field(&ps->r, &id, &t)) > 0) {
		switch (id) {
		case 1:
			GET32(e->type);
			break;
		case 2:
			GET32(e->type_length);
			break;
		case 3:
			GET32(e->repetition);
			break;
		case 4:
			if (want(ps, t == CORE_THRIFT_BINARY) != 0 ||
			    core_thrift_read_binary(&ps->r, &p, &len) != 0)
				return CORE_ECORRUPT;
			free(e->name);
			e->name = core_xstrndup((const char *)p, len);
			break;
		case 5:
			GET32(e->num_children);
			break;
		case 6:
			GET32(e->converted);
			break;
		case 7:
			GET32(e->scale);
			break;
		case 8:
			GET32(e->precision);
			break;
		case 10:
			if (want(ps, t == CORE_THRIFT_STRUCT) != 0 ||
			    parse_logical(ps, e) != 0)
				return CORE_ECORRUPT;
			break;
		default:
			SKIP();
		}
	}
	if (e->name == NULL)
		e->name = core_xstrdup("");
	return rc;
}

/* A binary field's copy into *dst (replacing what was there). */
static int
get_bytes(struct parse *ps, uint8_t t, uint8_t **dst, uint32_t *len)
{
	const uint8_t *b;
	size_t n;

	if (want(ps, t == CORE_THRIFT_BINARY) != 0 ||
	    core_thrift_read_binary(&ps->r, &b, &n) != 0 || n > UINT32_MAX)
		return CORE_ECORRUPT;
	free(*dst);
	*dst = core_xmalloc(n ? n : 1);
	memcpy(*dst, b, n);
	*len = (uint32_t)n;
	return 0;
}

/* Statistics: the exact fields win over the deprecated ones. */
static int
parse_stats(struct parse *ps, struct stats *st)
{
	uint8_t *lmin = NULL, *lmax = NULL;
	uint32_t lminlen = 0, lmaxlen = 0;
	int16_t id;
	uint8_t t;
	int rc;
	int64_t v;

	if (core_thrift_read_struct(&ps->r) != 0)
		return CORE_ECORRUPT;
	while ((rc = core_thrift_read_field(&ps->r, &id, &t)) > 0) {
		switch (id) {
		case 1:
			rc = get_bytes(ps, t, &lmax, &lmaxlen);
			break;
		case 2:
			rc = get_bytes(ps, t, &lmin, &lminlen);
			break;
		case 3:
			/* A negative count says nothing (some writers put
			 * -1 there). */
			rc = get_i(ps, t, INT64_MIN, INT64_MAX, &v);
			st->has_nc = rc == 0 && v >= 0;
			st->null_count = v;
			break;
		case 5:
			rc = get_bytes(ps, t, &st->max, &st->maxlen);
			break;
		case 6:
			rc = get_bytes(ps, t, &st->min, &st->minlen);
			break;
		default:
			rc = core_thrift_skip(&ps->r, t) != 0 ? CORE_ECORRUPT :
			    0;
		}
		if (rc != 0)
			break;
	}
	if (rc == 0 && (st->min == NULL || st->max == NULL) &&
	    lmin != NULL && lmax != NULL) {
		free(st->min);
		free(st->max);
		st->min = lmin;
		st->max = lmax;
		st->minlen = lminlen;
		st->maxlen = lmaxlen;
		st->legacy = true;
		lmin = lmax = NULL;
	} else if (st->min == NULL || st->max == NULL) {
		free(st->min);
		free(st->max);
		st->min = st->max = NULL;
	}
	free(lmin);
	free(lmax);
	return rc < 0 ? CORE_ECORRUPT : 0;
}

/* parquet.thrift's Encoding and PageType values the reader looks for. */
enum {
	ENC_PLAIN_DICTIONARY = 2,
	ENC_RLE = 3,
	ENC_BIT_PACKED = 4,
	ENC_RLE_DICTIONARY = 8,
	PAGE_DATA = 0,
	PAGE_DATA_V2 = 3,
};

/* The encodings list: whether it holds a dictionary encoding and only
 * those and the levels' (RLE, BIT_PACKED). */
static int
parse_encodings(struct parse *ps, bool *all_dict)
{
	uint32_t n, i;
	uint8_t et;
	int64_t v;
	bool dict = false, other = false;

	if (core_thrift_read_list(&ps->r, &et, &n) != 0 ||
	    want(ps, et == CORE_THRIFT_I32) != 0)
		return CORE_ECORRUPT;
	for (i = 0; i < n; i++) {
		if (core_thrift_read_int(&ps->r, et, &v) != 0)
			return CORE_ECORRUPT;
		if (v == ENC_PLAIN_DICTIONARY || v == ENC_RLE_DICTIONARY)
			dict = true;
		else if (v != ENC_RLE && v != ENC_BIT_PACKED)
			other = true;
	}
	*all_dict = dict && !other;
	return 0;
}

/* encoding_stats: whether every data page counted is dictionary-encoded
 * (and there is one). */
static int
parse_encoding_stats(struct parse *ps, bool *all_dict)
{
	uint32_t n, i;
	uint8_t et, t;
	int16_t id;
	int64_t v, type, enc, count;
	int rc;
	bool dict = false, other = false;

	if (core_thrift_read_list(&ps->r, &et, &n) != 0 ||
	    want(ps, et == CORE_THRIFT_STRUCT) != 0)
		return CORE_ECORRUPT;
	for (i = 0; i < n; i++) {
		type = enc = -1;
		count = 1;
		if (core_thrift_read_struct(&ps->r) != 0)
			return CORE_ECORRUPT;
		while ((rc = core_thrift_read_field(&ps->r, &id, &t)) > 0) {
			if (id >= 1 && id <= 3 && t == CORE_THRIFT_I32) {
				if (core_thrift_read_int(&ps->r, t, &v) != 0)
					return CORE_ECORRUPT;
				*(id == 1 ? &type : id == 2 ? &enc :
				    &count) = v;
			} else if (core_thrift_skip(&ps->r, t) != 0) {
				return CORE_ECORRUPT;
			}
		}
		if (rc < 0)
			return CORE_ECORRUPT;
		if ((type != PAGE_DATA && type != PAGE_DATA_V2) || count == 0)
			continue;
		if (enc == ENC_PLAIN_DICTIONARY || enc == ENC_RLE_DICTIONARY)
			dict = true;
		else
			other = true;
	}
	*all_dict = dict && !other;
	return 0;
}

static int
parse_col_meta(struct parse *ps, struct chunk *c)
{
	int16_t id;
	uint8_t t;
	int rc;
	int64_t v;
	bool by_list = false, by_stats = false, have_stats = false;

	if (core_thrift_read_struct(&ps->r) != 0)
		return CORE_ECORRUPT;
	while ((rc = core_thrift_read_field(&ps->r, &id, &t)) > 0) {
		switch (id) {
		case 1:
			GET32(c->type);
			break;
		case 2:
			if (want(ps, t == CORE_THRIFT_LIST) != 0 ||
			    parse_encodings(ps, &by_list) != 0)
				return CORE_ECORRUPT;
			break;
		case 13:
			if (want(ps, t == CORE_THRIFT_LIST) != 0 ||
			    parse_encoding_stats(ps, &by_stats) != 0)
				return CORE_ECORRUPT;
			have_stats = true;
			break;
		case 4:
			GET32(c->codec);
			break;
		case 7:
			if (get_i(ps, t, 0, INT64_MAX, &v) != 0)
				return CORE_ECORRUPT;
			c->csize = v;
			break;
		case 9:
			if (get_i(ps, t, 0, INT64_MAX, &v) != 0)
				return CORE_ECORRUPT;
			c->data_off = v;
			break;
		case 11:
			if (get_i(ps, t, INT64_MIN, INT64_MAX, &v) != 0)
				return CORE_ECORRUPT;
			c->dict_off = v;
			break;
		case 12:
			if (want(ps, t == CORE_THRIFT_STRUCT) != 0 ||
			    parse_stats(ps, &c->st) != 0)
				return CORE_ECORRUPT;
			break;
		default:
			SKIP();
		}
	}
	c->all_dict = have_stats ? by_stats : by_list;
	return rc;
}

static int
parse_chunk(struct parse *ps, struct chunk *c)
{
	int16_t id;
	uint8_t t;
	int rc;
	int64_t v;

	memset(c, 0, sizeof(*c));
	c->type = -1;
	c->dict_off = -1;
	c->data_off = -1;
	if (core_thrift_read_struct(&ps->r) != 0)
		return CORE_ECORRUPT;
	while ((rc = core_thrift_read_field(&ps->r, &id, &t)) > 0) {
		if (id == 1 && t == CORE_THRIFT_BINARY) {
			c->external = true;
			SKIP();
		} else if (id == 3 && t == CORE_THRIFT_STRUCT) {
			if (parse_col_meta(ps, c) != 0)
				return CORE_ECORRUPT;
		} else if ((id == 4 || id == 6) && t == CORE_THRIFT_I64) {
			if (get_i(ps, t, 0, INT64_MAX, &v) != 0)
				return CORE_ECORRUPT;
			*(id == 4 ? &c->oi_off : &c->ci_off) = v;
		} else if ((id == 5 || id == 7) && t == CORE_THRIFT_I32) {
			if (get_i(ps, t, 0, INT32_MAX, &v) != 0)
				return CORE_ECORRUPT;
			*(id == 5 ? &c->oi_len : &c->ci_len) = (int32_t)v;
		} else {
			SKIP();
		}
	}
	return rc;
}

static int
parse_row_group(struct parse *ps, struct row_group *g)
{
	uint32_t n, i;
	int16_t id;
	uint8_t t, et;
	int rc;
	bool have_cols = false;
	int64_t v;

	g->nrows = -1;
	if (core_thrift_read_struct(&ps->r) != 0)
		return CORE_ECORRUPT;
	while ((rc = core_thrift_read_field(&ps->r, &id, &t)) > 0) {
		if (id == 1 && t == CORE_THRIFT_LIST && !have_cols) {
			if (core_thrift_read_list(&ps->r, &et, &n) != 0 ||
			    want(ps, et == CORE_THRIFT_STRUCT) != 0)
				return CORE_ECORRUPT;
			if (n != ps->f->nleaves) {
				ps->r.why = "row group with another number of "
				    "columns than the schema";
				return CORE_ECORRUPT;
			}
			g->chunks = core_xcalloc(n ? n : 1,
			    sizeof(*g->chunks));
			for (i = 0; i < n; i++)
				if (parse_chunk(ps, &g->chunks[i]) != 0)
					return CORE_ECORRUPT;
			have_cols = true;
		} else if (id == 3) {
			if (get_i(ps, t, 0, INT64_MAX, &v) != 0)
				return CORE_ECORRUPT;
			g->nrows = v;
		} else {
			SKIP();
		}
	}
	if (rc == 0 && (!have_cols || g->nrows < 0)) {
		ps->r.why = "row group without its columns or row count";
		return CORE_ECORRUPT;
	}
	return rc;
}

/* ---- schema ---- */

/* Byte-array decimals (wide) may have up to 38 digits, as decimal128;
 * INT32 and INT64 ones hold 9 and 18 at most by parquet.thrift. */
static const char *
map_decimal(struct pq_leaf *l, int32_t prec, int32_t scale, bool wide)
{
	if (prec > (wide ? CORE_DECIMAL128_MAX_PRECISION :
	    CORE_DECIMAL_MAX_PRECISION))
		return wide ? "decimal wider than 38 digits" :
		    "decimal wider than 18 digits";
	if (prec < 1 || scale < 0 || scale > prec)
		return "decimal with a bad precision or scale";
	l->type.id = prec > CORE_DECIMAL_MAX_PRECISION ?
	    CORE_TYPE_DECIMAL128 : CORE_TYPE_DECIMAL;
	l->type.precision = (uint8_t)prec;
	l->type.scale = (uint8_t)scale;
	return NULL;
}

/* Fills l's conversion and type from e; a reason when unsupported. */
static const char *
map_type(const struct elem *e, struct pq_leaf *l)
{
	int lt = e->logical, ct = e->converted;
	bool dec = lt == 5 || (lt == 0 && ct == 5);
	int32_t prec = lt == 5 ? e->l_precision : e->precision;
	int32_t scale = lt == 5 ? e->l_scale : e->scale;
	int unit = lt == 8 ? e->l_unit : ct == 9 ? 1 : ct == 10 ? 2 : 0;

	if (scale < 0)
		scale = 0;
	l->phys = e->type;
	l->type_length = e->type_length;
	if (lt == 7 || (lt == 0 && (ct == 7 || ct == 8)))
		return "TIME has no colpipe type";
	if (ct == 21)
		return "INTERVAL has no colpipe type";
	switch (e->type) {
	case PQ_BOOLEAN:
		l->conv = PQ_CONV_BOOL;
		l->type.id = CORE_TYPE_BOOL;
		return NULL;
	case PQ_INT32:
		if (dec) {
			l->conv = PQ_CONV_I32_I64;
			return map_decimal(l, prec, scale, false);
		}
		if (lt == 6 || (lt == 0 && ct == 6)) {
			l->conv = PQ_CONV_I32;
			l->type.id = CORE_TYPE_DATE;
			return NULL;
		}
		if ((lt == 10 && !e->l_signed && e->l_bits == 32) ||
		    (lt == 0 && ct == 13)) {
			l->conv = PQ_CONV_U32_I64;
			l->type.id = CORE_TYPE_INT64;
			return NULL;
		}
		l->conv = PQ_CONV_I32;
		l->type.id = CORE_TYPE_INT32;
		return NULL;
	case PQ_INT64:
		if (dec) {
			l->conv = PQ_CONV_I64;
			return map_decimal(l, prec, scale, false);
		}
		if (unit != 0) {
			l->conv = unit == 1 ? PQ_CONV_TS_MS : unit == 2 ?
			    PQ_CONV_I64 : PQ_CONV_TS_NS;
			l->type.id = CORE_TYPE_TIMESTAMP;
			return NULL;
		}
		if (lt == 8)
			return "TIMESTAMP of an unknown unit";
		l->conv = (lt == 10 && !e->l_signed) || (lt == 0 && ct == 14) ?
		    PQ_CONV_U64 : PQ_CONV_I64;
		l->type.id = CORE_TYPE_INT64;
		return NULL;
	case PQ_INT96:
		l->conv = PQ_CONV_INT96;
		l->type.id = CORE_TYPE_TIMESTAMP;
		return NULL;
	case PQ_FLOAT:
		l->conv = PQ_CONV_F32;
		l->type.id = CORE_TYPE_FLOAT64;
		return NULL;
	case PQ_DOUBLE:
		l->conv = PQ_CONV_F64;
		l->type.id = CORE_TYPE_FLOAT64;
		return NULL;
	case PQ_FLBA:
		if (e->type_length < 1)
			return "FIXED_LEN_BYTE_ARRAY without a length";
		if (lt == 15) {
			if (e->type_length != 2)
				return "FLOAT16 not of 2 bytes";
			l->conv = PQ_CONV_F16;
			l->type.id = CORE_TYPE_FLOAT64;
			return NULL;
		}
		if (lt == 14) {
			if (e->type_length != 16)
				return "UUID not of 16 bytes";
			l->conv = PQ_CONV_UUID;
			l->type.id = CORE_TYPE_STRING;
			return NULL;
		}
		/* fall through */
	case PQ_BYTE_ARRAY:
		if (dec) {
			l->conv = PQ_CONV_DEC_BE;
			return map_decimal(l, prec, scale, true);
		}
		l->conv = PQ_CONV_STRING;
		l->type.id = CORE_TYPE_STRING;
		return NULL;
	default:
		return "unknown physical type";
	}
}

/* Reduces the element list to top-level columns and their leaves. */
static int
build_columns(struct parse *ps, struct core_err *err)
{
	struct core_parquet_file *f = ps->f;
	struct elem *e = ps->elems;
	uint32_t n = ps->nelems, i, j, leaves = 0, ncols;

	if (n == 0 || e[0].num_children < 0 ||
	    (uint32_t)e[0].num_children > n - 1)
		return core_err_set(err, CORE_ECORRUPT,
		    "%s: corrupt footer: bad schema root", f->name);
	ncols = (uint32_t)e[0].num_children;
	f->cols = core_xcalloc(ncols ? ncols : 1, sizeof(*f->cols));
	f->leaves = core_xcalloc(ncols ? ncols : 1, sizeof(*f->leaves));
	f->ncols = ncols;
	for (i = 0, j = 1; i < ncols; i++) {
		struct core_parquet_column *c = &f->cols[i];
		struct pq_leaf *l = &f->leaves[i];
		uint64_t pending = 1;
		uint32_t first = j, nl = 0;

		if (j >= n)
			return core_err_set(err, CORE_ECORRUPT,
			    "%s: corrupt footer: schema ends early", f->name);
		c->name = e[j].name;	/* now the file's */
		e[j].name = NULL;
		/* Walk the subtree: each element takes one pending slot
		 * and opens num_children more; leaves are the childless. */
		while (pending > 0) {
			if (j >= n || e[j].num_children < 0)
				return core_err_set(err, CORE_ECORRUPT,
				    "%s: corrupt footer: bad schema tree",
				    f->name);
			pending += (uint64_t)e[j].num_children - 1;
			if (e[j].num_children == 0) {
				if (e[j].type < 0)
					return core_err_set(err,
					    CORE_ECORRUPT, "%s: corrupt "
					    "footer: schema leaf without a "
					    "type", f->name);
				nl++;
			}
			j++;
		}
		if (e[first].num_children > 0) {
			c->why = "nested column (a group)";
		} else if (e[first].repetition == 2) {
			c->why = "repeated column";
		} else if (e[first].repetition != 0 &&
		    e[first].repetition != 1) {
			c->why = "unknown repetition";
		} else {
			c->why = map_type(&e[first], l);
			l->max_def = e[first].repetition == 1;
			l->chunk = leaves;
		}
		c->supported = c->why == NULL;
		c->type = l->type;
		leaves += nl;
	}
	if (j != n)
		return core_err_set(err, CORE_ECORRUPT,
		    "%s: corrupt footer: schema elements left over", f->name);
	f->nleaves = leaves;
	return 0;
}

/*
 * The least bytes a list element of the footer takes in the compact
 * protocol, by the fields this reader requires: a SchemaElement and a
 * KeyValue their name or key (field header, length, stop); a RowGroup
 * its columns list header, num_rows and stop, and a byte (at least the
 * stop) per column chunk.  A count the bytes left cannot hold is refused
 * before anything is allocated for it.
 */
#define PQ_MIN_ELEM 3
#define PQ_MIN_KV 3
#define PQ_MIN_RG 5

static int
list_fits(struct parse *ps, uint32_t cnt, uint64_t each, const char *what,
    struct core_err *err)
{
	uint64_t left = (uint64_t)(ps->r.end - ps->r.p);

	if ((uint64_t)cnt * each <= left)
		return 0;
	return core_err_set(err, CORE_ECORRUPT, "%s: corrupt footer: %u %s "
	    "cannot fit in the %llu bytes left of it (each takes at least "
	    "%llu)", ps->f->name, cnt, what, (unsigned long long)left,
	    (unsigned long long)each);
}

static int
parse_footer(struct core_parquet_file *f, const uint8_t *p, size_t n,
    struct core_err *err)
{
	struct parse ps;
	const uint8_t *s;
	size_t len;
	uint32_t cnt, i;
	int16_t id;
	uint8_t t, et;
	int rc;
	bool have_schema = false, have_rgs = false;

	memset(&ps, 0, sizeof(ps));
	ps.f = f;
	core_thrift_reader_init(&ps.r, p, n);
	while ((rc = core_thrift_read_field(&ps.r, &id, &t)) > 0) {
		if (id == 2 && t == CORE_THRIFT_LIST && !have_schema) {
			if (core_thrift_read_list(&ps.r, &et, &cnt) != 0 ||
			    want(&ps, et == CORE_THRIFT_STRUCT) != 0) {
				rc = CORE_ECORRUPT;
				break;
			}
			rc = list_fits(&ps, cnt, PQ_MIN_ELEM,
			    "schema elements", err);
			if (rc != 0)
				goto out;
			ps.elems = core_xcalloc(cnt ? cnt : 1,
			    sizeof(*ps.elems));
			for (i = 0; i < cnt; i++) {
				ps.nelems = i + 1;
				if (parse_elem(&ps, &ps.elems[i]) != 0)
					break;
			}
			if (i < cnt) {
				rc = CORE_ECORRUPT;
				break;
			}
			have_schema = true;
			rc = build_columns(&ps, err);
			if (rc != 0)
				goto out;
		} else if (id == 4 && t == CORE_THRIFT_LIST && have_schema &&
		    !have_rgs) {
			if (core_thrift_read_list(&ps.r, &et, &cnt) != 0 ||
			    want(&ps, et == CORE_THRIFT_STRUCT) != 0) {
				rc = CORE_ECORRUPT;
				break;
			}
			rc = list_fits(&ps, cnt, PQ_MIN_RG + (uint64_t)
			    f->nleaves, "row groups", err);
			if (rc != 0)
				goto out;
			f->rgs = core_xcalloc(cnt ? cnt : 1, sizeof(*f->rgs));
			for (i = 0; i < cnt; i++) {
				f->nrg = i + 1;
				if (parse_row_group(&ps, &f->rgs[i]) != 0)
					break;
				if (f->rgs[i].nrows > INT64_MAX -
				    (int64_t)f->nrows) {
					ps.r.why = "row counts overflow";
					break;
				}
				f->nrows += (uint64_t)f->rgs[i].nrows;
			}
			if (i < cnt) {
				rc = CORE_ECORRUPT;
				break;
			}
			have_rgs = true;
		} else if (id == 5 && t == CORE_THRIFT_LIST) {
			/* key_value_metadata: not kept, but its count is
			 * held to its bytes like the others. */
			if (core_thrift_read_list(&ps.r, &et, &cnt) != 0 ||
			    want(&ps, et == CORE_THRIFT_STRUCT) != 0) {
				rc = CORE_ECORRUPT;
				break;
			}
			rc = list_fits(&ps, cnt, PQ_MIN_KV,
			    "key/value pairs", err);
			if (rc != 0)
				goto out;
			for (i = 0; i < cnt; i++)
				if (core_thrift_skip(&ps.r,
				    CORE_THRIFT_STRUCT) != 0)
					break;
			if (i < cnt) {
				rc = CORE_ECORRUPT;
				break;
			}
		} else if (id == 6 && t == CORE_THRIFT_BINARY) {
			if (core_thrift_read_binary(&ps.r, &s, &len) != 0) {
				rc = CORE_ECORRUPT;
				break;
			}
			free(f->created_by);
			f->created_by = core_xstrndup((const char *)s, len);
		} else if (core_thrift_skip(&ps.r, t) != 0) {
			rc = CORE_ECORRUPT;
			break;
		}
	}
	if (rc < 0) {
		rc = core_err_set(err, CORE_ECORRUPT,
		    "%s: corrupt footer (%s)", f->name,
		    ps.r.why != NULL ? ps.r.why : "bad structure");
		goto out;
	}
	if (!have_schema || !have_rgs) {
		rc = core_err_set(err, CORE_ECORRUPT,
		    "%s: corrupt footer: no %s", f->name,
		    have_schema ? "row groups" : "schema");
		goto out;
	}
	rc = 0;
out:
	for (i = 0; i < ps.nelems; i++)
		free(ps.elems[i].name);
	free(ps.elems);
	return rc;
}

/* Checks every chunk of the supported columns against the file and the
 * schema, so scans can trust them. */
static int
check_chunks(struct core_parquet_file *f, struct core_err *err)
{
	uint32_t g, i;

	for (g = 0; g < f->nrg; g++) {
		for (i = 0; i < f->ncols; i++) {
			const struct pq_leaf *l = &f->leaves[i];
			const struct chunk *c;

			if (!f->cols[i].supported)
				continue;
			c = &f->rgs[g].chunks[l->chunk];
			if (c->external || c->type < 0)
				continue;	/* an error if selected */
			if (c->type != l->phys)
				return core_err_set(err, CORE_ECORRUPT,
				    "%s: row group %u, column %s: chunk of "
				    "another physical type than the schema's",
				    f->name, g, f->cols[i].name);
		}
	}
	return 0;
}

static int
pread_all(int fd, void *buf, size_t n, uint64_t off, const char *name,
    struct core_err *err)
{
	uint8_t *p = buf;
	ssize_t r;

	while (n > 0) {
		r = pread(fd, p, n, (off_t)off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return core_err_errno(err, CORE_EIO, errno,
			    "%s: read", name);
		}
		if (r == 0)
			return core_err_set(err, CORE_ECORRUPT,
			    "%s: file ends early (truncated)", name);
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

int
core_parquet_file_open_fd(int fd, const char *name,
    struct core_parquet_file **out, struct core_err *err)
{
	struct core_parquet_file *f;
	struct stat st;
	uint8_t tail[8], head[4], *footer = NULL;
	uint32_t flen;
	int rc;

	*out = NULL;
	f = core_xcalloc(1, sizeof(*f));
	f->fd = fd;
	f->name = core_xstrdup(name);
	if (fstat(fd, &st) != 0) {
		rc = core_err_errno(err, CORE_EIO, errno, "%s", name);
		goto fail;
	}
	f->size = (uint64_t)st.st_size;
	if (f->size < 12) {
		rc = core_err_set(err, CORE_ECORRUPT,
		    "%s: not a Parquet file (%llu bytes)", name,
		    (unsigned long long)f->size);
		goto fail;
	}
	rc = pread_all(fd, head, 4, 0, name, err);
	if (rc == 0)
		rc = pread_all(fd, tail, 8, f->size - 8, name, err);
	if (rc != 0)
		goto fail;
	if (memcmp(tail + 4, "PARE", 4) == 0) {
		rc = core_err_set(err, CORE_EDATA,
		    "%s: encrypted Parquet files are not supported", name);
		goto fail;
	}
	if (memcmp(head, "PAR1", 4) != 0 || memcmp(tail + 4, "PAR1", 4)) {
		rc = core_err_set(err, CORE_ECORRUPT,
		    "%s: not a Parquet file (no PAR1 at both ends)", name);
		goto fail;
	}
	flen = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 |
	    (uint32_t)tail[2] << 16 | (uint32_t)tail[3] << 24;
	if (flen > f->size - 12) {
		rc = core_err_set(err, CORE_ECORRUPT,
		    "%s: footer length %u past the file's %llu bytes", name,
		    flen, (unsigned long long)f->size);
		goto fail;
	}
	footer = core_xmalloc(flen ? flen : 1);
	rc = pread_all(fd, footer, flen, f->size - 8 - flen, name, err);
	if (rc == 0)
		rc = parse_footer(f, footer, flen, err);
	free(footer);
	if (rc == 0)
		rc = check_chunks(f, err);
	if (rc != 0)
		goto fail;
	/* Column chunks must lie between the magic and the footer. */
	f->size -= 8 + (uint64_t)flen;
	*out = f;
	return 0;
fail:
	core_parquet_file_free(f);
	return rc;
}

int
core_parquet_file_open(const char *path, struct core_parquet_file **out,
    struct core_err *err)
{
	int fd, rc;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return core_err_errno(err, CORE_EIO, errno, "%s", path);
	rc = core_parquet_file_open_fd(fd, path, out, err);
	if (rc != 0) {
		close(fd);
		return rc;
	}
	(*out)->own_fd = true;
	return 0;
}

void
core_parquet_file_free(struct core_parquet_file *f)
{
	uint32_t i;

	if (f == NULL)
		return;
	if (f->own_fd)
		close(f->fd);
	for (i = 0; i < f->ncols; i++)
		free((char *)f->cols[i].name);
	for (i = 0; i < f->nrg; i++) {
		uint32_t j;

		for (j = 0; f->rgs[i].chunks != NULL && j < f->nleaves; j++) {
			free(f->rgs[i].chunks[j].st.min);
			free(f->rgs[i].chunks[j].st.max);
		}
		free(f->rgs[i].chunks);
	}
	free(f->rgs);
	free(f->cols);
	free(f->leaves);
	free(f->created_by);
	free(f->name);
	free(f);
}

uint32_t
core_parquet_file_ncols(const struct core_parquet_file *f)
{
	return f->ncols;
}

const struct core_parquet_column *
core_parquet_file_column(const struct core_parquet_file *f, uint32_t i)
{
	return &f->cols[i];
}

int
core_parquet_file_find(const struct core_parquet_file *f, const char *name)
{
	uint32_t i;

	for (i = 0; i < f->ncols; i++)
		if (strcmp(f->cols[i].name, name) == 0)
			return (int)i;
	return -1;
}

uint32_t
core_parquet_file_nrow_groups(const struct core_parquet_file *f)
{
	return f->nrg;
}

uint64_t
core_parquet_file_row_group_rows(const struct core_parquet_file *f,
    uint32_t rg)
{
	return (uint64_t)f->rgs[rg].nrows;
}

uint64_t
core_parquet_file_nrows(const struct core_parquet_file *f)
{
	return f->nrows;
}

const char *
core_parquet_file_created_by(const struct core_parquet_file *f)
{
	return f->created_by != NULL ? f->created_by : "";
}

/* ---- scans ---- */

int
core_parquet_scan_new(struct core_parquet_file *f, const uint32_t *cols,
    uint32_t ncols, struct core_parquet_scan **out, struct core_err *err)
{
	struct core_parquet_scan *s;
	uint32_t i;

	*out = NULL;
	for (i = 0; i < ncols; i++) {
		if (cols[i] >= f->ncols)
			return core_err_set(err, CORE_EUSAGE,
			    "%s: no column %u (the file has %u)", f->name,
			    cols[i], f->ncols);
		if (!f->cols[cols[i]].supported)
			return core_err_set(err, CORE_EDATA,
			    "%s: column %s: %s", f->name,
			    f->cols[cols[i]].name, f->cols[cols[i]].why);
	}
	s = core_xcalloc(1, sizeof(*s));
	s->f = f;
	s->ncols = ncols;
	s->cols = core_xmalloc(core_mul_size(ncols ? ncols : 1,
	    sizeof(*s->cols)));
	s->cur = core_xcalloc(ncols ? ncols : 1, sizeof(*s->cur));
	s->buf = core_xcalloc(ncols ? ncols : 1, sizeof(*s->buf));
	s->buf_cap = core_xcalloc(ncols ? ncols : 1, sizeof(*s->buf_cap));
	s->cp = core_xcalloc(ncols ? ncols : 1, sizeof(*s->cp));
	s->schema = core_schema_new(ncols);
	s->cx = core_codec_ctx_new();
	pq_scratch_init(&s->sc[0]);
	pq_scratch_init(&s->sc[1]);
	for (i = 0; i < ncols; i++) {
		s->cols[i] = cols[i];
		core_schema_set(s->schema, i, f->cols[cols[i]].name,
		    f->cols[cols[i]].type);
		pq_cursor_init(&s->cur[i], &f->leaves[cols[i]]);
		s->cur[i].cx = s->cx;
	}
	s->batch_rows = core_batch_rows_for(s->schema, NULL, 0,
	    CORE_PARQUET_READ_BATCH_ROWS);
	/* Strings first: on two threads the costliest columns start
	 * early, and the cheap ones fill in behind them. */
	s->order = core_xmalloc(core_mul_size(ncols ? ncols : 1,
	    sizeof(*s->order)));
	{
		uint32_t k = 0;

		for (i = 0; i < ncols; i++)
			if (s->schema->fields[i].type.id == CORE_TYPE_STRING)
				s->order[k++] = i;
		for (i = 0; i < ncols; i++)
			if (s->schema->fields[i].type.id != CORE_TYPE_STRING)
				s->order[k++] = i;
	}
	*out = s;
	return 0;
}

void
core_parquet_scan_pool(struct core_parquet_scan *s, struct core_pool *pool)
{
	s->pool = core_pool_threads(pool) > 1 && s->ncols > 1 ? pool : NULL;
	if (s->pool != NULL && s->cx2 == NULL)
		s->cx2 = core_codec_ctx_new();
}

void
core_parquet_scan_free(struct core_parquet_scan *s)
{
	uint32_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->ncols; i++) {
		pq_cursor_release(&s->cur[i]);
		free(s->buf[i]);
		free(s->cp[i].r);
	}
	free(s->cp);
	free(s->pst);
	free(s->keep);
	free(s->ex);
	free(s->pl);
	free(s->ci.null_page);
	free(s->ci.min);
	free(s->ci.max);
	free(s->ci.nulls);
	free(s->ix);
	pq_cursor_release(&s->dcur);
	pq_scratch_release(&s->sc[0]);
	pq_scratch_release(&s->sc[1]);
	free(s->dbuf);
	free(s->cur);
	free(s->buf);
	free(s->buf_cap);
	free(s->skip);
	free(s->cols);
	core_schema_free(s->schema);
	core_codec_ctx_free(s->cx);
	core_codec_ctx_free(s->cx2);
	free(s->order);
	free(s);
}

const struct core_schema *
core_parquet_scan_schema(const struct core_parquet_scan *s)
{
	return s->schema;
}

void
core_parquet_scan_stats(const struct core_parquet_scan *s,
    struct core_parquet_scan_stats *st)
{
	uint32_t i;

	*st = s->stats;
	if (s->started && !s->done)
		for (i = 0; i < s->ncols; i++)
			st->pages += s->cur[i].pages;
}

static int
codec_of(int codec, enum core_codec *out)
{
	static const int map[] = {
		CORE_CODEC_NONE, CORE_CODEC_SNAPPY, CORE_CODEC_GZIP, -1,
		CORE_CODEC_BROTLI, CORE_CODEC_LZ4_HADOOP, CORE_CODEC_ZSTD,
		CORE_CODEC_LZ4_RAW,
	};

	if (codec < 0 || codec > 7 || map[codec] < 0)
		return -1;
	*out = (enum core_codec)map[codec];
	return 0;
}

/* Where chunk c of row group rg lies: *start, and c->csize bytes. */
static int
chunk_span(const struct core_parquet_file *f, uint32_t rg,
    const struct chunk *c, const char *cname, int64_t *startp,
    struct core_err *err)
{
	int64_t start;

	/* The chunk starts at its first page: the dictionary's when there
	 * is one.  Writers record 0 for an offset they do not have, the
	 * dictionary's or even the data's. */
	start = c->data_off;
	if (c->dict_off >= 4 && (c->dict_off < start || start < 4))
		start = c->dict_off;
	if (start < 4 || (uint64_t)start > f->size ||
	    (uint64_t)c->csize > f->size - (uint64_t)start)
		return core_err_set(err, CORE_ECORRUPT,
		    "%s: row group %u, column %s: column chunk at "
		    "%lld (%lld bytes) outside the file's data",
		    f->name, rg, cname, (long long)start,
		    (long long)c->csize);
	*startp = start;
	return 0;
}

/* Reads len bytes of page index at off into s->ix; what names it. */
static int
read_index(struct core_parquet_scan *s, int64_t off, int32_t len,
    const char *what, const char *cname, struct core_err *err)
{
	struct core_parquet_file *f = s->f;

	/* Its size is justified only by lying within the file's data. */
	if (off < 4 || len <= 0 || (uint64_t)off > f->size ||
	    (uint64_t)len > f->size - (uint64_t)off)
		return core_err_set(err, CORE_ECORRUPT,
		    "%s: row group %u, column %s: %s at %lld (%d bytes) "
		    "outside the file's data", f->name, s->rg, cname, what,
		    (long long)off, (int)len);
	if (s->ix_cap < (size_t)len) {
		free(s->ix);
		s->ix_cap = (size_t)len;
		s->ix = core_xmalloc(s->ix_cap);
	}
	s->stats.bytes += (uint64_t)len;
	return pread_all(f->fd, s->ix, (size_t)len, (uint64_t)off, f->name,
	    err);
}

static int
index_corrupt(struct core_parquet_scan *s, const char *cname,
    const char *what, const char *why, struct core_err *err)
{
	return core_err_set(err, CORE_ECORRUPT, "%s: row group %u, column "
	    "%s: corrupt %s (%s)", s->f->name, s->rg, cname, what, why);
}

/* Reads and checks chunk c's OffsetIndex into s->pl: pages in order,
 * inside the chunk (start, csize), the first at row 0, rows rising and
 * below nrows. */
static int
load_offset_index(struct core_parquet_scan *s, const struct chunk *c,
    int64_t start, uint64_t nrows, const char *cname, struct core_err *err)
{
	static const char what[] = "offset index";
	struct core_thrift_reader r;
	int16_t id, id2;
	uint8_t t, et;
	uint32_t n, k;
	int rc;
	int64_t v;
	bool have = false;

	if ((rc = read_index(s, c->oi_off, c->oi_len, what, cname, err)))
		return rc;
	s->npl = 0;
	core_thrift_reader_init(&r, s->ix, (size_t)c->oi_len);
	while ((rc = core_thrift_read_field(&r, &id, &t)) > 0) {
		if (id != 1 || t != CORE_THRIFT_LIST || have) {
			if (core_thrift_skip(&r, t) != 0)
				goto bad;
			continue;
		}
		if (core_thrift_read_list(&r, &et, &n) != 0 ||
		    et != CORE_THRIFT_STRUCT)
			goto bad;
		/* n is bounded by the index's bytes (core_thrift). */
		s->pl = core_grow(s->pl, &s->pl_cap, n ? n : 1,
		    sizeof(*s->pl), 16);
		for (k = 0; k < n; k++) {
			struct pageloc *p = &s->pl[k];

			p->off = p->first = -1;
			p->size = -1;
			if (core_thrift_read_struct(&r) != 0)
				goto bad;
			while ((rc = core_thrift_read_field(&r, &id2, &t)) >
			    0) {
				if (id2 >= 1 && id2 <= 3 && t != CORE_THRIFT_I32 &&
				    t != CORE_THRIFT_I64)
					goto bad;
				if (id2 >= 1 && id2 <= 3) {
					if (core_thrift_read_int(&r, t, &v))
						goto bad;
					if (id2 == 1)
						p->off = v;
					else if (id2 == 2)
						p->size = v < 0 || v >
						    INT32_MAX ? -1 :
						    (int32_t)v;
					else
						p->first = v;
				} else if (core_thrift_skip(&r, t) != 0) {
					goto bad;
				}
			}
			if (rc < 0)
				goto bad;
		}
		s->npl = n;
		have = true;
	}
	if (rc < 0)
		goto bad;
	if (s->npl == 0)
		return index_corrupt(s, cname, what, "no pages", err);
	for (k = 0; k < s->npl; k++) {
		const struct pageloc *p = &s->pl[k];

		if (p->first < 0 || p->size <= 0 || p->off < start ||
		    p->off > start + c->csize ||
		    p->size > start + c->csize - p->off)
			return index_corrupt(s, cname, what, "a page outside "
			    "its column chunk", err);
		if ((k == 0 && p->first != 0) || (uint64_t)p->first >= nrows ||
		    (k > 0 && (p->first <= p[-1].first ||
		    p->off < p[-1].off + p[-1].size)))
			return index_corrupt(s, cname, what, "pages or rows "
			    "out of order", err);
	}
	return 0;
bad:
	return index_corrupt(s, cname, what, r.why != NULL ? r.why :
	    "bad structure", err);
}

/* Reads chunk c's ColumnIndex into s->ci, for the s->npl pages of its
 * OffsetIndex. */
static int
load_column_index(struct core_parquet_scan *s, const struct chunk *c,
    const char *cname, struct core_err *err)
{
	static const char what[] = "column index";
	struct colidx *ci = &s->ci;
	struct core_thrift_reader r;
	const uint8_t *b;
	size_t blen;
	int16_t id;
	uint8_t t, et;
	uint32_t n, k;
	int rc;
	int64_t v;
	unsigned seen = 0;

	if ((rc = read_index(s, c->ci_off, c->ci_len, what, cname, err)))
		return rc;
	if (ci->cap < s->npl) {
		free(ci->null_page);
		free(ci->min);
		free(ci->max);
		free(ci->nulls);
		ci->cap = s->npl;
		ci->null_page = core_xmalloc(ci->cap);
		ci->min = core_xmalloc(core_mul_size(ci->cap,
		    sizeof(*ci->min)));
		ci->max = core_xmalloc(core_mul_size(ci->cap,
		    sizeof(*ci->max)));
		ci->nulls = core_xmalloc(core_mul_size(ci->cap,
		    sizeof(*ci->nulls)));
	}
	for (k = 0; k < s->npl; k++)
		ci->nulls[k] = -1;
	core_thrift_reader_init(&r, s->ix, (size_t)c->ci_len);
	while ((rc = core_thrift_read_field(&r, &id, &t)) > 0) {
		if (id < 1 || id > 5 || id == 4 || t != CORE_THRIFT_LIST ||
		    (seen & 1u << id)) {
			if (core_thrift_skip(&r, t) != 0)
				goto bad;
			continue;
		}
		seen |= 1u << id;
		if (core_thrift_read_list(&r, &et, &n) != 0)
			goto bad;
		if (n != s->npl)
			return index_corrupt(s, cname, what, "not one entry "
			    "a page", err);
		for (k = 0; k < n; k++) {
			if (id == 1) {
				if ((et != CORE_THRIFT_TRUE &&
				    et != CORE_THRIFT_FALSE) ||
				    core_thrift_read_int(&r, CORE_THRIFT_BYTE,
				    &v) != 0)
					goto bad;
				ci->null_page[k] = v == 1;
			} else if (id == 5) {
				if (core_thrift_read_int(&r, et, &v) != 0)
					goto bad;
				ci->nulls[k] = v;
			} else {
				if (et != CORE_THRIFT_BINARY ||
				    core_thrift_read_binary(&r, &b, &blen) !=
				    0 || blen > UINT32_MAX)
					goto bad;
				(id == 2 ? ci->min : ci->max)[k] =
				    (struct pq_sv){ b, (uint32_t)blen };
			}
		}
	}
	if (rc < 0)
		goto bad;
	if ((seen & 0xe) != 0xe)
		return index_corrupt(s, cname, what, "without null pages, "
		    "minimums or maximums", err);
	return 0;
bad:
	return index_corrupt(s, cname, what, r.why != NULL ? r.why :
	    "bad structure", err);
}

static bool minmax_of(const struct pq_leaf *l, bool legacy,
    const uint8_t *min, uint32_t minlen, const uint8_t *max,
    uint32_t maxlen, struct core_colstats *out);

static void
add_range(struct rrange **a, size_t *n, size_t *cap, uint64_t lo,
    uint64_t hi)
{
	if (*n > 0 && (*a)[*n - 1].hi == lo) {
		(*a)[*n - 1].hi = hi;
		return;
	}
	*a = core_grow(*a, cap, *n + 1, sizeof(**a), 16);
	(*a)[(*n)++] = (struct rrange){ lo, hi };
}

static int
cmp_range(const void *a, const void *b)
{
	const struct rrange *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Rows of a page k of s->pl in a row group of nrows. */
static uint64_t
page_rows(const struct core_parquet_scan *s, size_t k, uint64_t nrows)
{
	return (k + 1 < s->npl ? (uint64_t)s->pl[k + 1].first : nrows) -
	    (uint64_t)s->pl[k].first;
}

/*
 * s->keep: the rows of row group s->rg that the pages' statistics of
 * the pruned columns leave in.  A row is out when a page holding it
 * in one column is ruled out: the conjuncts must all hold, and each
 * page's verdict is taken with only its own column known.
 */
static int
plan_rows(struct core_parquet_scan *s, struct core_err *err)
{
	struct core_parquet_file *f = s->f;
	const struct row_group *g = &f->rgs[s->rg];
	uint64_t nrows = (uint64_t)g->nrows, at = 0;
	const bool *pcols;
	uint32_t j;
	size_t k;
	int rc;

	s->nkeep = s->nex = 0;
	s->ki = 0;
	s->pos = 0;
	if (s->prune == NULL) {
		add_range(&s->keep, &s->nkeep, &s->keep_cap, 0, nrows);
		return 0;
	}
	pcols = core_prune_columns(s->prune);
	for (j = 0; j < s->prune_n; j++) {
		uint32_t fc = s->prune_map[j];
		const struct chunk *c = &g->chunks[f->leaves[fc].chunk];
		const char *cname = f->cols[fc].name;
		struct core_colstats *st = &s->pst[j];
		int64_t start;

		if (!pcols[j] || !f->cols[fc].supported || c->external ||
		    c->type < 0 || c->oi_len <= 0 || c->ci_len <= 0)
			continue;
		if ((rc = chunk_span(f, s->rg, c, cname, &start, err)) != 0 ||
		    (rc = load_offset_index(s, c, start, nrows, cname,
		    err)) != 0 ||
		    (rc = load_column_index(s, c, cname, err)) != 0)
			return rc;
		for (k = 0; k < s->npl; k++) {
			memset(st, 0, sizeof(*st));
			st->rows = page_rows(s, k, nrows);
			if (s->ci.nulls[k] >= 0) {
				st->has_null_count = true;
				st->null_count = (uint64_t)s->ci.nulls[k];
			}
			if (s->ci.null_page[k]) {
				st->has_null_count = true;
				st->null_count = st->rows;
			} else {
				(void)minmax_of(&f->leaves[fc], false,
				    s->ci.min[k].p, s->ci.min[k].len,
				    s->ci.max[k].p, s->ci.max[k].len, st);
			}
			if (!core_prune_may_match(s->prune, s->pst))
				add_range(&s->ex, &s->nex, &s->ex_cap,
				    (uint64_t)s->pl[k].first,
				    (uint64_t)s->pl[k].first + st->rows);
		}
		memset(st, 0, sizeof(*st));
	}
	if (s->nex > 1)
		qsort(s->ex, s->nex, sizeof(*s->ex), cmp_range);
	for (k = 0; k < s->nex; k++) {
		if (s->ex[k].lo > at)
			add_range(&s->keep, &s->nkeep, &s->keep_cap, at,
			    s->ex[k].lo);
		if (s->ex[k].hi > at)
			at = s->ex[k].hi;
	}
	if (at < nrows)
		add_range(&s->keep, &s->nkeep, &s->keep_cap, at, nrows);
	return 0;
}

/* Reads the pages of column i's chunk c that hold rows of s->keep (its
 * dictionary page too), into s->buf[i] one after the other; their row
 * ranges go to s->cp[i], *len and *rows get their bytes and rows. */
static int
read_pages(struct core_parquet_scan *s, uint32_t i, const struct chunk *c,
    int64_t start, const char *cname, size_t *len, uint64_t *rows,
    struct core_err *err)
{
	struct core_parquet_file *f = s->f;
	struct colpages *cp = &s->cp[i];
	uint64_t nrows = (uint64_t)f->rgs[s->rg].nrows;
	size_t k, r = 0, used;
	int64_t seg_off, seg_end;
	int rc;

	if ((rc = load_offset_index(s, c, start, nrows, cname, err)) != 0)
		return rc;
	/* The bytes before the first data page: a dictionary page. */
	seg_off = start;
	seg_end = s->pl[0].off;
	used = 0;
	*rows = 0;
	for (k = 0; k <= s->npl; k++) {
		uint64_t lo = 0, hi = 0;
		bool need = false;

		if (k < s->npl) {
			lo = (uint64_t)s->pl[k].first;
			hi = lo + page_rows(s, k, nrows);
			while (r < s->nkeep && s->keep[r].hi <= lo)
				r++;
			need = r < s->nkeep && s->keep[r].lo < hi;
		}
		if (need && s->pl[k].off == seg_end) {
			seg_end += s->pl[k].size;
		} else if (k == s->npl || need) {
			/* The segment ends: read it. */
			if (seg_end > seg_off) {
				rc = pread_all(f->fd, s->buf[i] + used,
				    (size_t)(seg_end - seg_off),
				    (uint64_t)seg_off, f->name, err);
				if (rc != 0)
					return rc;
				used += (size_t)(seg_end - seg_off);
				s->stats.bytes += (uint64_t)(seg_end -
				    seg_off);
			}
			if (k < s->npl) {
				seg_off = s->pl[k].off;
				seg_end = seg_off + s->pl[k].size;
			}
		}
		if (need) {
			add_range(&cp->r, &cp->n, &cp->cap, lo, hi);
			*rows += hi - lo;
		} else if (k < s->npl) {
			s->stats.pages_skipped++;
		}
	}
	*len = used;
	return 0;
}

/* Reads the chunks of row group s->rg (their pages that hold rows of
 * s->keep) and starts the cursors. */
/*
 * Dictionary pruning: 1 when the pruner has an = or IN term on a column
 * whose chunk in this row group is all dictionary-encoded and whose
 * dictionary holds no value that may pass (every row then holds one of
 * them or NULL, which neither term passes), else 0 or an error.  Only
 * the bytes before the chunk's first data page are read; a chunk
 * without such a gap, or a dictionary of values stat_value cannot give
 * in colpipe's domain, rules nothing out.
 */
static int
dict_rules_out(struct core_parquet_scan *s, struct core_err *err)
{
	struct core_parquet_file *f = s->f;
	const struct row_group *g = &f->rgs[s->rg];
	uint32_t j, k, i, vlen;
	int rc;

	for (j = 0; j < s->prune_n; j++) {
		uint32_t fc = s->prune_map[j];
		const struct pq_leaf *l = &f->leaves[fc];
		const struct chunk *c = &g->chunks[l->chunk];
		const char *cname = f->cols[fc].name;
		enum core_codec codec;
		int64_t start;
		size_t len;
		bool any = false;

		if (!f->cols[fc].supported || c->external || c->type < 0 ||
		    !c->all_dict || !core_prune_has_eq(s->prune, j) ||
		    codec_of(c->codec, &codec) != 0)
			continue;
		if ((rc = chunk_span(f, s->rg, c, cname, &start, err)) != 0)
			return rc;
		if (c->data_off <= start || c->data_off - start > c->csize)
			continue;
		len = (size_t)(c->data_off - start);
		if (s->dbuf_cap < len) {
			free(s->dbuf);
			s->dbuf_cap = len;
			s->dbuf = core_xmalloc(len);
		}
		if ((rc = pread_all(f->fd, s->dbuf, len, (uint64_t)start,
		    f->name, err)) != 0)
			return rc;
		s->stats.bytes += (uint64_t)len;
		s->dcur.leaf = l;
		s->dcur.codec = codec;
		s->dcur.cx = s->cx;
		rc = pq_dict_load(&s->dcur, s->dbuf, len, err);
		if (rc < 0) {
			char where[512];

			snprintf(where, sizeof(where),
			    "%s: row group %u, column %s", f->name, s->rg,
			    cname);
			core_err_prefix(err, where);
			return rc;
		}
		if (rc > 0)
			continue;
		s->stats.pages++;
		for (k = 0; k < s->prune_n; k++) {
			memset(&s->pst[k], 0, sizeof(s->pst[k]));
			s->pst[k].rows = (uint64_t)g->nrows;
		}
		for (i = 0; i < s->dcur.dict_n && !any; i++) {
			struct core_colstats *st = &s->pst[j];
			const uint8_t *v = pq_dict_value(&s->dcur, i, &vlen);

			st->rows = 1;
			st->has_null_count = true;
			st->null_count = 0;
			/* Without a value in colpipe's domain nothing is
			 * known of the row: it may pass. */
			any = !minmax_of(l, false, v, vlen, v, vlen, st) ||
			    core_prune_may_match(s->prune, s->pst);
		}
		/* plan_rows reads the entries of the columns without a
		 * page index as unknown: all zero. */
		memset(s->pst, 0, s->prune_n * sizeof(*s->pst));
		if (!any)
			return 1;
	}
	return 0;
}

static int
start_row_group(struct core_parquet_scan *s, struct core_err *err)
{
	struct core_parquet_file *f = s->f;
	const struct row_group *g = &f->rgs[s->rg];
	uint64_t nrows = (uint64_t)g->nrows, left = 0;
	bool all;
	uint32_t i;
	size_t k;
	int rc;

	if ((rc = plan_rows(s, err)) != 0)
		return rc;
	for (k = 0; k < s->nkeep; k++)
		left += s->keep[k].hi - s->keep[k].lo;
	if (left == 0)
		return 1;		/* every row ruled out */
	if (s->prune != NULL && (rc = dict_rules_out(s, err)) != 0)
		return rc;
	all = left == nrows;
	for (i = 0; i < s->ncols; i++) {
		const struct pq_leaf *l = &f->leaves[s->cols[i]];
		const struct chunk *c = &g->chunks[l->chunk];
		const char *cname = f->cols[s->cols[i]].name;
		enum core_codec codec;
		int64_t start;
		size_t len = (size_t)c->csize;
		uint64_t rows = nrows;

		if (c->external || c->type < 0)
			return core_err_set(err, CORE_EDATA,
			    "%s: row group %u, column %s: column chunk %s",
			    f->name, s->rg, cname, c->external ?
			    "in another file" : "without metadata "
			    "(encrypted?)");
		if (codec_of(c->codec, &codec) != 0)
			return core_err_set(err, CORE_EDATA,
			    "%s: row group %u, column %s: unsupported codec "
			    "%d", f->name, s->rg, cname, c->codec);
		if ((rc = chunk_span(f, s->rg, c, cname, &start, err)) != 0)
			return rc;
		if (s->buf_cap[i] < (size_t)c->csize) {
			free(s->buf[i]);
			s->buf_cap[i] = (size_t)c->csize;
			s->buf[i] = core_xmalloc(s->buf_cap[i]);
		}
		s->cp[i].n = s->cp[i].at = 0;
		s->cp[i].cpos = 0;
		if (!all && c->oi_len > 0) {
			rc = read_pages(s, i, c, start, cname, &len, &rows,
			    err);
		} else {
			add_range(&s->cp[i].r, &s->cp[i].n, &s->cp[i].cap, 0,
			    nrows);
			rc = pread_all(f->fd, s->buf[i], len, (uint64_t)start,
			    f->name, err);
			s->stats.bytes += (uint64_t)len;
		}
		if (rc != 0)
			return rc;
		pq_cursor_start(&s->cur[i], s->buf[i], len, codec, rows);
	}
	s->rg_left = left;
	s->stats.row_groups++;
	return 0;
}

/* Rows of column i's pages from its cursor's row to row to, which it
 * must decode and drop to get there; the cursor is then at to. */
static uint64_t
rows_to(struct colpages *cp, uint64_t to)
{
	uint64_t n = 0;

	while (cp->at < cp->n && cp->r[cp->at].hi <= cp->cpos)
		cp->at++;
	for (size_t k = cp->at; k < cp->n && cp->r[k].lo < to; k++) {
		uint64_t lo = cp->r[k].lo > cp->cpos ? cp->r[k].lo : cp->cpos;
		uint64_t hi = cp->r[k].hi < to ? cp->r[k].hi : to;

		if (hi > lo)
			n += hi - lo;
	}
	cp->cpos = to;
	return n;
}

static void
end_row_group(struct core_parquet_scan *s)
{
	uint32_t i;

	for (i = 0; i < s->ncols; i++) {
		s->stats.pages += s->cur[i].pages;
		s->cur[i].pages = 0;
	}
}

/* A bitmap of n valid rows in c's own validity_buf. */
static void
validity_ready(struct core_column *c, uint32_t n)
{
	size_t need = core_bitmap_bytes(n ? n : 1);

	if (c->validity_cap < need) {
		if (c->validity_cap)
			core_free_aligned(c->validity_buf);
		c->validity_buf = core_xmalloc_aligned(need);
		c->validity_cap = (need + 63) & ~(size_t)63;
	}
	memset(c->validity_buf, 0xff, need);
	c->validity = NULL;
}

/* One batch's columns, decoded by one or two threads, each claiming
 * the next column of s->order until none is left. */
struct decode_job {
	struct core_parquet_scan *s;
	struct core_batch *b;
	uint32_t n;
	const bool *pick;		/* NULL, or decode where pick == val */
	bool val;
	uint32_t next;			/* atomic: next index into order */
	struct core_err *errs;		/* one per column */
};

static void
decode_job(void *arg, unsigned who)
{
	struct decode_job *job = arg;
	struct core_parquet_scan *s = job->s;
	struct core_parquet_file *f = s->f;
	uint32_t k, i;

	while ((k = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED)) <
	    s->ncols) {
		struct core_column *c;
		struct core_err *e;
		size_t used = 0;
		bool nulls = false;

		i = s->order[k];
		if (job->pick != NULL && job->pick[i] != job->val)
			continue;
		c = &job->b->cols[i];
		e = &job->errs[i];
		s->cur[i].cx = who == 0 ? s->cx : s->cx2;
		s->cur[i].sc = &s->sc[who];
		validity_ready(c, job->n);
		if (pq_cursor_read(&s->cur[i], c, 0, job->n, &used, &nulls,
		    e) != 0) {
			char where[512];

			snprintf(where, sizeof(where),
			    "%s: row group %u, column %s", f->name, s->rg,
			    f->cols[s->cols[i]].name);
			core_err_prefix(e, where);
			continue;
		}
		if (nulls)
			c->validity = c->validity_buf;
	}
}

/* Decodes the columns i of the batch of n rows with pick == NULL or
 * pick[i] == val, on the pool's threads; 0 or the first failing
 * column's error in the file's order, whatever the timing. */
static int
decode_cols(struct core_parquet_scan *s, struct core_batch *b, uint32_t n,
    const bool *pick, bool val, struct core_err *err)
{
	struct decode_job job;
	uint32_t i;
	int rc = 0;

	memset(&job, 0, sizeof(job));
	job.s = s;
	job.b = b;
	job.n = n;
	job.pick = pick;
	job.val = val;
	job.errs = core_xcalloc(s->ncols ? s->ncols : 1, sizeof(*job.errs));
	if (s->pool != NULL)
		core_pool_run(s->pool, 2, decode_job, &job);
	else
		decode_job(&job, 0);
	for (i = 0; i < s->ncols && rc == 0; i++) {
		if (job.errs[i].code == 0)
			continue;
		rc = core_err_set(err, job.errs[i].code, "%s",
		    job.errs[i].msg);
	}
	free(job.errs);
	if (rc != 0)
		s->done = true;
	return rc;
}

int
core_parquet_scan_next_cols(struct core_parquet_scan *s,
    struct core_batch *b, const bool *first, struct core_err *err)
{
	struct core_parquet_file *f = s->f;
	uint32_t n, i;
	int rc;

	if (s->done)
		return CORE_EOF;
	while (!s->started || s->rg_left == 0) {
		if (s->started) {
			end_row_group(s);
			s->rg++;
		}
		s->started = true;
		if (s->rg >= f->nrg) {
			s->done = true;
			return CORE_EOF;
		}
		/* A row group without rows has nothing worth reading (and
		 * writers leave its chunks' offsets 0). */
		if (f->rgs[s->rg].nrows == 0)
			continue;
		if (s->skip != NULL && s->skip[s->rg]) {
			s->stats.row_groups_skipped++;
			continue;
		}
		rc = start_row_group(s, err);
		if (rc < 0) {
			s->done = true;
			return rc;
		}
		if (rc > 0) {
			s->stats.row_groups_skipped++;
			s->rg_left = 0;
		}
	}
	/* The next rows of the current range, each column's cursor first
	 * made to drop the rows of its pages before them. */
	if (s->pos >= s->keep[s->ki].hi) {
		s->ki++;
		s->pos = s->keep[s->ki].lo;
	}
	if (s->pos < s->keep[s->ki].lo)
		s->pos = s->keep[s->ki].lo;
	n = s->keep[s->ki].hi - s->pos < s->batch_rows ?
	    (uint32_t)(s->keep[s->ki].hi - s->pos) : s->batch_rows;
	for (i = 0; i < s->ncols; i++) {
		s->cur[i].skip += rows_to(&s->cp[i], s->pos);
		s->cp[i].cpos = s->pos + n;
	}
	s->pos += n;
	core_batch_reserve(b, n, 0);
	if ((rc = decode_cols(s, b, n, first, true, err)) != 0)
		return rc;
	b->nrows = n;
	s->pending = first;
	if (first == NULL)
		s->rg_left -= n;
	return 0;
}

int
core_parquet_scan_next_rest(struct core_parquet_scan *s,
    struct core_batch *b, const uint8_t *mask, struct core_err *err)
{
	uint32_t i;
	int rc;

	if (s->pending == NULL)
		return 0;
	for (i = 0; i < s->ncols; i++)
		s->cur[i].mask = mask;
	rc = decode_cols(s, b, b->nrows, s->pending, false, err);
	for (i = 0; i < s->ncols; i++)
		s->cur[i].mask = NULL;
	s->pending = NULL;
	if (rc == 0)
		s->rg_left -= b->nrows;
	return rc;
}

int
core_parquet_scan_next(struct core_parquet_scan *s, struct core_batch *b,
    struct core_err *err)
{
	return core_parquet_scan_next_cols(s, b, NULL, err);
}

/* ---- statistics ---- */

/* A little-endian signed integer of n (4 or 8) bytes. */
static int64_t
le_int(const uint8_t *p, uint32_t n)
{
	uint64_t v = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	if (n == 4)
		return (int32_t)(uint32_t)v;
	return (int64_t)v;
}

/* A big-endian two's complement integer of n bytes into *v, if it fits. */
static bool
be_int(const uint8_t *p, uint32_t n, int64_t *v)
{
	uint64_t x = (n > 0 && (p[0] & 0x80)) ? UINT64_MAX : 0;
	uint32_t i;

	if (n == 0)
		return false;
	for (i = 0; i + 8 < n; i++)
		if (p[i] != (uint8_t)x)
			return false;	/* wider than 64 bits */
	for (i = n > 8 ? n - 8 : 0; i < n; i++)
		x = x << 8 | p[i];
	*v = (int64_t)x;
	/* The top bytes kept must agree with the sign dropped. */
	return n <= 8 || ((p[n - 9] & 0x80) != 0) == (*v < 0);
}

/* The same into 128 bits (sign-extension bytes in front allowed). */
static bool
be_int128(const uint8_t *p, uint32_t n, core_i128 *v)
{
	uint8_t sign = (n > 0 && (p[0] & 0x80)) ? 0xff : 0;
	unsigned __int128 x = sign ? ~(unsigned __int128)0 : 0;
	uint32_t i;

	if (n == 0)
		return false;
	for (i = 0; i + 16 < n; i++)
		if (p[i] != sign)
			return false;	/* wider than 128 bits */
	for (i = n > 16 ? n - 16 : 0; i < n; i++)
		x = x << 8 | p[i];
	*v = (core_i128)x;
	return n <= 16 || ((p[n - 17] & 0x80) != 0) == (*v < 0);
}

/* One bound of a column's statistics in colpipe's domain. */
static bool
stat_value(const struct pq_leaf *l, bool legacy, const uint8_t *p,
    uint32_t n, int64_t *v)
{
	switch (l->conv) {
	case PQ_CONV_I32:
	case PQ_CONV_I32_I64:
		if (n != 4)
			return false;
		*v = le_int(p, 4);
		return true;
	case PQ_CONV_I64:
	case PQ_CONV_TS_MS:
	case PQ_CONV_TS_NS:
		if (n != 8)
			return false;
		*v = le_int(p, 8);
		if (l->conv == PQ_CONV_TS_MS)
			return !__builtin_mul_overflow(*v, 1000, v);
		if (l->conv == PQ_CONV_TS_NS)
			*v = *v / 1000 - (*v % 1000 < 0);
		return true;
	case PQ_CONV_DEC_BE:
		return !legacy && l->type.id == CORE_TYPE_DECIMAL &&
		    be_int(p, n, v);
	default:
		return false;
	}
}

bool
core_parquet_file_colstats(const struct core_parquet_file *f, uint32_t rg,
    uint32_t col, struct core_colstats *out)
{
	const struct pq_leaf *l = &f->leaves[col];
	const struct chunk *c;
	const struct stats *st;

	memset(out, 0, sizeof(*out));
	out->rows = (uint64_t)f->rgs[rg].nrows;
	if (!f->cols[col].supported)
		return false;
	c = &f->rgs[rg].chunks[l->chunk];
	st = &c->st;
	out->has_null_count = st->has_nc;
	out->null_count = (uint64_t)st->null_count;
	if (st->min != NULL && st->max != NULL)
		(void)minmax_of(l, st->legacy, st->min, st->minlen, st->max,
		    st->maxlen, out);
	return out->has_null_count || out->has_minmax;
}

/* out's min and max from a chunk's or a page's bounds, when they order
 * as colpipe orders the column's values. */
static bool
minmax_of(const struct pq_leaf *l, bool legacy, const uint8_t *min,
    uint32_t minlen, const uint8_t *max, uint32_t maxlen,
    struct core_colstats *out)
{
	if (l->conv == PQ_CONV_STRING) {
		/* Bytes compare as the engine compares strings only in the
		 * exact fields (the deprecated ones were ordered as signed
		 * bytes by old writers). */
		out->has_minmax = !legacy;
		out->smin = (const char *)min;
		out->smax = (const char *)max;
		out->sminlen = minlen;
		out->smaxlen = maxlen;
	} else if (l->type.id == CORE_TYPE_DECIMAL128) {
		/* Decimals order as signed numbers only in the exact
		 * fields. */
		out->has_minmax = !legacy && l->conv == PQ_CONV_DEC_BE &&
		    be_int128(min, minlen, &out->wmin) &&
		    be_int128(max, maxlen, &out->wmax) &&
		    out->wmin <= out->wmax;
	} else {
		out->has_minmax = stat_value(l, legacy, min, minlen,
		    &out->imin) && stat_value(l, legacy, max, maxlen,
		    &out->imax) && out->imin <= out->imax;
	}
	return out->has_minmax;
}

void
core_parquet_scan_skip(struct core_parquet_scan *s, const bool *skip)
{
	free(s->skip);
	s->skip = NULL;
	if (skip != NULL) {
		s->skip = core_xmalloc(s->f->nrg ? s->f->nrg : 1);
		memcpy(s->skip, skip, s->f->nrg);
	}
}

void
core_parquet_scan_prune(struct core_parquet_scan *s,
    const struct core_prune *p, const uint32_t *map, uint32_t n)
{
	free(s->pst);
	s->pst = NULL;
	s->prune = p;
	s->prune_map = map;
	s->prune_n = n;
	if (p != NULL)
		s->pst = core_xcalloc(n ? n : 1, sizeof(*s->pst));
}

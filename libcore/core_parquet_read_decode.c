/*
 * core_parquet_read_decode.c - decoding the pages of one flat Parquet
 * column chunk (core_parquet_read_private.h), after parquet-format's
 * Encodings.md and parquet.thrift.
 *
 * The chunk is a sequence of pages, each a Thrift PageHeader followed by
 * compressed_page_size bytes: at most one dictionary page, first, then
 * data pages (v1: levels and values compressed together; v2: levels
 * uncompressed in front of the values).  A read of n rows walks them: a
 * slice of the current page's definition levels gives the NULLs, the
 * values of the valid rows are decoded densely into scratch in their
 * physical form, then converted to the colpipe type and spread over the
 * rows.  Every decoder is a cursor that picks up where the last read
 * stopped, so a page of any number of rows is decoded in slices of at
 * most one batch and no buffer grows with a page's row count (a run of a
 * million NULLs or of one dictionary index takes a few bytes).
 *
 * Trust: the bytes are a file's, so every read is bounded by the end of
 * the section it belongs to, every count is checked against what the
 * section can hold or the rows left, and every dictionary index against
 * the dictionary.  A page is decompressed into a buffer of its declared
 * size, which must be at most the codec's largest expansion of its
 * compressed size (max_ratio), so a header cannot ask for more memory
 * than its own bytes justify.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core_alloc.h"
#include "core_parquet_read.h"
#include "core_parquet_read_private.h"
#include "core_thrift.h"

#define NB CORE_PARQUET_READ_BATCH_ROWS

/* parquet.thrift's Encoding and PageType. */
enum {
	ENC_PLAIN = 0,
	ENC_PLAIN_DICTIONARY = 2,
	ENC_RLE = 3,
	ENC_BIT_PACKED = 4,
	ENC_DELTA_BINARY_PACKED = 5,
	ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
	ENC_DELTA_BYTE_ARRAY = 7,
	ENC_RLE_DICTIONARY = 8,
	ENC_BYTE_STREAM_SPLIT = 9,
};
enum {
	PAGE_DATA = 0,
	PAGE_INDEX = 1,
	PAGE_DICTIONARY = 2,
	PAGE_DATA_V2 = 3,
};

/* Largest page accepted, whatever its codec. */
#define PAGE_MAX ((size_t)1 << 30)

static int
corrupt(struct core_err *err, const char *what)
{
	return core_err_set(err, CORE_ECORRUPT, "%s", what);
}

static int
bad_data(struct core_err *err, const char *what)
{
	return core_err_set(err, CORE_EDATA, "%s", what);
}

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

/* Bytes of one physical value in the dense scratch (0: byte strings). */
static size_t
phys_width(int phys)
{
	switch (phys) {
	case PQ_BOOLEAN:
		return 1;
	case PQ_INT32:
	case PQ_FLOAT:
		return 4;
	case PQ_INT64:
	case PQ_DOUBLE:
		return 8;
	case PQ_INT96:
		return 12;
	default:
		return 0;
	}
}

/* Bytes of one value in a PLAIN or BYTE_STREAM_SPLIT section. */
static size_t
plain_width(const struct pq_leaf *l)
{
	return l->phys == PQ_FLBA ? (size_t)l->type_length :
	    phys_width(l->phys);
}

/* ---- bits ---- */

/* w (0..64) bits at bit offset bit of p[0..n), zeros past n. */
static uint64_t
get_bits(const uint8_t *p, size_t n, uint64_t bit, int w)
{
	size_t byte = (size_t)(bit >> 3), i;
	unsigned sh = (unsigned)(bit & 7);
	uint64_t x = 0, hi = 0;

	if (w == 0)
		return 0;
	if (byte + 9 <= n) {
		memcpy(&x, p + byte, 8);
		hi = p[byte + 8];
	} else {
		for (i = 0; i < 8 && byte + i < n; i++)
			x |= (uint64_t)p[byte + i] << (8 * i);
		if (byte + 8 < n)
			hi = p[byte + 8];
	}
	x >>= sh;
	if (sh != 0)
		x |= hi << (64 - sh);
	return w == 64 ? x : x & (((uint64_t)1 << w) - 1);
}

static int
get_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t x = 0;
	int shift;

	for (shift = 0; shift < 64; shift += 7) {
		if (p >= end)
			return -1;
		x |= (uint64_t)(*p & 0x7f) << shift;
		if ((*p++ & 0x80) == 0) {
			*pp = p;
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* ---- the RLE/bit-packing hybrid ---- */

static void
rle_init(struct pq_rle *r, const uint8_t *p, const uint8_t *end, int width)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->end = end;
	r->width = width;
	r->lit_pos = 8;
}

/* Reads the next run header; -1 when the data ends or is malformed. */
static int
rle_next_run(struct pq_rle *r)
{
	uint64_t h;
	size_t nb = ((size_t)r->width + 7) / 8, i;

	if (get_uleb(&r->p, r->end, &h) != 0)
		return -1;
	if (h & 1) {
		if ((h >> 1) == 0 || (h >> 1) > UINT32_MAX / 8)
			return -1;
		r->packed = true;
		r->run = (uint32_t)(h >> 1) * 8;
		r->lit_pos = 8;
		return 0;
	}
	if ((h >> 1) > UINT32_MAX || (size_t)(r->end - r->p) < nb)
		return -1;
	r->packed = false;
	r->run = (uint32_t)(h >> 1);
	r->value = 0;
	for (i = 0; i < nb; i++)
		r->value |= (uint32_t)r->p[i] << (8 * i);
	r->p += nb;
	if (r->width < 32 && (r->value >> r->width) != 0)
		return -1;
	return 0;
}

/* Unpacks the next group of 8 bit-packed values.  Writers may cut the
 * last group short of its padding, so missing bytes read as zeros; a
 * group with no byte at all is an error. */
static int
rle_unpack_group(struct pq_rle *r)
{
	size_t avail = (size_t)(r->end - r->p), w = (size_t)r->width;
	unsigned i;

	if (w > 0 && avail == 0)
		return -1;
	for (i = 0; i < 8; i++)
		r->lit[i] = (uint32_t)get_bits(r->p, avail < w ? avail : w,
		    (uint64_t)i * w, r->width);
	r->p += avail < w ? avail : w;
	r->lit_pos = 0;
	return 0;
}

/*
 * Whole groups of 8 bit-packed values straight into out, while at least
 * 8 are wanted, the run has them and the data has 8 bytes past each
 * group, so that every value is one unaligned 8-byte load, a shift and a
 * mask (w <= 32: a value and its bit offset in its byte fit in 64 bits).
 * Returns the values written, a multiple of 8.
 */
static uint32_t
rle_unpack_fast(struct pq_rle *r, uint32_t *out, uint32_t n)
{
	uint32_t w = (uint32_t)r->width, done = 0, i;
	uint64_t mask = w == 32 ? 0xffffffffu : ((uint64_t)1 << w) - 1;

	if (w == 0)
		return 0;
	while (n - done >= 8 && r->run >= 8 &&
	    (size_t)(r->end - r->p) >= (size_t)w + 8) {
		for (i = 0; i < 8; i++) {
			uint64_t bit = (uint64_t)i * w, x;

			memcpy(&x, r->p + (bit >> 3), 8);
			out[done + i] = (uint32_t)((x >> (bit & 7)) & mask);
		}
		r->p += w;
		r->run -= 8;
		done += 8;
	}
	return done;
}

/* n values into out; -1 when the data runs out or is malformed. */
static int
rle_get(struct pq_rle *r, uint32_t *out, uint32_t n)
{
	uint32_t k, i;

	while (n > 0) {
		if (r->run == 0 && rle_next_run(r) != 0)
			return -1;
		if (r->run == 0)
			continue;
		if (r->packed && r->lit_pos == 8 &&
		    (k = rle_unpack_fast(r, out, n)) > 0) {
			out += k;
			n -= k;
			continue;
		}
		if (!r->packed) {
			k = n < r->run ? n : r->run;
			for (i = 0; i < k; i++)
				out[i] = r->value;
		} else {
			if (r->lit_pos == 8 && rle_unpack_group(r) != 0)
				return -1;
			k = 8 - r->lit_pos;
			if (k > n)
				k = n;
			memcpy(out, r->lit + r->lit_pos, k * sizeof(*out));
			r->lit_pos += k;
		}
		r->run -= k;
		out += k;
		n -= k;
	}
	return 0;
}

/*
 * n definition levels into lev (bytes), their sum in *sum and the or of
 * them in *over: an RLE run (all rows valid, the common case) is one
 * memset and one multiplication, bit-packed values go through tmp (room
 * for n).  -1 when the data runs out or is malformed.
 */
static int
rle_get_levels(struct pq_rle *r, uint8_t *lev, uint32_t n, uint32_t *tmp,
    uint32_t *sum, uint32_t *over)
{
	uint32_t k, i, s = 0, o = 0;

	while (n > 0) {
		if (r->run == 0 && rle_next_run(r) != 0)
			return -1;
		if (r->run == 0)
			continue;
		if (!r->packed) {
			k = n < r->run ? n : r->run;
			memset(lev, (int)(r->value & 0xff), k);
			s += r->value * k;
			o |= r->value;
			r->run -= k;
		} else {
			k = r->run < n ? r->run : n;
			if (r->lit_pos != 8 && 8 - r->lit_pos < k)
				k = 8 - r->lit_pos;
			if (rle_get(r, tmp, k) != 0)
				return -1;
			for (i = 0; i < k; i++) {
				lev[i] = (uint8_t)tmp[i];
				s += tmp[i];
				o |= tmp[i];
			}
		}
		lev += k;
		n -= k;
	}
	*sum = s;
	*over = o;
	return 0;
}

/* ---- DELTA_BINARY_PACKED ---- */

/* Reads the header; at most max_values values are accepted. */
static int
dbp_init(struct pq_dbp *d, const uint8_t *p, const uint8_t *end,
    uint64_t max_values)
{
	uint64_t block, nminis, total, first;

	d->p = p;
	d->end = end;
	if (get_uleb(&d->p, end, &block) != 0 ||
	    get_uleb(&d->p, end, &nminis) != 0 ||
	    get_uleb(&d->p, end, &total) != 0 ||
	    get_uleb(&d->p, end, &first) != 0)
		return -1;
	if (block == 0 || block % 128 != 0 || nminis == 0 ||
	    block % nminis != 0 || (block / nminis) % 32 != 0 ||
	    block / nminis > PQ_DBP_MINI_MAX || total > max_values)
		return -1;
	d->nminis = (uint32_t)nminis;
	d->per_mini = (uint32_t)(block / nminis);
	d->left = total;
	d->first_pending = total > 0;
	d->last = (uint64_t)((int64_t)(first >> 1) ^ -(int64_t)(first & 1));
	d->in_block = false;
	d->mini = 0;
	d->buf_pos = d->buf_n = 0;
	return 0;
}

static int
dbp_load_mini(struct pq_dbp *d)
{
	uint64_t md, bytes_full, bytes_need, need, avail, i;
	int w;

	if (!d->in_block || d->mini == d->nminis) {
		if (get_uleb(&d->p, d->end, &md) != 0 ||
		    (uint64_t)(d->end - d->p) < d->nminis)
			return -1;
		d->min_delta = (uint64_t)((int64_t)(md >> 1) ^
		    -(int64_t)(md & 1));
		d->widths = d->p;
		d->p += d->nminis;
		d->mini = 0;
		d->in_block = true;
	}
	w = d->widths[d->mini++];
	if (w > 64)
		return -1;
	need = d->left < d->per_mini ? d->left : d->per_mini;
	bytes_full = (uint64_t)d->per_mini * (uint64_t)w / 8;
	bytes_need = (need * (uint64_t)w + 7) / 8;
	avail = (uint64_t)(d->end - d->p);
	if (avail < bytes_need)
		return -1;
	if (avail > bytes_full)
		avail = bytes_full;
	for (i = 0; i < need; i++)
		d->buf[i] = get_bits(d->p, (size_t)avail, i * (uint64_t)w, w);
	d->p += avail;
	d->buf_pos = 0;
	d->buf_n = (uint32_t)need;
	return 0;
}

/* n values into out (wrapping 64-bit arithmetic, as the format wants);
 * -1 when fewer are left or the data is malformed. */
static int
dbp_get(struct pq_dbp *d, uint64_t *out, uint32_t n)
{
	uint32_t i;

	if (d->left < n)
		return -1;
	for (i = 0; i < n; i++) {
		if (d->first_pending) {
			d->first_pending = false;
		} else {
			if (d->buf_pos == d->buf_n && dbp_load_mini(d) != 0)
				return -1;
			d->last += d->min_delta + d->buf[d->buf_pos++];
		}
		out[i] = d->last;
		d->left--;
	}
	return 0;
}

/* The cursor's two DELTA decoders, allocated by the first page that
 * has a DELTA encoding (most files have none). */
static void
cursor_dbp(struct pq_cursor *c)
{
	if (c->dbp == NULL) {
		c->dbp = core_xmalloc(sizeof(*c->dbp));
		c->dbp2 = core_xmalloc(sizeof(*c->dbp2));
	}
}

/* Runs a decoder over all its values to find where its data ends
 * (*end) and, for lengths, their sum (each must be in 0..INT32_MAX). */
static int
dbp_scan(const uint8_t *p, const uint8_t *end, uint64_t max_values,
    bool lengths, const uint8_t **after, uint64_t *count, uint64_t *sum)
{
	struct pq_dbp *d = core_xmalloc(sizeof(*d));
	uint64_t v[64], s = 0;
	uint32_t k, i;
	int rc = 0;

	if (dbp_init(d, p, end, max_values) != 0) {
		free(d);
		return -1;
	}
	*count = d->left;
	while (d->left > 0) {
		k = d->left < 64 ? (uint32_t)d->left : 64;
		if (dbp_get(d, v, k) != 0) {
			rc = -1;
			break;
		}
		for (i = 0; lengths && i < k; i++) {
			if (v[i] > INT32_MAX) {
				rc = -1;
				break;
			}
			s += v[i];
		}
		if (rc != 0)
			break;
	}
	*after = d->p;
	*sum = s;
	free(d);
	return rc;
}

/* ---- pages ---- */

struct page_header {
	int type;
	int64_t usize, csize;
	int64_t nvalues, nnulls;	/* nnulls: v2 only, else -1 */
	int encoding, def_encoding;
	int64_t def_len, rep_len;	/* v2 only */
	bool compressed;		/* v2 only */
};

static int
parse_sub(struct core_thrift_reader *r, struct page_header *h, int kind)
{
	int16_t id;
	uint8_t t;
	int64_t v;
	int rc;

	if (core_thrift_read_struct(r) != 0)
		return CORE_ECORRUPT;
	while ((rc = core_thrift_read_field(r, &id, &t)) > 0) {
		if (t == CORE_THRIFT_I32 && id >= 1 && id <= 6 &&
		    !(kind == PAGE_DICTIONARY && id > 2)) {
			if (core_thrift_read_int(r, t, &v) != 0)
				return CORE_ECORRUPT;
			if (id == 1)
				h->nvalues = v;
			else if (kind == PAGE_DATA_V2) {
				if (id == 2)
					h->nnulls = v;
				else if (id == 4)
					h->encoding = (int)v;
				else if (id == 5)
					h->def_len = v;
				else if (id == 6)
					h->rep_len = v;
			} else if (id == 2) {
				h->encoding = (int)v;
			} else if (id == 3) {
				h->def_encoding = (int)v;
			}
		} else if (kind == PAGE_DATA_V2 && id == 7 &&
		    (t == CORE_THRIFT_TRUE || t == CORE_THRIFT_FALSE)) {
			h->compressed = t == CORE_THRIFT_TRUE;
		} else if (core_thrift_skip(r, t) != 0) {
			return CORE_ECORRUPT;
		}
	}
	return rc;
}

static int
parse_page_header(const uint8_t *p, size_t n, struct page_header *h,
    size_t *hlen, struct core_err *err)
{
	struct core_thrift_reader r;
	int16_t id;
	uint8_t t;
	int64_t v;
	int rc, sub = -1;

	memset(h, 0, sizeof(*h));
	h->type = -1;
	h->usize = h->csize = h->nvalues = h->nnulls = -1;
	h->def_len = h->rep_len = -1;
	h->encoding = h->def_encoding = -1;
	h->compressed = true;
	core_thrift_reader_init(&r, p, n);
	while ((rc = core_thrift_read_field(&r, &id, &t)) > 0) {
		if (id >= 1 && id <= 3 && t == CORE_THRIFT_I32) {
			if (core_thrift_read_int(&r, t, &v) != 0)
				break;
			if (id == 1)
				h->type = (int)v;
			else if (id == 2)
				h->usize = v;
			else
				h->csize = v;
		} else if ((id == 5 || id == 7 || id == 8) &&
		    t == CORE_THRIFT_STRUCT) {
			int kind = id == 5 ? PAGE_DATA : id == 7 ?
			    PAGE_DICTIONARY : PAGE_DATA_V2;

			if (sub >= 0 || parse_sub(&r, h, kind) != 0) {
				rc = CORE_ECORRUPT;
				break;
			}
			sub = kind;
		} else if (core_thrift_skip(&r, t) != 0) {
			rc = CORE_ECORRUPT;
			break;
		}
	}
	if (rc < 0)
		return core_err_set(err, CORE_ECORRUPT,
		    "corrupt page header (%s)",
		    r.why != NULL ? r.why : "wrong field type");
	if (h->type < 0 || h->usize < 0 || h->csize < 0)
		return corrupt(err, "page header without its type or sizes");
	if (h->type != PAGE_INDEX && h->type != sub)
		return core_err_set(err, CORE_ECORRUPT,
		    "page header of type %d without its header", h->type);
	if (h->type != PAGE_INDEX && h->nvalues < 0)
		return corrupt(err, "page header without num_values");
	*hlen = core_thrift_reader_used(&r, p);
	return 0;
}

static size_t
max_ratio(enum core_codec codec)
{
	switch (codec) {
	case CORE_CODEC_NONE:
		return 1;
	case CORE_CODEC_SNAPPY:
		return 32;
	case CORE_CODEC_LZ4_RAW:
	case CORE_CODEC_LZ4_HADOOP:
		return 256;
	case CORE_CODEC_GZIP:
		return 1040;
	default:
		return 32768;
	}
}

/* Decompresses n bytes at src into the buffer *buf (grown to at least
 * rawlen bytes); *out points at the result, which may be src itself. */
static int
expand(struct pq_cursor *c, const uint8_t *src, size_t n, size_t rawlen,
    bool compressed, uint8_t **buf, size_t *cap, const uint8_t **out,
    struct core_err *err)
{
	int rc;

	if (rawlen == 0) {
		/* Nothing to expand; writers differ on what an empty
		 * compressed section holds (nothing, or an empty stream). */
		*out = src;
		return 0;
	}
	if (!compressed || c->codec == CORE_CODEC_NONE) {
		if (n != rawlen)
			return core_err_set(err, CORE_ECORRUPT,
			    "uncompressed page of %zu bytes declares %zu", n,
			    rawlen);
		*out = src;
		return 0;
	}
	if (rawlen > PAGE_MAX ||
	    rawlen > (n + 64) * max_ratio(c->codec) + 65536)
		return core_err_set(err, CORE_ECORRUPT,
		    "page of %zu %s bytes declares an implausible %zu bytes "
		    "uncompressed", n, core_codec_name(c->codec), rawlen);
	/* The ratio bounds the worst case; the frames' own sizes, where
	 * the codec has them, decide before the buffer is allocated. */
	if ((rc = core_codec_check_rawlen(c->codec, src, n, rawlen,
	    err)) != 0)
		return rc;
	if (*cap < rawlen) {
		free(*buf);
		*cap = rawlen;
		*buf = core_xmalloc(rawlen ? rawlen : 1);
	}
	*out = *buf;
	return core_codec_decompress(c->cx, c->codec, src, n, *buf, rawlen,
	    err);
}

static int
load_dictionary(struct pq_cursor *c, const struct page_header *h,
    const uint8_t *body, struct core_err *err)
{
	const struct pq_leaf *l = c->leaf;
	const uint8_t *d, *p, *end;
	size_t w = plain_width(l), n, i;
	int rc;

	if (c->has_dict)
		return corrupt(err, "a second dictionary page");
	if (h->encoding != ENC_PLAIN && h->encoding != ENC_PLAIN_DICTIONARY)
		return core_err_set(err, CORE_EDATA,
		    "dictionary page in unsupported encoding %d",
		    h->encoding);
	if (l->phys == PQ_BOOLEAN)
		return bad_data(err, "dictionary page in a boolean column");
	/* Each value takes its width (a BYTE_ARRAY's at least its length
	 * prefix), so a count the declared size cannot hold is refused
	 * before the page is expanded or its entries allocated. */
	n = (size_t)h->nvalues;
	if (n > (size_t)h->usize / (l->phys == PQ_BYTE_ARRAY ? 4 : w))
		return core_err_set(err, CORE_ECORRUPT, "dictionary page "
		    "declares %zu values, more than its %lld bytes can hold",
		    n, (long long)h->usize);
	rc = expand(c, body, (size_t)h->csize, (size_t)h->usize, true,
	    &c->dict_buf, &c->dict_cap, &d, err);
	if (rc != 0)
		return rc;
	if (d != c->dict_buf) {
		/* An uncompressed page stays in the chunk, which lives as
		 * long as the dictionary: no copy needed, but keep one
		 * place for both cases. */
		if (c->dict_buf == NULL || c->dict_cap < (size_t)h->usize) {
			free(c->dict_buf);
			c->dict_cap = (size_t)h->usize;
			c->dict_buf = core_xmalloc(c->dict_cap ?
			    c->dict_cap : 1);
		}
		if (h->usize > 0)
			memcpy(c->dict_buf, d, (size_t)h->usize);
		d = c->dict_buf;
	}
	if (l->phys == PQ_BYTE_ARRAY || l->phys == PQ_FLBA) {
		c->dict_sv = core_grow(c->dict_sv, &c->dict_sv_cap, n ? n : 1,
		    sizeof(*c->dict_sv), 16);
		p = d;
		end = d + h->usize;
		for (i = 0; i < n; i++) {
			size_t len = w;

			if (l->phys == PQ_BYTE_ARRAY) {
				if (end - p < 4)
					return corrupt(err, "truncated "
					    "dictionary");
				len = le32(p);
				p += 4;
			}
			if ((size_t)(end - p) < len || len > INT32_MAX)
				return corrupt(err, "truncated dictionary");
			c->dict_sv[i].p = p;
			c->dict_sv[i].len = (uint32_t)len;
			p += len;
		}
	}
	c->dict_n = (uint32_t)n;
	c->has_dict = true;
	return 0;
}

int
pq_dict_load(struct pq_cursor *c, const uint8_t *p, size_t len,
    struct core_err *err)
{
	struct page_header h;
	size_t hlen = 0;
	int rc;

	c->has_dict = false;
	c->dict_n = 0;
	if ((rc = parse_page_header(p, len, &h, &hlen, err)) != 0)
		return rc;
	if (h.type != PAGE_DICTIONARY)
		return 1;
	if ((uint64_t)h.csize > len - hlen)
		return corrupt(err, "page runs past its column chunk");
	return load_dictionary(c, &h, p + hlen, err);
}

const uint8_t *
pq_dict_value(const struct pq_cursor *c, uint32_t i, uint32_t *len)
{
	const struct pq_leaf *l = c->leaf;

	if (l->phys == PQ_BYTE_ARRAY || l->phys == PQ_FLBA) {
		*len = c->dict_sv[i].len;
		return c->dict_sv[i].p;
	}
	*len = (uint32_t)plain_width(l);
	return c->dict_buf + (size_t)i * *len;
}

static bool
encoding_fits(int enc, int phys)
{
	switch (enc) {
	case ENC_PLAIN:
	case ENC_PLAIN_DICTIONARY:
	case ENC_RLE_DICTIONARY:
		return enc == ENC_PLAIN || phys != PQ_BOOLEAN;
	case ENC_RLE:
		return phys == PQ_BOOLEAN;
	case ENC_DELTA_BINARY_PACKED:
		return phys == PQ_INT32 || phys == PQ_INT64;
	case ENC_DELTA_LENGTH_BYTE_ARRAY:
		return phys == PQ_BYTE_ARRAY;
	case ENC_DELTA_BYTE_ARRAY:
		return phys == PQ_BYTE_ARRAY || phys == PQ_FLBA;
	case ENC_BYTE_STREAM_SPLIT:
		return phys == PQ_FLOAT || phys == PQ_DOUBLE ||
		    phys == PQ_INT32 || phys == PQ_INT64 || phys == PQ_FLBA;
	default:
		return false;
	}
}

/* Sets up the value decoder over [p, end) for a page of nvalues rows. */
static int
start_values(struct pq_cursor *c, int enc, const uint8_t *p,
    const uint8_t *end, uint64_t nvalues, struct core_err *err)
{
	const uint8_t *after, *after2;
	uint64_t count, sum, count2, sum2;
	size_t w;

	if (!encoding_fits(enc, c->leaf->phys))
		return core_err_set(err, CORE_EDATA,
		    "unsupported encoding %d for this column's physical type",
		    enc);
	c->encoding = enc;
	c->vp = p;
	c->vend = end;
	switch (enc) {
	case ENC_PLAIN:
		c->bool_bit = 0;
		return 0;
	case ENC_PLAIN_DICTIONARY:
	case ENC_RLE_DICTIONARY:
		if (!c->has_dict)
			return corrupt(err, "dictionary-encoded page without "
			    "a dictionary");
		if (p == end) {
			/* No value at all: only NULLs may follow. */
			rle_init(&c->idx, p, end, 0);
			return 0;
		}
		if (*p > 32)
			return corrupt(err, "dictionary index width over 32");
		rle_init(&c->idx, p + 1, end, *p);
		return 0;
	case ENC_RLE:
		if (end - p < 4 || le32(p) > (size_t)(end - p - 4))
			return corrupt(err, "bad length of RLE booleans");
		rle_init(&c->idx, p + 4, p + 4 + le32(p), 1);
		return 0;
	case ENC_DELTA_BINARY_PACKED:
		cursor_dbp(c);
		if (dbp_init(c->dbp, p, end, nvalues) != 0)
			return corrupt(err, "bad DELTA_BINARY_PACKED header");
		return 0;
	case ENC_DELTA_LENGTH_BYTE_ARRAY:
		if (dbp_scan(p, end, nvalues, true, &after, &count, &sum) != 0
		    || sum > (uint64_t)(end - after))
			return corrupt(err, "bad DELTA_LENGTH_BYTE_ARRAY "
			    "lengths");
		cursor_dbp(c);
		dbp_init(c->dbp, p, end, nvalues);
		c->vp = after;
		return 0;
	case ENC_DELTA_BYTE_ARRAY:
		if (dbp_scan(p, end, nvalues, true, &after, &count, &sum) != 0
		    || dbp_scan(after, end, nvalues, true, &after2, &count2,
		    &sum2) != 0 || count != count2 ||
		    sum2 > (uint64_t)(end - after2))
			return corrupt(err, "bad DELTA_BYTE_ARRAY lengths");
		cursor_dbp(c);
		dbp_init(c->dbp2, p, end, nvalues);
		dbp_init(c->dbp, after, end, nvalues);
		c->vp = after2;
		c->prev_len = 0;
		return 0;
	case ENC_BYTE_STREAM_SPLIT:
		w = plain_width(c->leaf);
		if ((size_t)(end - p) % w != 0)
			return corrupt(err, "BYTE_STREAM_SPLIT data not a "
			    "multiple of the value width");
		c->bss_n = (uint64_t)(end - p) / w;
		c->bss_i = 0;
		return 0;
	}
	return corrupt(err, "unknown encoding");
}

/* Moves to the next data page with at least one row. */
static int
next_page(struct pq_cursor *c, struct core_err *err)
{
	const struct pq_leaf *l = c->leaf;
	struct page_header h;
	const uint8_t *body, *data, *lev;
	size_t hlen = 0, csize;
	int rc;

	for (;;) {
		if (c->pos >= c->chunk_len)
			return corrupt(err, "column chunk ends before the row "
			    "group's rows");
		rc = parse_page_header(c->chunk + c->pos, c->chunk_len -
		    c->pos, &h, &hlen, err);
		if (rc != 0)
			return rc;
		c->pos += hlen;
		if ((uint64_t)h.csize > c->chunk_len - c->pos)
			return corrupt(err, "page runs past its column chunk");
		body = c->chunk + c->pos;
		csize = (size_t)h.csize;
		c->pos += csize;
		if (h.type == PAGE_INDEX)
			continue;
		if (h.type == PAGE_DICTIONARY) {
			if (c->pages > 0)
				return corrupt(err, "dictionary page after "
				    "data pages");
			rc = load_dictionary(c, &h, body, err);
			if (rc != 0)
				return rc;
			c->pages++;
			continue;
		}
		if (h.type != PAGE_DATA && h.type != PAGE_DATA_V2)
			return core_err_set(err, CORE_ECORRUPT,
			    "unknown page type %d", h.type);
		c->pages++;
		if ((uint64_t)h.nvalues > c->rows_left)
			return corrupt(err, "pages hold more values than the "
			    "row group's rows");
		c->levels = false;
		c->bit_packed_levels = false;
		if (h.type == PAGE_DATA) {
			rc = expand(c, body, csize, (size_t)h.usize, true,
			    &c->page_buf, &c->page_cap, &data, err);
			if (rc != 0)
				return rc;
			lev = data;
			data += h.usize;
			if (l->max_def > 0) {
				size_t left = (size_t)(data - lev), n;

				if (h.def_encoding == ENC_RLE) {
					if (left < 4 || le32(lev) > left - 4)
						return corrupt(err, "bad "
						    "definition levels length");
					n = le32(lev);
					rle_init(&c->def, lev + 4,
					    lev + 4 + n, 1);
					lev += 4 + n;
				} else if (h.def_encoding == ENC_BIT_PACKED) {
					n = ((size_t)h.nvalues + 7) / 8;
					if (n > left)
						return corrupt(err, "truncated "
						    "definition levels");
					c->bp = lev;
					c->bp_pos = 0;
					c->bp_bits = (uint64_t)h.nvalues;
					c->bit_packed_levels = true;
					lev += n;
				} else {
					return core_err_set(err, CORE_EDATA,
					    "definition levels in unsupported "
					    "encoding %d", h.def_encoding);
				}
				c->levels = true;
			}
			rc = start_values(c, h.encoding, lev, data,
			    (uint64_t)h.nvalues, err);
		} else {
			size_t nlev;

			if (h.def_len < 0 || h.rep_len < 0 ||
			    (uint64_t)h.def_len + (uint64_t)h.rep_len > csize
			    || (uint64_t)h.def_len + (uint64_t)h.rep_len >
			    (uint64_t)h.usize)
				return corrupt(err, "bad level lengths in a v2 "
				    "page header");
			nlev = (size_t)(h.def_len + h.rep_len);
			if (l->max_def > 0 && h.def_len > 0) {
				rle_init(&c->def, body + h.rep_len,
				    body + nlev, 1);
				c->levels = true;
			} else if (l->max_def > 0 && h.nnulls != 0) {
				return corrupt(err, "v2 page with NULLs but "
				    "no definition levels");
			}
			rc = expand(c, body + nlev, csize - nlev,
			    (size_t)h.usize - nlev, h.compressed,
			    &c->page_buf, &c->page_cap, &data, err);
			if (rc != 0)
				return rc;
			rc = start_values(c, h.encoding, data,
			    data + (h.usize - (int64_t)nlev),
			    (uint64_t)h.nvalues, err);
		}
		if (rc != 0)
			return rc;
		c->rows_left -= (uint64_t)h.nvalues;
		c->page_left = (uint32_t)h.nvalues;
		if (c->page_left > 0)
			return 0;
	}
}

/* ---- values ---- */

static int
get_indices(struct pq_cursor *c, uint32_t m, struct core_err *err)
{
	uint32_t i, bad = 0;

	if (rle_get(&c->idx, c->sc->idxbuf, m) != 0)
		return corrupt(err, "dictionary indices end early");
	for (i = 0; i < m; i++)
		bad |= c->sc->idxbuf[i] >= c->dict_n;
	if (bad) {
		for (i = 0; c->sc->idxbuf[i] < c->dict_n; i++)
			;
		return core_err_set(err, CORE_EDATA, "dictionary index %u "
		    "out of range (the dictionary has %u values)",
		    c->sc->idxbuf[i], c->dict_n);
	}
	return 0;
}

/* m fixed-width physical values; *out points at them (into the page or
 * the dense scratch, or into direct, when given, for dictionary pages:
 * the caller's column, when the values need no conversion). */
static int
decode_fixed(struct pq_cursor *c, uint32_t m, const uint8_t **out,
    uint8_t *direct, struct core_err *err)
{
	const struct pq_leaf *l = c->leaf;
	size_t w = phys_width(l->phys), i, j;
	uint8_t *d = c->sc->dense;

	switch (c->encoding) {
	case ENC_PLAIN:
		if (l->phys == PQ_BOOLEAN) {
			if (c->bool_bit + m > (uint64_t)(c->vend - c->vp) * 8)
				return corrupt(err, "PLAIN booleans end "
				    "early");
			for (i = 0; i < m; i++, c->bool_bit++)
				d[i] = c->vp[c->bool_bit >> 3] >>
				    (c->bool_bit & 7) & 1;
			*out = d;
			return 0;
		}
		if ((size_t)(c->vend - c->vp) / w < m)
			return corrupt(err, "PLAIN values end early");
		*out = c->vp;
		c->vp += (size_t)m * w;
		return 0;
	case ENC_PLAIN_DICTIONARY:
	case ENC_RLE_DICTIONARY:
		if (get_indices(c, m, err) != 0)
			return err->code;
		if (direct != NULL)
			d = direct;
		if (w == 4) {
			for (i = 0; i < m; i++)
				memcpy(d + i * 4, c->dict_buf +
				    (size_t)c->sc->idxbuf[i] * 4, 4);
		} else if (w == 8) {
			for (i = 0; i < m; i++)
				memcpy(d + i * 8, c->dict_buf +
				    (size_t)c->sc->idxbuf[i] * 8, 8);
		} else {
			for (i = 0; i < m; i++)
				memcpy(d + i * w, c->dict_buf +
				    (size_t)c->sc->idxbuf[i] * w, w);
		}
		*out = d;
		return 0;
	case ENC_RLE:
		if (rle_get(&c->idx, c->sc->idxbuf, m) != 0)
			return corrupt(err, "RLE booleans end early");
		for (i = 0; i < m; i++)
			d[i] = (uint8_t)c->sc->idxbuf[i];
		*out = d;
		return 0;
	case ENC_DELTA_BINARY_PACKED:
		if (dbp_get(c->dbp, c->sc->u64buf, m) != 0)
			return corrupt(err, "DELTA_BINARY_PACKED values end "
			    "early");
		if (w == 4) {
			for (i = 0; i < m; i++) {
				uint32_t v = (uint32_t)c->sc->u64buf[i];

				memcpy(d + i * 4, &v, 4);
			}
		} else {
			memcpy(d, c->sc->u64buf, (size_t)m * 8);
		}
		*out = d;
		return 0;
	case ENC_BYTE_STREAM_SPLIT:
		if (c->bss_n - c->bss_i < m)
			return corrupt(err, "BYTE_STREAM_SPLIT values end "
			    "early");
		for (j = 0; j < w; j++) {
			const uint8_t *s = c->vp + j * c->bss_n + c->bss_i;

			for (i = 0; i < m; i++)
				d[i * w + j] = s[i];
		}
		c->bss_i += m;
		*out = d;
		return 0;
	}
	return corrupt(err, "unknown encoding");
}

/* Room for need more arena bytes after used; sv pointers into the arena
 * are set only once all of a slice is in it, as it may move. */
static void
arena_reserve(struct pq_cursor *c, size_t used, size_t need)
{
	if (c->arena_cap - used < need)
		c->arena = core_grow(c->arena, &c->arena_cap, used + need, 1,
		    4096);
}

/* m byte strings into c->sc->sv. */
static int
decode_binary(struct pq_cursor *c, uint32_t m, struct core_err *err)
{
	const struct pq_leaf *l = c->leaf;
	struct pq_sv *sv = c->sc->sv;
	size_t w = (size_t)l->type_length, used = 0, i, j;
	uint32_t len;

	switch (c->encoding) {
	case ENC_PLAIN:
		for (i = 0; i < m; i++) {
			if (l->phys == PQ_BYTE_ARRAY) {
				if (c->vend - c->vp < 4)
					return corrupt(err, "PLAIN strings "
					    "end early");
				len = le32(c->vp);
				c->vp += 4;
			} else {
				len = (uint32_t)w;
			}
			if ((size_t)(c->vend - c->vp) < len || len > INT32_MAX)
				return corrupt(err, "PLAIN strings end early");
			sv[i].p = c->vp;
			sv[i].len = len;
			c->vp += len;
		}
		return 0;
	case ENC_PLAIN_DICTIONARY:
	case ENC_RLE_DICTIONARY:
		if (get_indices(c, m, err) != 0)
			return err->code;
		for (i = 0; i < m; i++)
			sv[i] = c->dict_sv[c->sc->idxbuf[i]];
		return 0;
	case ENC_DELTA_LENGTH_BYTE_ARRAY:
		/* The lengths were checked against the bytes when the page
		 * started. */
		if (dbp_get(c->dbp, c->sc->u64buf, m) != 0)
			return corrupt(err, "DELTA_LENGTH_BYTE_ARRAY values "
			    "end early");
		for (i = 0; i < m; i++) {
			sv[i].p = c->vp;
			sv[i].len = (uint32_t)c->sc->u64buf[i];
			c->vp += sv[i].len;
		}
		return 0;
	case ENC_DELTA_BYTE_ARRAY:
		if (dbp_get(c->dbp2, c->sc->u64buf, m) != 0 ||
		    dbp_get(c->dbp, (uint64_t *)c->sc->conv, m) != 0)
			return corrupt(err, "DELTA_BYTE_ARRAY values end "
			    "early");
		for (i = 0; i < m; i++) {
			uint64_t pre = c->sc->u64buf[i];
			uint64_t suf = ((uint64_t *)c->sc->conv)[i];

			if (pre > c->prev_len || pre + suf > INT32_MAX)
				return corrupt(err, "DELTA_BYTE_ARRAY prefix "
				    "longer than the value before");
			if (c->prev_cap < pre + suf)
				c->prev = core_grow(c->prev, &c->prev_cap,
				    (size_t)(pre + suf), 1, 64);
			if (suf > 0)
				memcpy(c->prev + pre, c->vp, (size_t)suf);
			c->vp += suf;
			c->prev_len = (size_t)(pre + suf);
			if (l->phys == PQ_FLBA && c->prev_len != w)
				return corrupt(err, "DELTA_BYTE_ARRAY value "
				    "not of the column's fixed length");
			/* One byte more, so the arena exists even when every
			 * value is empty. */
			arena_reserve(c, used, c->prev_len + 1);
			if (c->prev_len > 0)
				memcpy(c->arena + used, c->prev, c->prev_len);
			sv[i].len = (uint32_t)c->prev_len;
			used += c->prev_len;
		}
		for (i = 0, used = 0; i < m; i++) {
			sv[i].p = c->arena + used;
			used += sv[i].len;
		}
		return 0;
	case ENC_BYTE_STREAM_SPLIT:
		if (c->bss_n - c->bss_i < m)
			return corrupt(err, "BYTE_STREAM_SPLIT values end "
			    "early");
		arena_reserve(c, 0, (size_t)m * w);
		for (j = 0; j < w; j++) {
			const uint8_t *s = c->vp + j * c->bss_n + c->bss_i;

			for (i = 0; i < m; i++)
				c->arena[i * w + j] = s[i];
		}
		for (i = 0; i < m; i++) {
			sv[i].p = c->arena + i * w;
			sv[i].len = (uint32_t)w;
		}
		c->bss_i += m;
		return 0;
	}
	return corrupt(err, "unknown encoding");
}

/* ---- conversion to colpipe values ---- */

static double
half_to_double(uint16_t h)
{
	int e = h >> 10 & 0x1f;
	double m = h & 0x3ff, v;

	if (e == 0)
		v = ldexp(m, -24);
	else if (e == 31)
		v = m == 0 ? INFINITY : NAN;
	else
		v = ldexp(m + 1024, e - 25);
	return h & 0x8000 ? -v : v;
}

/* A big-endian two's complement integer; false when it needs more than
 * 64 bits. */
static bool
be_decimal(const uint8_t *p, uint32_t len, int64_t *out)
{
	int64_t v;
	uint32_t i;

	if (len == 0) {
		*out = 0;
		return true;
	}
	v = (int8_t)p[0];
	for (i = 1; i < len; i++) {
		if (v > INT64_MAX >> 8 || v < INT64_MIN >> 8)
			return false;
		v = (int64_t)((uint64_t)v << 8 | p[i]);
	}
	*out = v;
	return true;
}

/* The same into 128 bits: false past 128 (sign-extension bytes in front
 * are fine, as some writers pad to a fixed length). */
static bool
be_decimal128(const uint8_t *p, uint32_t len, core_i128 *out)
{
	uint8_t ext = len > 0 && (p[0] & 0x80) ? 0xff : 0;
	unsigned __int128 u;
	uint32_t i, skip = len > 16 ? len - 16 : 0;

	for (i = 0; i < skip; i++)
		if (p[i] != ext)
			return false;
	if (len > 16 && ((p[skip] & 0x80) ? 0xff : 0) != ext)
		return false;
	u = ext ? ~(unsigned __int128)0 : 0;
	for (i = skip; i < len; i++)
		u = u << 8 | p[i];
	*out = (core_i128)u;
	return true;
}

/* m dense physical values at src to m colpipe values at dst. */
static int
convert_fixed(const struct pq_leaf *l, const uint8_t *src, uint32_t m,
    uint8_t *dst, struct core_err *err)
{
	uint32_t i;

	switch (l->conv) {
	case PQ_CONV_BOOL:
		for (i = 0; i < m; i++)
			dst[i] = src[i] != 0;
		return 0;
	case PQ_CONV_I32:
	case PQ_CONV_I64:
	case PQ_CONV_F64:
		memcpy(dst, src, (size_t)m * core_type_width(l->type.id));
		return 0;
	case PQ_CONV_U32_I64:
		for (i = 0; i < m; i++) {
			uint32_t v;
			int64_t x;

			memcpy(&v, src + 4 * i, 4);
			x = v;
			memcpy(dst + 8 * i, &x, 8);
		}
		return 0;
	case PQ_CONV_I32_I64:
		for (i = 0; i < m; i++) {
			int32_t v;
			int64_t x;

			memcpy(&v, src + 4 * i, 4);
			x = v;
			memcpy(dst + 8 * i, &x, 8);
		}
		return 0;
	case PQ_CONV_U64:
		for (i = 0; i < m; i++) {
			uint64_t v;

			memcpy(&v, src + 8 * i, 8);
			if (v > INT64_MAX)
				return core_err_set(err, CORE_EDATA,
				    "unsigned value %llu past int64",
				    (unsigned long long)v);
		}
		memcpy(dst, src, (size_t)m * 8);
		return 0;
	case PQ_CONV_TS_MS:
		for (i = 0; i < m; i++) {
			int64_t v;

			memcpy(&v, src + 8 * i, 8);
			if (__builtin_mul_overflow(v, 1000, &v))
				return bad_data(err, "timestamp in "
				    "milliseconds out of range");
			memcpy(dst + 8 * i, &v, 8);
		}
		return 0;
	case PQ_CONV_TS_NS:
		for (i = 0; i < m; i++) {
			int64_t v, q;

			memcpy(&v, src + 8 * i, 8);
			q = v / 1000 - (v % 1000 < 0);
			memcpy(dst + 8 * i, &q, 8);
		}
		return 0;
	case PQ_CONV_INT96:
		/* Nanoseconds of the day, then the Julian day.  Computed
		 * modulo 2^64 as Spark computes what it writes, so that a
		 * timestamp whose fields Spark's arithmetic wrapped (years
		 * past 100000) reads back as the one it meant. */
		for (i = 0; i < m; i++) {
			int64_t ns, us;
			int32_t jd;
			uint64_t t;

			memcpy(&ns, src + 12 * i, 8);
			memcpy(&jd, src + 12 * i + 8, 4);
			t = (uint64_t)((int64_t)jd - 2440588) * 86400000000u +
			    (uint64_t)(ns / 1000 - (ns % 1000 < 0));
			us = (int64_t)t;
			memcpy(dst + 8 * i, &us, 8);
		}
		return 0;
	case PQ_CONV_F32:
		for (i = 0; i < m; i++) {
			float f;
			double d;

			memcpy(&f, src + 4 * i, 4);
			d = f;
			memcpy(dst + 8 * i, &d, 8);
		}
		return 0;
	default:
		return core_err_set(err, CORE_EINTERNAL, "bad conversion %d",
		    (int)l->conv);
	}
}

/* m byte strings (c->sc->sv) to m fixed-width colpipe values at dst. */
static int
convert_binary(const struct pq_cursor *c, uint32_t m, uint8_t *dst,
    struct core_err *err)
{
	uint32_t i;

	for (i = 0; i < m; i++) {
		const struct pq_sv *s = &c->sc->sv[i];

		if (c->leaf->conv == PQ_CONV_F16) {
			double d = half_to_double((uint16_t)(s->p[0] |
			    s->p[1] << 8));

			memcpy(dst + 8 * i, &d, 8);
		} else if (c->leaf->type.id == CORE_TYPE_DECIMAL128) {
			core_i128 w;

			if (!be_decimal128(s->p, s->len, &w))
				return bad_data(err, "decimal value wider "
				    "than 128 bits");
			core_i128_store(dst + 16 * i, w);
		} else {
			int64_t v;

			if (!be_decimal(s->p, s->len, &v))
				return bad_data(err, "decimal value wider "
				    "than 64 bits");
			memcpy(dst + 8 * i, &v, 8);
		}
	}
	return 0;
}

static const char hexdig[] = "0123456789abcdef";

/* Appends the strings of the k rows (levels lev, NULL = all valid) to
 * out from row row0 on. */
static int
put_strings(struct pq_cursor *c, struct core_column *out, uint32_t row0,
    uint32_t k, uint32_t m, const uint8_t *lev, size_t *used,
    struct core_err *err)
{
	bool uuid = c->leaf->conv == PQ_CONV_UUID;
	const uint8_t *want = c->mask != NULL ? c->mask + row0 : NULL;
	size_t need = 0, u = *used;
	uint32_t i, j = 0;
	uint8_t *v;

	if (want == NULL) {
		for (i = 0; i < m; i++)
			need += uuid ? 36 : c->sc->sv[i].len;
	} else {
		for (i = 0; i < k; i++)
			if (lev == NULL || lev[i]) {
				if (want[i])
					need += uuid ? 36 : c->sc->sv[j].len;
				j++;
			}
		j = 0;
	}
	if (need > (size_t)INT32_MAX - u)
		return core_err_set(err, CORE_ELIMIT,
		    "strings of one batch over 2 GiB");
	core_col_reserve_bytes(out, u, need);
	v = out->values;
	for (i = 0; i < k; i++) {
		if ((lev == NULL || lev[i]) && want != NULL && !want[i]) {
			j++;
		} else if (lev == NULL || lev[i]) {
			const struct pq_sv *s = &c->sc->sv[j++];

			if (uuid) {
				unsigned b;
				uint8_t *o = v + u;

				for (b = 0; b < 16; b++) {
					if (b == 4 || b == 6 || b == 8 ||
					    b == 10)
						*o++ = '-';
					*o++ = (uint8_t)hexdig[s->p[b] >> 4];
					*o++ = (uint8_t)hexdig[s->p[b] & 15];
				}
				u += 36;
			} else if (s->len > 0) {
				memcpy(v + u, s->p, s->len);
				u += s->len;
			}
		}
		out->offsets[row0 + i + 1] = (int32_t)u;
	}
	*used = u;
	return 0;
}

/* Definition levels of k rows into c->sc->levbuf; *m = valid rows. */
static int
get_levels(struct pq_cursor *c, uint32_t k, uint32_t *m,
    struct core_err *err)
{
	uint8_t *lev = c->sc->levbuf;
	uint32_t i, n = 0, over = 0;

	if (c->bit_packed_levels) {
		/* MSB first within each byte. */
		if (c->bp_bits - c->bp_pos < k)
			return corrupt(err, "definition levels end early");
		for (i = 0; i < k; i++, c->bp_pos++)
			lev[i] = c->bp[c->bp_pos >> 3] >>
			    (7 - (c->bp_pos & 7)) & 1;
	} else {
		if (rle_get_levels(&c->def, lev, k, c->sc->idxbuf, &n,
		    &over) != 0)
			return corrupt(err, "definition levels end early");
		if (over > 1)
			return bad_data(err, "definition level over 1 in a "
			    "flat column");
		*m = n;
		return 0;
	}
	for (i = 0; i < k; i++)
		n += lev[i];
	*m = n;
	return 0;
}

/* k rows from the current page into out at row0. */
static int
read_slice(struct pq_cursor *c, struct core_column *out, uint32_t row0,
    uint32_t k, size_t *str_used, bool *nulls, struct core_err *err)
{
	const struct pq_leaf *l = c->leaf;
	const uint8_t *lev = NULL, *src = NULL;
	size_t w = core_type_width(l->type.id), i, j;
	uint32_t m = k;
	uint8_t *dst, *direct;
	bool binary = l->phys == PQ_BYTE_ARRAY || l->phys == PQ_FLBA;
	int rc;

	if (c->levels) {
		rc = get_levels(c, k, &m, err);
		if (rc != 0)
			return rc;
		if (m < k) {
			lev = c->sc->levbuf;
			*nulls = true;
			for (i = 0; i < k; i++)
				if (!lev[i])
					out->validity_buf[(row0 + i) >> 3] &=
					    (uint8_t)~(1u << ((row0 + i) & 7));
		}
	}
	if (binary) {
		rc = decode_binary(c, m, err);
		if (rc != 0)
			return rc;
		if (l->type.id == CORE_TYPE_STRING)
			return put_strings(c, out, row0, k, m, lev, str_used,
			    err);
	} else {
		/* Values that are colpipe's as they are, with no NULL to
		 * spread, go from the dictionary to the column at once. */
		direct = lev == NULL && (l->conv == PQ_CONV_I32 ||
		    l->conv == PQ_CONV_I64 || l->conv == PQ_CONV_F64) ?
		    (uint8_t *)out->values + (size_t)row0 * w : NULL;
		rc = decode_fixed(c, m, &src, direct, err);
		if (rc != 0)
			return rc;
		if (direct != NULL && src == direct)
			return 0;
	}
	dst = (uint8_t *)out->values + (size_t)row0 * w;
	if (lev != NULL)
		dst = c->sc->conv;
	rc = binary ? convert_binary(c, m, dst, err) :
	    convert_fixed(l, src, m, dst, err);
	if (rc != 0 || lev == NULL)
		return rc;
	/* Spread the valid rows' values; NULL slots hold zero. */
	src = c->sc->conv;
	dst = (uint8_t *)out->values + (size_t)row0 * w;
	for (i = 0, j = 0; i < k; i++) {
		if (lev[i]) {
			memcpy(dst + i * w, src + j * w, w);
			j++;
		} else {
			memset(dst + i * w, 0, w);
		}
	}
	return 0;
}

/* Decodes c->skip rows into scratch and drops them.  A mask of no rows
 * keeps strings from being copied; the values are decoded all the same,
 * since a page's encodings give no way past a value but through it. */
static int
skip_rows(struct pq_cursor *c, struct core_err *err)
{
	static const uint8_t none[NB];
	const uint8_t *mask = c->mask;
	struct core_column *s = c->skipcol;
	uint32_t k;
	int rc = 0;

	if (s == NULL) {
		s = c->skipcol = core_xcalloc(1, sizeof(*s));
		s->type = c->leaf->type;
		s->values_cap = (size_t)NB * 16;
		s->values = core_xmalloc_aligned(s->values_cap);
		s->offsets_cap = ((size_t)NB + 1) * sizeof(int32_t);
		s->offsets = core_xmalloc(s->offsets_cap);
		s->validity_cap = NB / 8 + 8;
		s->validity_buf = core_xmalloc(s->validity_cap);
	}
	c->mask = none;
	while (c->skip > 0) {
		size_t used = 0;
		bool nulls = false;

		if (c->page_left == 0 && (rc = next_page(c, err)) != 0)
			break;
		k = c->skip < c->page_left ? (uint32_t)c->skip : c->page_left;
		if (k > NB)
			k = NB;
		s->offsets[0] = 0;
		memset(s->validity_buf, 0xff, s->validity_cap);
		if ((rc = read_slice(c, s, 0, k, &used, &nulls, err)) != 0)
			break;
		c->page_left -= k;
		c->skip -= k;
	}
	c->mask = mask;
	return rc;
}

int
pq_cursor_read(struct pq_cursor *c, struct core_column *out, uint32_t row0,
    uint32_t n, size_t *str_used, bool *nulls, struct core_err *err)
{
	uint32_t k;
	int rc;

	if (c->skip > 0 && (rc = skip_rows(c, err)) != 0)
		return rc;
	while (n > 0) {
		if (c->page_left == 0) {
			rc = next_page(c, err);
			if (rc != 0)
				return rc;
		}
		k = n < c->page_left ? n : c->page_left;
		rc = read_slice(c, out, row0, k, str_used, nulls, err);
		if (rc != 0)
			return rc;
		c->page_left -= k;
		row0 += k;
		n -= k;
	}
	return 0;
}

void
pq_cursor_init(struct pq_cursor *c, const struct pq_leaf *leaf)
{
	memset(c, 0, sizeof(*c));
	c->leaf = leaf;
}

void
pq_scratch_init(struct pq_scratch *sc)
{
	sc->levbuf = core_xmalloc(NB);
	sc->dense = core_xmalloc((size_t)NB * 12);
	sc->conv = core_xmalloc((size_t)NB * 16);	/* decimal128 */
	sc->idxbuf = core_xmalloc((size_t)NB * sizeof(uint32_t));
	sc->u64buf = core_xmalloc((size_t)NB * sizeof(uint64_t));
	sc->sv = core_xmalloc((size_t)NB * sizeof(struct pq_sv));
}

void
pq_scratch_release(struct pq_scratch *sc)
{
	free(sc->levbuf);
	free(sc->dense);
	free(sc->conv);
	free(sc->idxbuf);
	free(sc->u64buf);
	free(sc->sv);
	memset(sc, 0, sizeof(*sc));
}

void
pq_cursor_release(struct pq_cursor *c)
{
	free(c->dict_buf);
	free(c->dict_sv);
	free(c->page_buf);
	free(c->dbp);
	free(c->dbp2);
	free(c->prev);
	free(c->arena);
	if (c->skipcol != NULL) {
		core_free_aligned(c->skipcol->values);
		free(c->skipcol->offsets);
		free(c->skipcol->validity_buf);
		free(c->skipcol);
	}
	memset(c, 0, sizeof(*c));
}

void
pq_cursor_start(struct pq_cursor *c, const uint8_t *chunk, size_t len,
    enum core_codec codec, uint64_t nrows)
{
	c->chunk = chunk;
	c->chunk_len = len;
	c->pos = 0;
	c->codec = codec;
	c->rows_left = nrows;
	c->page_left = 0;
	c->skip = 0;
	c->has_dict = false;
	c->dict_n = 0;
	c->pages = 0;
}

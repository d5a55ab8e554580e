/*
 * tpchgen_tables.c - the eight TPC-H tables: schemas, cardinalities and
 * the generators that fill a core_batch with a chunk of a table's rows.
 *
 * Values follow TPC-H 4.2.3: keys dense from 1 except o_orderkey, which
 * uses the first 8 of every 32 keys; foreign keys drawn inside their
 * tables' key ranges (o_custkey never a multiple of 3, so a third of the
 * customers have no orders); partsupp's and lineitem's supplier the
 * specification's function of the part key, so every (l_partkey,
 * l_suppkey) is a partsupp row; dates between 1992-01-01 and 1998-12-31
 * as the specification derives them from o_orderdate.  Strings are
 * written straight into the batch's string buffers, reserved for a
 * chunk's longest values beforehand, so the row loops neither allocate
 * nor check capacity.
 *
 * Invariant: every unit (row, or order for lineitem) is generated from its
 * own stream only (tg_stream), so chunks are independent.
 */
#include <stdio.h>
#include <string.h>

#include "core_alloc.h"
#include "tpchgen.h"

/* Stream families: one per table, orders and lineitem sharing one. */
enum { FAM_REGION = 1, FAM_NATION, FAM_SUPPLIER, FAM_CUSTOMER, FAM_PART,
	FAM_PARTSUPP, FAM_ORDERS };

#define I64 { CORE_TYPE_INT64, 0, 0 }
#define STR { CORE_TYPE_STRING, 0, 0 }
#define DEC { CORE_TYPE_DECIMAL, 18, 2 }
#define DATE { CORE_TYPE_DATE, 0, 0 }

static const char *const region_cols[] = { "r_regionkey", "r_name",
	"r_comment" };
static const struct core_coltype region_types[] = { I64, STR, STR };
static const uint16_t region_max[] = { 0, 12, 115 };

static const char *const nation_cols[] = { "n_nationkey", "n_name",
	"n_regionkey", "n_comment" };
static const struct core_coltype nation_types[] = { I64, STR, I64, STR };
static const uint16_t nation_max[] = { 0, 16, 0, 114 };

static const char *const supplier_cols[] = { "s_suppkey", "s_name",
	"s_address", "s_nationkey", "s_phone", "s_acctbal", "s_comment" };
static const struct core_coltype supplier_types[] = { I64, STR, STR, I64,
	STR, DEC, STR };
static const uint16_t supplier_max[] = { 0, 24, 40, 0, 15, 0, 100 };

static const char *const customer_cols[] = { "c_custkey", "c_name",
	"c_address", "c_nationkey", "c_phone", "c_acctbal", "c_mktsegment",
	"c_comment" };
static const struct core_coltype customer_types[] = { I64, STR, STR, I64,
	STR, DEC, STR, STR };
static const uint16_t customer_max[] = { 0, 24, 40, 0, 15, 0, 10, 116 };

static const char *const part_cols[] = { "p_partkey", "p_name", "p_mfgr",
	"p_brand", "p_type", "p_size", "p_container", "p_retailprice",
	"p_comment" };
static const struct core_coltype part_types[] = { I64, STR, STR, STR, STR,
	I64, STR, DEC, STR };
static const uint16_t part_max[] = { 0, 60, 16, 10, 28, 0, 10, 0, 22 };

static const char *const partsupp_cols[] = { "ps_partkey", "ps_suppkey",
	"ps_availqty", "ps_supplycost", "ps_comment" };
static const struct core_coltype partsupp_types[] = { I64, I64, I64, DEC,
	STR };
static const uint16_t partsupp_max[] = { 0, 0, 0, 0, 198 };

static const char *const orders_cols[] = { "o_orderkey", "o_custkey",
	"o_orderstatus", "o_totalprice", "o_orderdate", "o_orderpriority",
	"o_clerk", "o_shippriority", "o_comment" };
static const struct core_coltype orders_types[] = { I64, I64, STR, DEC,
	DATE, STR, STR, I64, STR };
static const uint16_t orders_max[] = { 0, 0, 1, 0, 0, 15, 16, 0, 78 };

static const char *const lineitem_cols[] = { "l_orderkey", "l_partkey",
	"l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice",
	"l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate",
	"l_commitdate", "l_receiptdate", "l_shipinstruct", "l_shipmode",
	"l_comment" };
static const struct core_coltype lineitem_types[] = { I64, I64, I64, I64,
	I64, DEC, DEC, DEC, STR, STR, DATE, DATE, DATE, STR, STR, STR };
static const uint16_t lineitem_max[] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0,
	0, 0, 17, 7, 43 };

#define TAB(n, q, c, u) { #n, sizeof(n##_cols) / sizeof(n##_cols[0]), \
	n##_cols, n##_types, n##_max, q, c, u }
#define Q(c) (1u << (c))

const struct tg_tabinfo tg_tables[TG_NTABLES] = {
	/* Commas are in comments and addresses only. */
	[TG_REGION] = TAB(region, Q(2), 5, 1),
	[TG_NATION] = TAB(nation, Q(3), 25, 1),
	[TG_SUPPLIER] = TAB(supplier, Q(2) | Q(6), 16384, 1),
	[TG_CUSTOMER] = TAB(customer, Q(2) | Q(7), 16384, 1),
	[TG_PART] = TAB(part, Q(8), 16384, 1),
	/* Four rows a part. */
	[TG_PARTSUPP] = TAB(partsupp, Q(4), 4096, 4),
	[TG_ORDERS] = TAB(orders, Q(8), 16384, 1),
	/* One to seven lines an order. */
	[TG_LINEITEM] = TAB(lineitem, Q(15), 4096, 7),
};

/* ---- scale ---- */

static void dates_init(void);

static uint64_t
scaled(double sf, double base)
{
	uint64_t n = (uint64_t)(sf * base + 0.5);

	return n ? n : 1;
}

void
tg_ctx_scale(struct tg_ctx *ctx)
{
	ctx->nsupp = scaled(ctx->sf, 10000);
	ctx->ncust = scaled(ctx->sf, 150000);
	ctx->npart = scaled(ctx->sf, 200000);
	ctx->norders = scaled(ctx->sf, 1500000);
	ctx->nclerks = scaled(ctx->sf, 1000);
	dates_init();
}

bool
tg_ctx_suppliers_distinct(const struct tg_ctx *ctx)
{
	int64_t s = (int64_t)ctx->nsupp, np = (int64_t)ctx->npart, k, d;

	/* Parts p and q = p's i-th and j-th supplier are one when
	 * (j - i) x (s/4 + (p-1)/s) is a multiple of s. */
	for (k = 0; k <= (np - 1) / s; k++)
		for (d = 1; d <= 3; d++)
			if (d * (s / 4 + k) % s == 0)
				return false;
	return true;
}

uint64_t
tg_units(const struct tg_ctx *ctx, enum tg_table t)
{
	switch (t) {
	case TG_REGION:
		return 5;
	case TG_NATION:
		return 25;
	case TG_SUPPLIER:
		return ctx->nsupp;
	case TG_CUSTOMER:
		return ctx->ncust;
	case TG_PART:
	case TG_PARTSUPP:
		return ctx->npart;
	case TG_ORDERS:
	case TG_LINEITEM:
		return ctx->norders;
	default:
		return 0;
	}
}

int
tg_table_find(const char *name)
{
	int t;

	for (t = 0; t < TG_NTABLES; t++)
		if (strcmp(name, tg_tables[t].name) == 0)
			return t;
	return -1;
}

/* ---- dates ---- */

/* Days since 1970-01-01 of a proleptic Gregorian date (the usual
 * era-of-400-years computation). */
static int32_t
days_from_civil(int y, int m, int d)
{
	int era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (int32_t)(era * 146097 + doe - 719468);
}

#define START_DATE 8035		/* 1992-01-01 */
#define CURRENT_DATE 9298	/* 1995-06-17 */
#define END_DATE 10591		/* 1998-12-31 */
#define NDATES (END_DATE - START_DATE + 1)

/* "YYYY-MM-DD" of every day of the window, built once by tg_ctx_scale,
 * before any thread generates. */
static char date_text[NDATES][10];
static int dates_ready;

static void
dates_init(void)
{
	int y, m, d, mdays;
	static const int dim[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
		30, 31 };
	int32_t day;

	if (dates_ready)
		return;
	for (y = 1992; y <= 1998; y++)
		for (m = 1; m <= 12; m++) {
			mdays = dim[m - 1] + (m == 2 && y % 4 == 0);
			for (d = 1; d <= mdays; d++) {
				day = days_from_civil(y, m, d) - START_DATE;
				date_text[day][0] = (char)('0' + y / 1000);
				date_text[day][1] = (char)('0' + y / 100 % 10);
				date_text[day][2] = (char)('0' + y / 10 % 10);
				date_text[day][3] = (char)('0' + y % 10);
				date_text[day][4] = '-';
				date_text[day][5] = (char)('0' + m / 10);
				date_text[day][6] = (char)('0' + m % 10);
				date_text[day][7] = '-';
				date_text[day][8] = (char)('0' + d / 10);
				date_text[day][9] = (char)('0' + d % 10);
			}
		}
	dates_ready = 1;
}

const char *
tg_date_text(int32_t days)
{
	return date_text[days - START_DATE];
}

/* ---- word lists (TPC-H 4.2.2.13 and 4.2.3) ---- */

static const char *const colors[] = {
	"almond", "antique", "aquamarine", "azure", "beige", "bisque",
	"black", "blanched", "blue", "blush", "brown", "burlywood",
	"burnished", "chartreuse", "chiffon", "chocolate", "coral",
	"cornflower", "cornsilk", "cream", "cyan", "dark", "deep", "dim",
	"dodger", "drab", "firebrick", "floral", "forest", "frosted",
	"gainsboro", "ghost", "goldenrod", "green", "grey", "honeydew", "hot",
	"indian", "ivory", "khaki", "lace", "lavender", "lawn", "lemon",
	"light", "lime", "linen", "magenta", "maroon", "medium", "metallic",
	"midnight", "mint", "misty", "moccasin", "navajo", "navy", "olive",
	"orange", "orchid", "pale", "papaya", "peach", "peru", "pink", "plum",
	"powder", "puff", "purple", "red", "rose", "rosy", "royal", "saddle",
	"salmon", "sandy", "seashell", "sienna", "sky", "slate", "smoke",
	"snow", "spring", "steel", "tan", "thistle", "tomato", "turquoise",
	"violet", "wheat", "white", "yellow",
};

static const char *const type1[] = { "STANDARD", "SMALL", "MEDIUM",
	"LARGE", "ECONOMY", "PROMO" };
static const char *const type2[] = { "ANODIZED", "BURNISHED", "PLATED",
	"POLISHED", "BRUSHED" };
static const char *const type3[] = { "TIN", "NICKEL", "BRASS", "STEEL",
	"COPPER" };
static const char *const cont1[] = { "SM", "LG", "MED", "JUMBO", "WRAP" };
static const char *const cont2[] = { "CASE", "BOX", "BAG", "JAR", "PKG",
	"PACK", "CAN", "DRUM" };
static const char *const segments[] = { "AUTOMOBILE", "BUILDING",
	"FURNITURE", "MACHINERY", "HOUSEHOLD" };
static const char *const priorities[] = { "1-URGENT", "2-HIGH",
	"3-MEDIUM", "4-NOT SPECIFIED", "5-LOW" };
static const char *const instructions[] = { "DELIVER IN PERSON",
	"COLLECT COD", "NONE", "TAKE BACK RETURN" };
static const char *const modes[] = { "REG AIR", "AIR", "RAIL", "SHIP",
	"TRUCK", "MAIL", "FOB" };

static const char *const regions[] = { "AFRICA", "AMERICA", "ASIA",
	"EUROPE", "MIDDLE EAST" };
static const struct {
	const char *name;
	int region;
} nations[25] = {
	{ "ALGERIA", 0 }, { "ARGENTINA", 1 }, { "BRAZIL", 1 },
	{ "CANADA", 1 }, { "EGYPT", 4 }, { "ETHIOPIA", 0 }, { "FRANCE", 3 },
	{ "GERMANY", 3 }, { "INDIA", 2 }, { "INDONESIA", 2 }, { "IRAN", 4 },
	{ "IRAQ", 4 }, { "JAPAN", 2 }, { "JORDAN", 4 }, { "KENYA", 0 },
	{ "MOROCCO", 0 }, { "MOZAMBIQUE", 0 }, { "PERU", 1 }, { "CHINA", 2 },
	{ "ROMANIA", 3 }, { "SAUDI ARABIA", 4 }, { "VIETNAM", 2 },
	{ "RUSSIA", 3 }, { "UNITED KINGDOM", 3 }, { "UNITED STATES", 1 },
};

#define NELEM(a) ((int64_t)(sizeof(a) / sizeof((a)[0])))
#define PICK(r, a) ((a)[tg_range((r), 0, NELEM(a) - 1)])

/* ---- column writers ---- */

/* Row i's string of column c is the next len bytes; returns where to
 * write them (capacity was reserved for the chunk). */
static inline char *
str_at(struct core_column *c, uint32_t i, size_t len)
{
	int32_t at = c->offsets[i];

	c->offsets[i + 1] = at + (int32_t)len;
	return (char *)c->values + at;
}

static inline void
str_put(struct core_column *c, uint32_t i, const char *s, size_t len)
{
	memcpy(str_at(c, i, len), s, len);
}

static inline void
str_cstr(struct core_column *c, uint32_t i, const char *s)
{
	str_put(c, i, s, strlen(s));
}

static inline void
i64_put(struct core_column *c, uint32_t i, int64_t v)
{
	((int64_t *)c->values)[i] = v;
}

static inline void
date_put(struct core_column *c, uint32_t i, int32_t v)
{
	((int32_t *)c->values)[i] = v;
}

/* "Prefix#" and key zero-padded to width digits (more when it has
 * more, as at SF 10000's billion customers). */
static void
keyed_name(struct core_column *c, uint32_t i, const char *prefix,
    uint64_t key, int width)
{
	size_t plen = strlen(prefix);
	char *p;
	int k;
	uint64_t v;

	for (k = 0, v = key; v; k++)
		v /= 10;
	if (k > width)
		width = k;
	p = str_at(c, i, plen + (size_t)width);

	memcpy(p, prefix, plen);
	for (k = width - 1; k >= 0; k--) {
		p[plen + (size_t)k] = (char)('0' + key % 10);
		key /= 10;
	}
}

/* A comment: a substring of the pool of length [lo, hi] (4.2.2.10). */
static char *
comment(const struct tg_ctx *ctx, struct tg_rng *r, struct core_column *c,
    uint32_t i, int lo, int hi)
{
	size_t len = (size_t)tg_range(r, lo, hi);
	size_t off = (size_t)tg_range(r, 0,
	    (int64_t)(TG_POOL_BYTES - len));
	char *p = str_at(c, i, len);

	tg_copy(p, ctx->pool + off, len);
	return p;
}

/* A v-string [lo, hi] (4.2.2.7): characters drawn from 64 symbols. */
static void
vstring(struct tg_rng *r, struct core_column *c, uint32_t i, int lo, int hi)
{
	static const char alnum[] = "0123456789abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ, ";
	size_t len = (size_t)tg_range(r, lo, hi), k;
	char *p = str_at(c, i, len);
	uint64_t bits = 0;

	/* Ten 6-bit symbols from each 64-bit draw. */
	for (k = 0; k < len; k++) {
		if (k % 10 == 0)
			bits = tg_next(r);
		p[k] = alnum[bits & 63];
		bits >>= 6;
	}
}

/* A phone number (4.2.2.9): country code nation + 10, then three local
 * groups. */
static void
phone(struct tg_rng *r, struct core_column *c, uint32_t i, int nation)
{
	char *p = str_at(c, i, 15);
	int a = (int)tg_range(r, 100, 999), b = (int)tg_range(r, 100, 999);
	int d = (int)tg_range(r, 1000, 9999), cc = nation + 10;

	p[0] = (char)('0' + cc / 10);
	p[1] = (char)('0' + cc % 10);
	p[2] = '-';
	p[3] = (char)('0' + a / 100);
	p[4] = (char)('0' + a / 10 % 10);
	p[5] = (char)('0' + a % 10);
	p[6] = '-';
	p[7] = (char)('0' + b / 100);
	p[8] = (char)('0' + b / 10 % 10);
	p[9] = (char)('0' + b % 10);
	p[10] = '-';
	p[11] = (char)('0' + d / 1000);
	p[12] = (char)('0' + d / 100 % 10);
	p[13] = (char)('0' + d / 10 % 10);
	p[14] = (char)('0' + d % 10);
}

/* p_retailprice in cents, a function of the key (4.2.3). */
static inline int64_t
retail_cents(int64_t pk)
{
	return 90000 + (pk / 10) % 20001 + 100 * (pk % 1000);
}

/* The i-th (0..3) supplier of part pk among nsupp (4.2.3). */
static inline int64_t
supp_of(int64_t pk, int64_t i, int64_t nsupp)
{
	return (pk + i * (nsupp / 4 + (pk - 1) / nsupp)) % nsupp + 1;
}

/* ---- tables ---- */

static void
gen_region(const struct tg_ctx *ctx, uint64_t first, uint32_t n,
    struct core_batch *b)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint64_t k = first + i;
		struct tg_rng r = tg_stream(ctx->seed, FAM_REGION, k);

		i64_put(&b->cols[0], i, (int64_t)k);
		str_cstr(&b->cols[1], i, regions[k]);
		comment(ctx, &r, &b->cols[2], i, 31, 115);
	}
	b->nrows = n;
}

static void
gen_nation(const struct tg_ctx *ctx, uint64_t first, uint32_t n,
    struct core_batch *b)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint64_t k = first + i;
		struct tg_rng r = tg_stream(ctx->seed, FAM_NATION, k);

		i64_put(&b->cols[0], i, (int64_t)k);
		str_cstr(&b->cols[1], i, nations[k].name);
		i64_put(&b->cols[2], i, nations[k].region);
		comment(ctx, &r, &b->cols[3], i, 31, 114);
	}
	b->nrows = n;
}

/* Writes word (10 bytes) over p[at..]. */
static void
overwrite(char *p, size_t at, const char *word)
{
	memcpy(p + at, word, strlen(word));
}

static void
gen_supplier(const struct tg_ctx *ctx, uint64_t first, uint32_t n,
    struct core_batch *b)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint64_t k = first + i + 1;
		struct tg_rng r = tg_stream(ctx->seed, FAM_SUPPLIER, k);
		int nation = (int)tg_range(&r, 0, 24);
		int64_t mark = tg_range(&r, 0, 1999);
		char *c;
		size_t len, at, gap;

		i64_put(&b->cols[0], i, (int64_t)k);
		keyed_name(&b->cols[1], i, "Supplier#", k, 9);
		vstring(&r, &b->cols[2], i, 10, 40);
		i64_put(&b->cols[3], i, nation);
		phone(&r, &b->cols[4], i, nation);
		i64_put(&b->cols[5], i, tg_range(&r, -99999, 999999));
		c = comment(ctx, &r, &b->cols[6], i, 25, 100);
		/* One supplier in 2000 has a complaint and one a
		 * recommendation: SF x 5 of each (Q16). */
		if (mark < 2) {
			len = (size_t)(b->cols[6].offsets[i + 1] -
			    b->cols[6].offsets[i]);
			at = (size_t)tg_range(&r, 0, (int64_t)len - 19);
			gap = (size_t)tg_range(&r, 0,
			    (int64_t)(len - 19 - at));
			overwrite(c, at, "Customer ");
			overwrite(c, at + 9 + gap,
			    mark == 0 ? "Complaints" : "Recommends");
		}
	}
	b->nrows = n;
}

static void
gen_customer(const struct tg_ctx *ctx, uint64_t first, uint32_t n,
    struct core_batch *b)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint64_t k = first + i + 1;
		struct tg_rng r = tg_stream(ctx->seed, FAM_CUSTOMER, k);
		int nation = (int)tg_range(&r, 0, 24);

		i64_put(&b->cols[0], i, (int64_t)k);
		keyed_name(&b->cols[1], i, "Customer#", k, 9);
		vstring(&r, &b->cols[2], i, 10, 40);
		i64_put(&b->cols[3], i, nation);
		phone(&r, &b->cols[4], i, nation);
		i64_put(&b->cols[5], i, tg_range(&r, -99999, 999999));
		str_cstr(&b->cols[6], i, PICK(&r, segments));
		comment(ctx, &r, &b->cols[7], i, 29, 116);
	}
	b->nrows = n;
}

static void
gen_part(const struct tg_ctx *ctx, uint64_t first, uint32_t n,
    struct core_batch *b)
{
	uint32_t i;
	char buf[64];

	for (i = 0; i < n; i++) {
		uint64_t k = first + i + 1;
		struct tg_rng r = tg_stream(ctx->seed, FAM_PART, k);
		int w[5], j, m, nb;
		size_t len = 0, l;
		const char *s;

		/* Five distinct colours. */
		for (j = 0; j < 5; j++) {
			do {
				w[j] = (int)tg_range(&r, 0, NELEM(colors) - 1);
				for (m = 0; m < j && w[m] != w[j]; m++)
					;
			} while (m < j);
			s = colors[w[j]];
			l = strlen(s);
			if (j)
				buf[len++] = ' ';
			memcpy(buf + len, s, l);
			len += l;
		}
		i64_put(&b->cols[0], i, (int64_t)k);
		str_put(&b->cols[1], i, buf, len);
		m = (int)tg_range(&r, 1, 5);
		nb = (int)tg_range(&r, 1, 5);
		memcpy(buf, "Manufacturer#", 13);
		buf[13] = (char)('0' + m);
		str_put(&b->cols[2], i, buf, 14);
		memcpy(buf, "Brand#", 6);
		buf[6] = (char)('0' + m);
		buf[7] = (char)('0' + nb);
		str_put(&b->cols[3], i, buf, 8);
		len = (size_t)snprintf(buf, sizeof(buf), "%s %s %s",
		    PICK(&r, type1), PICK(&r, type2), PICK(&r, type3));
		str_put(&b->cols[4], i, buf, len);
		i64_put(&b->cols[5], i, tg_range(&r, 1, 50));
		len = (size_t)snprintf(buf, sizeof(buf), "%s %s",
		    PICK(&r, cont1), PICK(&r, cont2));
		str_put(&b->cols[6], i, buf, len);
		i64_put(&b->cols[7], i, retail_cents((int64_t)k));
		comment(ctx, &r, &b->cols[8], i, 5, 22);
	}
	b->nrows = n;
}

static void
gen_partsupp(const struct tg_ctx *ctx, uint64_t first, uint32_t n,
    struct core_batch *b)
{
	uint32_t i, row = 0;
	int64_t s = (int64_t)ctx->nsupp;

	for (i = 0; i < n; i++) {
		int64_t pk = (int64_t)(first + i + 1), j;
		struct tg_rng r = tg_stream(ctx->seed, FAM_PARTSUPP,
		    (uint64_t)pk);

		for (j = 0; j < 4; j++, row++) {
			i64_put(&b->cols[0], row, pk);
			i64_put(&b->cols[1], row, supp_of(pk, j, s));
			i64_put(&b->cols[2], row, tg_range(&r, 1, 9999));
			i64_put(&b->cols[3], row, tg_range(&r, 100, 100000));
			comment(ctx, &r, &b->cols[4], row, 49, 198);
		}
	}
	b->nrows = row;
}

/*
 * Orders and lineitem.  One order's draws, in order: customer, date,
 * priority, clerk, comment, line count, then per line part, supplier,
 * quantity, discount, tax, the three date offsets, return flag,
 * instruction, mode, comment.  Both tables make every draw, so each
 * table's values are the same whether or not the other is generated.
 */
struct line {
	int64_t partkey, suppkey, qty, ext, disc, tax;
	int32_t ship, commit, receipt;
	char rflag, lstatus;
	const char *instruct, *mode;
	size_t coff, clen;
};

struct order {
	int64_t key, custkey, total;
	int32_t date;
	const char *priority;
	int64_t clerk;
	size_t coff, clen;
	char status;
	int nlines;
	struct line l[7];
};

/* The sparse order key of the 0-based order index: the first 8 keys of
 * every 32 (4.2.3). */
static inline int64_t
order_key(uint64_t idx)
{
	return (int64_t)((idx >> 3) * 32 + (idx & 7) + 1);
}

static void
pool_cut(struct tg_rng *r, int lo, int hi, size_t *off, size_t *len)
{
	*len = (size_t)tg_range(r, lo, hi);
	*off = (size_t)tg_range(r, 0, (int64_t)(TG_POOL_BYTES - *len));
}

static void
make_order(const struct tg_ctx *ctx, uint64_t idx, struct order *o)
{
	struct tg_rng r = tg_stream(ctx->seed, FAM_ORDERS, idx);
	/* Customers whose key is a multiple of 3 have no orders: draw
	 * among the others and map the draw onto their keys. */
	int64_t ncand = (int64_t)(ctx->ncust - ctx->ncust / 3), c, j;
	int nf = 0;

	o->key = order_key(idx);
	c = tg_range(&r, 0, ncand - 1);
	o->custkey = c / 2 * 3 + c % 2 + 1;
	o->date = (int32_t)tg_range(&r, START_DATE, END_DATE - 151);
	o->priority = PICK(&r, priorities);
	o->clerk = tg_range(&r, 1, (int64_t)ctx->nclerks);
	pool_cut(&r, 19, 78, &o->coff, &o->clen);
	o->nlines = (int)tg_range(&r, 1, 7);
	o->total = 0;
	for (j = 0; j < o->nlines; j++) {
		struct line *l = &o->l[j];

		l->partkey = tg_range(&r, 1, (int64_t)ctx->npart);
		l->suppkey = supp_of(l->partkey, tg_range(&r, 0, 3),
		    (int64_t)ctx->nsupp);
		l->qty = tg_range(&r, 1, 50);
		l->ext = l->qty * retail_cents(l->partkey);
		l->disc = tg_range(&r, 0, 10);
		l->tax = tg_range(&r, 0, 8);
		l->ship = o->date + (int32_t)tg_range(&r, 1, 121);
		l->commit = o->date + (int32_t)tg_range(&r, 30, 90);
		l->receipt = l->ship + (int32_t)tg_range(&r, 1, 30);
		l->rflag = tg_range(&r, 0, 1) ? 'A' : 'R';
		if (l->receipt > CURRENT_DATE)
			l->rflag = 'N';
		l->lstatus = l->ship > CURRENT_DATE ? 'O' : 'F';
		nf += l->lstatus == 'F';
		l->instruct = PICK(&r, instructions);
		l->mode = PICK(&r, modes);
		pool_cut(&r, 10, 43, &l->coff, &l->clen);
		/* ext * (1 + tax) * (1 - disc), rounded to the cent. */
		o->total += (l->ext * (100 + l->tax) * (100 - l->disc) +
		    5000) / 10000;
	}
	o->status = nf == o->nlines ? 'F' : nf == 0 ? 'O' : 'P';
}

static void
gen_orders(const struct tg_ctx *ctx, uint64_t first, uint32_t n,
    struct core_batch *b)
{
	struct order o;
	uint32_t i;

	for (i = 0; i < n; i++) {
		make_order(ctx, first + i, &o);
		i64_put(&b->cols[0], i, o.key);
		i64_put(&b->cols[1], i, o.custkey);
		str_put(&b->cols[2], i, &o.status, 1);
		i64_put(&b->cols[3], i, o.total);
		date_put(&b->cols[4], i, o.date);
		str_cstr(&b->cols[5], i, o.priority);
		keyed_name(&b->cols[6], i, "Clerk#", (uint64_t)o.clerk, 9);
		i64_put(&b->cols[7], i, 0);
		tg_copy(str_at(&b->cols[8], i, o.clen), ctx->pool + o.coff,
		    o.clen);
	}
	b->nrows = n;
}

static void
gen_lineitem(const struct tg_ctx *ctx, uint64_t first, uint32_t n,
    struct core_batch *b)
{
	struct order o;
	uint32_t i, row = 0;
	int j;

	for (i = 0; i < n; i++) {
		make_order(ctx, first + i, &o);
		for (j = 0; j < o.nlines; j++, row++) {
			const struct line *l = &o.l[j];

			i64_put(&b->cols[0], row, o.key);
			i64_put(&b->cols[1], row, l->partkey);
			i64_put(&b->cols[2], row, l->suppkey);
			i64_put(&b->cols[3], row, j + 1);
			i64_put(&b->cols[4], row, l->qty);
			i64_put(&b->cols[5], row, l->ext);
			i64_put(&b->cols[6], row, l->disc);
			i64_put(&b->cols[7], row, l->tax);
			str_put(&b->cols[8], row, &l->rflag, 1);
			str_put(&b->cols[9], row, &l->lstatus, 1);
			date_put(&b->cols[10], row, l->ship);
			date_put(&b->cols[11], row, l->commit);
			date_put(&b->cols[12], row, l->receipt);
			str_cstr(&b->cols[13], row, l->instruct);
			str_cstr(&b->cols[14], row, l->mode);
			tg_copy(str_at(&b->cols[15], row, l->clen),
			    ctx->pool + l->coff, l->clen);
		}
	}
	b->nrows = row;
}

void
tg_generate(const struct tg_ctx *ctx, enum tg_table t, uint64_t first,
    uint32_t n, struct core_batch *b)
{
	const struct tg_tabinfo *ti = &tg_tables[t];
	uint32_t rows = n * ti->rows_per_unit, c;

	core_batch_reserve(b, rows, 0);
	core_batch_reset(b);
	for (c = 0; c < ti->ncols; c++)
		if (ti->types[c].id == CORE_TYPE_STRING)
			core_col_reserve_bytes(&b->cols[c], 0,
			    (size_t)rows * ti->maxlen[c] + TG_SLACK);
	switch (t) {
	case TG_REGION:
		gen_region(ctx, first, n, b);
		break;
	case TG_NATION:
		gen_nation(ctx, first, n, b);
		break;
	case TG_SUPPLIER:
		gen_supplier(ctx, first, n, b);
		break;
	case TG_CUSTOMER:
		gen_customer(ctx, first, n, b);
		break;
	case TG_PART:
		gen_part(ctx, first, n, b);
		break;
	case TG_PARTSUPP:
		gen_partsupp(ctx, first, n, b);
		break;
	case TG_ORDERS:
		gen_orders(ctx, first, n, b);
		break;
	default:
		gen_lineitem(ctx, first, n, b);
		break;
	}
}

/*
 * test_col.c - types, schemas and batches.
 */
#include "core_alloc.h"
#include <stdio.h>
#include <string.h>

#include "core_col.h"
#include "unit.h"

static void
test_type_parse(void)
{
	struct core_coltype t;
	struct core_err err;
	char buf[CORE_TYPE_NAME_MAX];

	CHECK_EQ_INT(core_type_parse("decimal(15,2)", 13, &t, &err), 0);
	CHECK_EQ_INT(t.id, CORE_TYPE_DECIMAL);
	CHECK_EQ_INT(t.precision, 15);
	CHECK_EQ_INT(t.scale, 2);
	CHECK_EQ_STR(core_type_name(t, buf), "decimal(15,2)");
	CHECK_EQ_INT(core_type_parse(" DECIMAL( 18 , 0 ) ", 19, &t, &err), 0);
	CHECK_EQ_STR(core_type_name(t, buf), "decimal(18,0)");
	CHECK_EQ_INT(core_type_parse("BigInt", 6, &t, &err), 0);
	CHECK_EQ_INT(t.id, CORE_TYPE_INT64);
	CHECK_EQ_INT(core_type_parse("date", 4, &t, &err), 0);
	CHECK_EQ_STR(core_type_name(t, buf), "date");
	CHECK_EQ_INT(core_type_parse("decimal(39,2)", 13, &t, &err),
	    CORE_EUSAGE);
	CHECK(strstr(err.msg, "precision must be 1 to 38") != NULL);
	CHECK_EQ_INT(core_type_parse("decimal(0,0)", 12, &t, &err),
	    CORE_EUSAGE);
	CHECK_EQ_INT(core_type_parse("decimal(5,6)", 12, &t, &err),
	    CORE_EUSAGE);
	CHECK_EQ_INT(core_type_parse("decimal(5,2", 11, &t, &err),
	    CORE_EUSAGE);
	CHECK_EQ_INT(core_type_parse("integer8", 8, &t, &err), CORE_EUSAGE);
	CHECK(strstr(err.msg, "unknown type 'integer8'") != NULL);
}

/* One decimal type to users, two physical widths split at 18 digits. */
static void
test_type_decimal128(void)
{
	struct core_coltype t;
	struct core_err err;
	char buf[CORE_TYPE_NAME_MAX], spell[32];
	unsigned p, s;

	for (p = 1; p <= 38; p++)
		for (s = 0; s <= p; s++) {
			int n = snprintf(spell, sizeof(spell), "Decimal(%u,%u)",
			    p, s);

			t.id = 0;
			CHECK_EQ_INT(core_type_parse(spell, (size_t)n, &t,
			    &err), 0);
			CHECK_EQ_INT(t.id, p <= 18 ? CORE_TYPE_DECIMAL :
			    CORE_TYPE_DECIMAL128);
			CHECK_EQ_INT(t.precision, p);
			CHECK_EQ_INT(t.scale, s);
			CHECK(core_type_equal(t, core_type_decimal(p, s)));
			CHECK(core_type_is_decimal(t.id));
			snprintf(spell, sizeof(spell), "decimal(%u,%u)", p, s);
			CHECK_EQ_STR(core_type_name(t, buf), spell);
			CHECK_EQ_INT(core_type_width(t.id), p <= 18 ? 8 : 16);
		}
	CHECK_EQ_INT(core_type_parse("numeric(38)", 11, &t, &err), 0);
	CHECK_EQ_INT(t.id, CORE_TYPE_DECIMAL128);
	CHECK_EQ_INT(t.scale, 0);
	CHECK_EQ_INT(core_type_parse("decimal(38,39)", 14, &t, &err),
	    CORE_EUSAGE);
	CHECK(strstr(err.msg, "scale exceeds precision") != NULL);
	CHECK(!core_type_is_decimal(CORE_TYPE_INT64));
	CHECK_EQ_INT(sizeof(core_i128), 16);
}

/* A decimal128 batch: reserve, NULLs, equality and check at the awkward
 * lengths, with values over the whole range. */
static void
test_decimal128_batch(void)
{
	static const uint32_t lens[] = { 0, 1, 2, 3, 17, 4095, 4096, 4097 };
	struct core_schema *s = core_schema_new(1);
	struct core_batch a, b;
	core_i128 max = 0;
	size_t k;
	int i;

	for (i = 0; i < 38; i++)
		max = max * 10 + 9;
	core_schema_set(s, 0, "x", core_type_decimal(38, 4));
	core_batch_init(&a, s);
	core_batch_init(&b, s);
	for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		uint32_t n = lens[k], r;
		bool ok = true;

		core_batch_reset(&a);
		core_batch_reset(&b);
		core_batch_reserve(&a, n, 0);
		core_batch_reserve(&b, n, 0);
		CHECK(a.cols[0].values_cap >= (size_t)n * 16);
		for (r = 0; r < n; r++) {
			core_i128 v = (core_i128)((core_u128)unit_rand() <<
			    64 | unit_rand()) % max;

			if (r == 0)
				v = max;
			else if (r == 1)
				v = -max;
			core_i128_store((char *)a.cols[0].values + 16 * r, v);
			core_i128_store((char *)b.cols[0].values + 16 * r, v);
			if (unit_rand() % 5 == 0) {
				core_col_set_null(&a.cols[0], r, n);
				core_col_set_null(&b.cols[0], r, n);
			}
		}
		a.nrows = b.nrows = n;
		CHECK(core_batch_check(&a) == NULL);
		for (r = 0; r < n; r++)
			ok &= core_col_value_equal(&a.cols[0], r, &b.cols[0],
			    r);
		CHECK(ok);
		if (n > 2) {
			/* The high word alone differs. */
			char *p = (char *)b.cols[0].values + 16 * 2 + 8;

			p[0] ^= 1;
			CHECK(!core_col_is_valid(&a.cols[0], 2) ||
			    !core_col_value_equal(&a.cols[0], 2, &b.cols[0],
			    2));
			p[0] ^= 1;
		}
	}
	core_batch_release(&a);
	core_batch_release(&b);
	core_schema_free(s);
}

static void
test_schema(void)
{
	struct core_schema *s = core_schema_new(2), *c;
	struct core_coltype i64 = { CORE_TYPE_INT64, 0, 0 };
	struct core_coltype d = { CORE_TYPE_DECIMAL, 15, 2 };
	char *desc;

	core_schema_set(s, 0, "id", i64);
	core_schema_set(s, 1, "price", d);
	c = core_schema_clone(s);
	CHECK(core_schema_equal(s, c));
	CHECK_EQ_INT(core_schema_find(s, "price"), 1);
	CHECK_EQ_INT(core_schema_find(s, "nope"), -1);
	desc = core_schema_describe(s);
	CHECK_EQ_STR(desc, "id:int64,price:decimal(15,2)");
	free(desc);
	d.scale = 3;
	core_schema_set(c, 1, "price", d);
	CHECK(!core_schema_equal(s, c));
	core_schema_free(s);
	core_schema_free(c);
	core_schema_free(NULL);
}

/* The bitmap logic against a plain array of flags, at awkward lengths. */
static void
test_nulls_vs_reference(void)
{
	static const uint32_t lens[] = { 0, 1, 2, 3, 17, 4095, 4096, 4097 };
	struct core_schema *s = core_schema_new(1);
	struct core_coltype i32 = { CORE_TYPE_INT32, 0, 0 };
	struct core_batch b;
	size_t k;

	core_schema_set(s, 0, "x", i32);
	core_batch_init(&b, s);
	for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		uint32_t n = lens[k], i, want = 0;
		bool *ref = core_xcalloc(n + 1, 1);
		bool ok = true;

		core_batch_reset(&b);
		core_batch_reserve(&b, n, 0);
		for (i = 0; i < n; i++) {
			ref[i] = unit_rand() % 3 == 0;
			if (ref[i]) {
				core_col_set_null(&b.cols[0], i, n);
				want++;
			}
		}
		b.nrows = n;
		for (i = 0; i < n; i++)
			ok &= core_col_is_valid(&b.cols[0], i) == !ref[i];
		CHECK(ok);
		CHECK_EQ_INT(core_col_null_count(&b.cols[0], n), want);
		free(ref);
	}
	/* Reset detaches the bitmap: a reused batch starts all valid. */
	core_batch_reset(&b);
	CHECK(b.cols[0].validity == NULL);
	core_batch_release(&b);
	core_schema_free(s);
}

/* core_batch_check: a good batch passes; each broken invariant is
 * named. */
static void
test_batch_check(void)
{
	struct core_coltype i64 = { CORE_TYPE_INT64, 0, 0 };
	struct core_coltype str = { CORE_TYPE_STRING, 0, 0 };
	struct core_coltype bl = { CORE_TYPE_BOOL, 0, 0 };
	struct core_schema *s = core_schema_new(3);
	struct core_batch b;
	int64_t *v;
	int32_t *off;
	uint8_t *bv;
	const char *why;

	core_schema_set(s, 0, "n", i64);
	core_schema_set(s, 1, "s", str);
	core_schema_set(s, 2, "b", bl);
	core_batch_init(&b, s);
	core_batch_reserve(&b, 4, 16);
	v = b.cols[0].values;
	off = b.cols[1].offsets;
	bv = b.cols[2].values;
	b.nrows = 3;
	v[0] = 1, v[1] = 0, v[2] = 3;
	off[0] = 0, off[1] = 2, off[2] = 2, off[3] = 5;
	memcpy(b.cols[1].values, "abcde", 5);
	bv[0] = 1, bv[1] = 0, bv[2] = 1;
	core_col_set_null(&b.cols[0], 1, 4);
	core_col_set_null(&b.cols[1], 1, 4);
	CHECK(core_batch_check(&b) == NULL);
	b.cols[0].type.id = CORE_TYPE_INT32;
	why = core_batch_check(&b);
	CHECK(why != NULL && strstr(why, "type") != NULL);
	b.cols[0].type.id = CORE_TYPE_INT64;
	/* Bytes under a NULL are input, not a broken batch. */
	v[1] = 7;
	CHECK(core_batch_check(&b) == NULL);
	v[1] = 0;
	off[3] = 1;
	why = core_batch_check(&b);
	CHECK(why != NULL && strstr(why, "decrease") != NULL);
	off[3] = 5;
	off[0] = 1;
	why = core_batch_check(&b);
	CHECK(why != NULL && strstr(why, "offsets[0]") != NULL);
	off[0] = 0;
	CHECK(core_batch_check(&b) == NULL);
	core_batch_release(&b);
	core_schema_free(s);
}

/* core_schema_first_dup against a loop over every earlier name; and
 * core_batch_rows_for against the sum of the widths. */
static void
test_wide_schema(void)
{
	static const char *const pool[] = { "a", "b", "c", "a_1", "d" };
	const struct core_coltype i64 = { CORE_TYPE_INT64, 0, 0 };
	const struct core_coltype str = { CORE_TYPE_STRING, 0, 0 };
	struct core_schema *s;
	uint32_t n, i, j, sel[3];
	ssize_t want;
	char name[32];

	for (int iter = 0; iter < 500; iter++) {
		n = (uint32_t)unit_rand() % 6;
		s = core_schema_new(n);
		for (i = 0; i < n; i++)
			core_schema_set(s, i, pool[unit_rand() % 5], i64);
		want = -1;
		for (i = 0; i < n && want < 0; i++)
			for (j = 0; j < i; j++)
				if (strcmp(s->fields[i].name,
				    s->fields[j].name) == 0)
					want = i;
		CHECK_EQ_INT(core_schema_first_dup(s), want);
		core_schema_free(s);
	}
	/* 100k int64 columns: 8 MiB / 800,000 bytes = 10 rows. */
	n = 100000;
	s = core_schema_new(n);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "c%u", i);
		core_schema_set(s, i, name, i % 2 ? i64 : str);
	}
	CHECK_EQ_INT(core_schema_first_dup(s), -1);
	CHECK_EQ_INT(core_batch_rows_for(s, NULL, 0, 8192),
	    (int)(CORE_BATCH_FIXED / (50000 * 8 + 50000 * 4)));
	sel[0] = 0;
	sel[1] = 1;
	sel[2] = 3;
	CHECK_EQ_INT(core_batch_rows_for(s, sel, 3, 8192), 8192);
	CHECK_EQ_INT(core_batch_rows_for(s, sel, 3, 7), 7);
	core_schema_set(s, 7, "c5", i64);
	CHECK_EQ_INT(core_schema_first_dup(s), 7);
	core_schema_free(s);
	/* One row however wide; none wider than want. */
	s = core_schema_new(1);
	core_schema_set(s, 0, "x", core_type_decimal(38, 2));
	CHECK_EQ_INT(core_batch_rows_for(s, NULL, 0, 8192), 8192);
	core_schema_free(s);
	s = core_schema_new(n * 10);
	for (i = 0; i < n * 10; i++) {
		snprintf(name, sizeof(name), "c%u", i);
		core_schema_set(s, i, name, core_type_decimal(38, 2));
	}
	CHECK_EQ_INT(core_batch_rows_for(s, NULL, 0, 8192), 1);
	core_schema_free(s);
}

int
main(void)
{
	RUN(test_type_parse);
	RUN(test_type_decimal128);
	RUN(test_decimal128_batch);
	RUN(test_schema);
	RUN(test_nulls_vs_reference);
	RUN(test_batch_check);
	RUN(test_wide_schema);
	return unit_done();
}

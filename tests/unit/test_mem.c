/*
 * test_mem.c - memory budgets against a plain running total.
 */
#include "core_mem.h"
#include "unit.h"

static void
test_charge_release_vs_reference(void)
{
	struct core_mem m;
	uint64_t ref = 0, peak = 0, held[64];
	int nheld = 0, i, bad = 0;

	core_mem_init(&m, 1000000);
	for (i = 0; i < 100000; i++) {
		if (nheld > 0 && (unit_rand() % 2 == 0 || nheld == 64)) {
			int k = (int)(unit_rand() % (uint64_t)nheld);

			core_mem_release(&m, held[k]);
			ref -= held[k];
			held[k] = held[--nheld];
		} else {
			uint64_t n = unit_rand() % 100000;
			bool fits = ref + n <= 1000000;
			int rc = core_mem_try_charge(&m, n);

			if ((rc == 0) != fits)
				bad++;
			if (rc == 0) {
				ref += n;
				held[nheld++] = n;
			}
		}
		if (ref > peak)
			peak = ref;
		if (m.used != ref || m.peak != peak || m.used > m.limit)
			bad++;
	}
	CHECK_EQ_INT(bad, 0);
}

static void
test_forced_charge_and_edges(void)
{
	struct core_mem m;

	core_mem_init(&m, 100);
	CHECK_EQ_INT(core_mem_try_charge(&m, 100), 0);
	CHECK_EQ_INT(core_mem_available(&m), 0);
	CHECK_EQ_INT(core_mem_try_charge(&m, 1), CORE_ELIMIT);
	core_mem_charge(&m, 50);		/* must hold it anyway */
	CHECK_EQ_INT(m.used, 150);
	CHECK_EQ_INT(core_mem_available(&m), 0);
	core_mem_release(&m, 100);
	CHECK_EQ_INT(core_mem_available(&m), 50);
	CHECK_EQ_INT(m.peak, 150);
	CHECK_EQ_INT(core_mem_try_charge(&m, UINT64_MAX), CORE_ELIMIT);
	CHECK_EQ_INT(m.used, 50);
	core_mem_init(&m, CORE_MEM_UNLIMITED);
	CHECK_EQ_INT(core_mem_try_charge(&m, (uint64_t)1 << 62), 0);
	CHECK_EQ_INT(core_mem_try_charge(&m, (uint64_t)1 << 62), 0);
	CHECK(core_mem_default_limit() >= ((uint64_t)8 << 20));
}

int
main(void)
{
	RUN(test_charge_release_vs_reference);
	RUN(test_forced_charge_and_edges);
	return unit_done();
}

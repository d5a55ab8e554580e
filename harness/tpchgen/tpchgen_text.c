/*
 * tpchgen_text.c - tpchgen's random streams and the text pool every
 * comment column is cut from.
 *
 * The pool follows the grammar of TPC-H 4.2.2.14 (sentences of noun,
 * verb and prepositional phrases with their terminators) over the word
 * lists of 4.2.2.13, forms and words drawn with the weights of the
 * specification's distributions, so that LIKE patterns such as Q13's
 * '%special%requests%' match about as often as in the reference data.
 * It is generated once per run (a few tens of milliseconds for 8 MiB)
 * and shared read-only by every thread.
 */
#include <string.h>

#include "core_alloc.h"
#include "tpchgen.h"

struct tg_rng
tg_stream(uint64_t seed, unsigned fam, uint64_t row)
{
	struct tg_rng r;

	/* Two rounds of the finaliser over a combination of the three
	 * keys: neighbouring rows get unrelated streams. */
	r.s = seed * 0xd1342543de82ef95ULL + ((uint64_t)fam << 58) +
	    row * 0x9e3779b97f4a7c15ULL;
	r.s = tg_next(&r);
	r.s ^= (uint64_t)fam * 0xff51afd7ed558ccdULL;
	r.s = tg_next(&r);
	return r;
}

/* A word and its weight: how often it is drawn relative to the others
 * of its list (the specification's distributions). */
struct word {
	const char *text;
	int weight;
};

static const struct word nouns[] = {
	{ "packages", 40 }, { "requests", 40 }, { "accounts", 40 },
	{ "deposits", 40 }, { "foxes", 20 }, { "ideas", 20 },
	{ "theodolites", 20 }, { "pinto beans", 20 }, { "instructions", 20 },
	{ "dependencies", 10 }, { "excuses", 10 }, { "platelets", 10 },
	{ "asymptotes", 10 }, { "courts", 5 }, { "dolphins", 5 },
	{ "multipliers", 1 }, { "sauternes", 1 }, { "warthogs", 1 },
	{ "frets", 1 }, { "dinos", 1 }, { "attainments", 1 }, { "somas", 1 },
	{ "Tiresias", 1 }, { "patterns", 1 }, { "forges", 1 }, { "braids", 1 },
	{ "frays", 1 }, { "warhorses", 1 }, { "dugouts", 1 },
	{ "notornis", 1 }, { "epitaphs", 1 }, { "pearls", 1 }, { "tithes", 1 },
	{ "waters", 1 }, { "orbits", 1 }, { "gifts", 1 }, { "sheaves", 1 },
	{ "depths", 1 }, { "sentiments", 1 }, { "decoys", 1 }, { "realms", 1 },
	{ "pains", 1 }, { "grouches", 1 }, { "escapades", 1 },
	{ "hockey players", 1 },
};

static const struct word verbs[] = {
	{ "sleep", 20 }, { "wake", 20 }, { "are", 20 }, { "cajole", 20 },
	{ "haggle", 20 }, { "nag", 10 }, { "use", 10 }, { "boost", 10 },
	{ "affix", 5 }, { "detect", 5 }, { "integrate", 5 }, { "maintain", 1 },
	{ "nod", 1 }, { "was", 1 }, { "lose", 1 }, { "sublate", 1 },
	{ "solve", 1 }, { "thrash", 1 }, { "promise", 1 }, { "engage", 1 },
	{ "hinder", 1 }, { "print", 1 }, { "x-ray", 1 }, { "breach", 1 },
	{ "eat", 1 }, { "grow", 1 }, { "impress", 1 }, { "mold", 1 },
	{ "poach", 1 }, { "serve", 1 }, { "run", 1 }, { "dazzle", 1 },
	{ "snooze", 1 }, { "doze", 1 }, { "unwind", 1 }, { "kindle", 1 },
	{ "play", 1 }, { "hang", 1 }, { "believe", 1 }, { "doubt", 1 },
};

static const struct word adjectives[] = {
	{ "special", 20 }, { "pending", 20 }, { "unusual", 20 },
	{ "express", 20 }, { "furious", 1 }, { "sly", 1 }, { "careful", 1 },
	{ "blithe", 1 }, { "quick", 1 }, { "fluffy", 1 }, { "slow", 1 },
	{ "quiet", 1 }, { "ruthless", 1 }, { "thin", 1 }, { "close", 1 },
	{ "dogged", 1 }, { "daring", 1 }, { "brave", 1 }, { "stealthy", 1 },
	{ "permanent", 1 }, { "enticing", 1 }, { "idle", 1 }, { "busy", 1 },
	{ "regular", 50 }, { "final", 40 }, { "ironic", 40 }, { "even", 30 },
	{ "bold", 20 }, { "silent", 10 },
};

static const struct word adverbs[] = {
	{ "sometimes", 1 }, { "always", 1 }, { "never", 1 },
	{ "furiously", 50 }, { "slyly", 50 }, { "carefully", 50 },
	{ "blithely", 40 }, { "quickly", 30 }, { "fluffily", 20 },
	{ "slowly", 1 }, { "quietly", 1 }, { "ruthlessly", 1 },
	{ "thinly", 1 }, { "closely", 1 }, { "doggedly", 1 },
	{ "daringly", 1 }, { "bravely", 1 }, { "stealthily", 1 },
	{ "permanently", 1 }, { "enticingly", 1 }, { "idly", 10 },
	{ "busily", 1 }, { "regularly", 1 }, { "finally", 1 },
	{ "ironically", 1 }, { "evenly", 1 }, { "boldly", 1 },
	{ "silently", 1 },
};

static const struct word prepositions[] = {
	{ "about", 50 }, { "above", 50 }, { "according to", 50 },
	{ "across", 50 }, { "after", 50 }, { "against", 40 }, { "along", 40 },
	{ "alongside of", 30 }, { "among", 30 }, { "around", 20 },
	{ "at", 10 }, { "atop", 1 }, { "before", 1 }, { "behind", 1 },
	{ "beneath", 1 }, { "beside", 1 }, { "besides", 1 }, { "between", 1 },
	{ "beyond", 1 }, { "by", 1 }, { "despite", 1 }, { "during", 1 },
	{ "except", 1 }, { "for", 1 }, { "from", 1 }, { "in place of", 1 },
	{ "inside", 1 }, { "instead of", 1 }, { "into", 1 }, { "near", 1 },
	{ "of", 1 }, { "on", 1 }, { "outside", 1 }, { "over", 1 },
	{ "past", 1 }, { "since", 1 }, { "through", 1 }, { "throughout", 1 },
	{ "to", 1 }, { "toward", 1 }, { "under", 1 }, { "until", 1 },
	{ "up", 1 }, { "upon", 1 }, { "without", 1 }, { "with", 1 },
	{ "within", 1 },
};

static const struct word auxiliaries[] = {
	{ "do", 1 }, { "may", 1 }, { "might", 1 }, { "shall", 1 },
	{ "will", 1 }, { "would", 1 }, { "can", 1 }, { "could", 1 },
	{ "should", 1 }, { "ought to", 1 }, { "must", 1 },
	{ "will have to", 1 }, { "shall have to", 1 }, { "could have to", 1 },
	{ "should have to", 1 }, { "must have to", 1 }, { "need to", 1 },
	{ "try to", 1 },
};

static const struct word terminators[] = {
	{ ".", 50 }, { ";", 1 }, { ":", 1 }, { "?", 1 }, { "!", 1 },
	{ "--", 1 },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* A word of list a drawn by weight. */
static const char *
pick(struct tg_rng *r, const struct word *a, size_t n)
{
	int total = 0, x;
	size_t k;

	for (k = 0; k < n; k++)
		total += a[k].weight;
	x = (int)tg_range(r, 0, total - 1);
	for (k = 0; x >= a[k].weight; k++)
		x -= a[k].weight;
	return a[k].text;
}

#define PICK(r, a) pick((r), (a), NELEM(a))

/* A growing sentence: p is the write position, end the pool's end;
 * words past the end are dropped. */
struct out {
	char *p, *end;
};

static void
put(struct out *o, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(o->end - o->p) < n)
		n = (size_t)(o->end - o->p);
	memcpy(o->p, s, n);
	o->p += n;
}

/* A word with the space before it (none at the pool's start). */
static void
word(struct out *o, const char *s, char *start)
{
	if (o->p != start)
		put(o, " ");
	put(o, s);
}

/* Which form of a phrase: the index of the weight x falls under. */
static int
form(struct tg_rng *r, const int *w, int n)
{
	int total = 0, x, k;

	for (k = 0; k < n; k++)
		total += w[k];
	x = (int)tg_range(r, 0, total - 1);
	for (k = 0; x >= w[k]; k++)
		x -= w[k];
	return k;
}

/* noun | adjective noun | adjective, adjective noun | adverb adjective
 * noun. */
static void
noun_phrase(struct tg_rng *r, struct out *o, char *start)
{
	static const int w[] = { 10, 20, 10, 50 };

	switch (form(r, w, 4)) {
	case 0:
		break;
	case 1:
		word(o, PICK(r, adjectives), start);
		break;
	case 2:
		word(o, PICK(r, adjectives), start);
		put(o, ",");
		word(o, PICK(r, adjectives), start);
		break;
	default:
		word(o, PICK(r, adverbs), start);
		word(o, PICK(r, adjectives), start);
		break;
	}
	word(o, PICK(r, nouns), start);
}

/* verb | auxiliary verb | verb adverb | auxiliary verb adverb. */
static void
verb_phrase(struct tg_rng *r, struct out *o, char *start)
{
	static const int w[] = { 30, 1, 40, 1 };
	int f = form(r, w, 4);

	if (f & 1)
		word(o, PICK(r, auxiliaries), start);
	word(o, PICK(r, verbs), start);
	if (f & 2)
		word(o, PICK(r, adverbs), start);
}

static void
prep_phrase(struct tg_rng *r, struct out *o, char *start)
{
	word(o, PICK(r, prepositions), start);
	word(o, "the", start);
	noun_phrase(r, o, start);
}

static void
sentence(struct tg_rng *r, struct out *o, char *start)
{
	static const int w[] = { 3, 3, 3, 1, 1 };

	switch (form(r, w, 5)) {
	case 0:
		noun_phrase(r, o, start);
		verb_phrase(r, o, start);
		break;
	case 1:
		noun_phrase(r, o, start);
		verb_phrase(r, o, start);
		prep_phrase(r, o, start);
		break;
	case 2:
		noun_phrase(r, o, start);
		verb_phrase(r, o, start);
		noun_phrase(r, o, start);
		break;
	case 3:
		noun_phrase(r, o, start);
		prep_phrase(r, o, start);
		verb_phrase(r, o, start);
		noun_phrase(r, o, start);
		break;
	default:
		noun_phrase(r, o, start);
		prep_phrase(r, o, start);
		verb_phrase(r, o, start);
		prep_phrase(r, o, start);
		break;
	}
	put(o, PICK(r, terminators));
}

char *
tg_pool_new(uint64_t seed)
{
	char *pool = core_xmalloc(TG_POOL_BYTES + TG_SLACK);
	struct tg_rng r = tg_stream(seed, 15, 0);
	struct out o = { pool, pool + TG_POOL_BYTES };

	while (o.p < o.end)
		sentence(&r, &o, pool);
	memset(pool + TG_POOL_BYTES, 0, TG_SLACK);
	return pool;
}

/*
 * tpchgen_text.c - tpchgen's random streams and the text pool every
 * comment column is cut from.
 *
 * The pool follows the grammar of TPC-H 4.2.2.14 (sentences of noun,
 * verb and prepositional phrases with their terminators) over its word
 * lists, each word drawn uniformly: the specification gives the words
 * weights, which change which words are frequent but not what a query's
 * LIKE pattern can match.  It is generated once per run (a few tens of
 * milliseconds for 8 MiB) and shared read-only by every thread.
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

static const char *const nouns[] = {
	"foxes", "ideas", "theodolites", "pinto beans", "instructions",
	"dependencies", "excuses", "platelets", "asymptotes", "courts",
	"dolphins", "multipliers", "sauternes", "warthogs", "frets", "dinos",
	"attainments", "somas", "Tiresias'", "patterns", "forges", "braids",
	"hockey players", "frays", "warhorses", "dugouts", "notornis",
	"epitaphs", "pearls", "tithes", "waters", "orbits", "gifts",
	"sheaves", "depths", "sentiments", "decoys", "realms", "pains",
	"grouches", "escapades",
};

static const char *const verbs[] = {
	"sleep", "wake", "are", "cajole", "haggle", "nag", "use", "boost",
	"affix", "detect", "integrate", "maintain", "nod", "was", "lose",
	"sublate", "solve", "thrash", "promise", "engage", "hinder", "print",
	"x-ray", "breach", "eat", "grow", "impress", "mold", "poach", "serve",
	"run", "dazzle", "snooze", "doze", "unwind", "kindle", "play", "hang",
	"believe", "doubt",
};

static const char *const adjectives[] = {
	"furious", "sly", "careful", "blithe", "quick", "fluffy", "slow",
	"quiet", "ruthless", "thin", "close", "dogged", "daring", "brave",
	"stealthy", "permanent", "enticing", "idle", "busy", "regular",
	"final", "ironic", "even", "bold", "silent",
};

static const char *const adverbs[] = {
	"sometimes", "always", "never", "furiously", "slyly", "carefully",
	"blithely", "quickly", "fluffily", "slowly", "quietly",
	"ruthlessly", "thinly", "closely", "doggedly", "daringly", "bravely",
	"stealthily", "permanently", "enticingly", "idly", "busily",
	"regularly", "finally", "ironically", "evenly", "boldly", "silently",
};

static const char *const prepositions[] = {
	"about", "above", "according to", "across", "after", "against",
	"along", "alongside of", "among", "around", "at", "atop", "before",
	"behind", "beneath", "beside", "besides", "between", "beyond", "by",
	"despite", "during", "except", "for", "from", "in place of",
	"inside", "instead of", "into", "near", "of", "on", "outside",
	"over", "past", "since", "through", "throughout", "to", "toward",
	"under", "until", "up", "upon", "without", "with", "within",
};

static const char *const auxiliaries[] = {
	"do", "may", "might", "shall", "will", "would", "can", "could",
	"should", "ought to", "must", "will have to", "shall have to",
	"could have to", "should have to", "must have to", "need to",
	"try to",
};

static const char *const terminators[] = {
	".", ";", ":", "?", "!", "--",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define PICK(r, a) ((a)[tg_range((r), 0, (int64_t)NELEM(a) - 1)])

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

static void
noun_phrase(struct tg_rng *r, struct out *o, char *start)
{
	switch (tg_range(r, 0, 3)) {
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

static void
verb_phrase(struct tg_rng *r, struct out *o, char *start)
{
	int form = (int)tg_range(r, 0, 3);

	if (form & 1)
		word(o, PICK(r, auxiliaries), start);
	word(o, PICK(r, verbs), start);
	if (form & 2)
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
	switch (tg_range(r, 0, 4)) {
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
	char *pool = core_xmalloc(TG_POOL_BYTES);
	struct tg_rng r = tg_stream(seed, 15, 0);
	struct out o = { pool, pool + TG_POOL_BYTES };

	while (o.p < o.end)
		sentence(&r, &o, pool);
	return pool;
}

/*
 * core_source.c - MLSPILL3 streams and Parquet files as one table (see
 * core_source.h).
 *
 * One input is open at a time.  An MLSPILL3 input fills the caller's
 * batch itself; a Parquet input fills a batch of the columns wanted only,
 * and the caller's batch views it, the columns not wanted left empty, so
 * that both kinds hand out batches laid out like the schema.
 *
 * Workload: a handful of inputs, each read once from start to end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core_alloc.h"
#include "core_io.h"
#include "core_mlspill3.h"
#include "core_parquet_read.h"
#include "core_prune.h"
#include "core_source.h"

enum kind { NONE, MLS, PQ };

struct core_source {
	const char *const *paths;	/* borrowed */
	size_t npaths;
	size_t next_path;		/* the next to open */
	struct core_schema *schema;	/* owned: the first input's */
	char *first_name;		/* owned */
	char **unread;			/* owned names */
	const char **unread_why;	/* static reasons */
	uint32_t nunread;
	const bool *want;		/* borrowed, or NULL */
	const struct core_prune *prune;	/* borrowed, or NULL */
	struct core_pool *pool;		/* borrowed, or NULL */
	const bool *pre_cols;		/* borrowed: the prefilter's */
	core_source_filter_fn pre_fn;
	void *pre_arg;
	bool *pb_first;			/* owned: pre_cols as pb columns */
	bool split;			/* the batches come in two steps */
	uint8_t *mask;			/* owned, BATCH_ROWS */

	enum kind kind;			/* of the open input */
	char *name;			/* owned: its message name */
	uint64_t file_rows;
	struct core_mlspill3_reader *rd;
	int pq_fd;
	struct core_parquet_file *pf;
	struct core_parquet_scan *ps;
	struct core_batch pb;		/* the Parquet scan's batch */
	uint32_t *pq_col;		/* schema column -> file column */
	int32_t *pb_col;		/* schema column -> pb column, or -1 */

	struct core_source_stats done;	/* of the inputs closed */
	int tee_fd;			/* open_tee's, or -1 */
	const char *tee_name;		/* borrowed */
};

static const char *const stdin_path[] = { "-" };

/* The schema of a Parquet file's readable columns, and the others. */
static struct core_schema *
parquet_schema(struct core_source *s, bool first)
{
	uint32_t i, n = 0, nf = core_parquet_file_ncols(s->pf);
	struct core_schema *sc;

	for (i = 0; i < nf; i++)
		n += core_parquet_file_column(s->pf, i)->supported;
	sc = core_schema_new(n);
	free(s->pq_col);
	s->pq_col = core_xmalloc((n ? n : 1) * sizeof(*s->pq_col));
	for (i = 0, n = 0; i < nf; i++) {
		const struct core_parquet_column *c =
		    core_parquet_file_column(s->pf, i);

		if (!c->supported) {
			if (first) {
				s->unread = core_xrealloc(s->unread,
				    (s->nunread + 1) * sizeof(*s->unread));
				s->unread_why = core_xrealloc(s->unread_why,
				    (s->nunread + 1) * sizeof(*s->unread_why));
				s->unread[s->nunread] = core_xstrdup(c->name);
				s->unread_why[s->nunread++] = c->why;
			}
			continue;
		}
		s->pq_col[n] = i;
		core_schema_set(sc, n++, c->name, c->type);
	}
	return sc;
}

/* Whether path is a regular file that starts like a Parquet file; *fd
 * is then open on it. */
static int
sniff_parquet(const char *path, int *fd, bool *pq, struct core_err *err)
{
	unsigned char m[4];
	struct stat st;

	*pq = false;
	*fd = -1;
	if (strcmp(path, "-") == 0)
		return 0;
	/* Only a regular file is opened here: a FIFO opened and closed
	 * again would lose its writer's first bytes, or the writer itself
	 * to SIGPIPE, before the reader opens it for good (an input that
	 * cannot be stat'ed is the reader's to report). */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return core_err_errno(err, CORE_EIO, errno, "%s", path);
	if (fstat(*fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    core_pread_full(*fd, m, 4, 0) == 4 &&
	    memcmp(m, "PAR1", 4) == 0) {
		*pq = true;
		return 0;
	}
	close(*fd);
	*fd = -1;
	return 0;
}

/* The first difference between the first input's schema and b's. */
static int
mismatch(const struct core_source *s, const struct core_schema *b,
    struct core_err *err)
{
	const struct core_schema *a = s->schema;
	char ta[CORE_TYPE_NAME_MAX], tb[CORE_TYPE_NAME_MAX];
	uint32_t i;

	for (i = 0; i < a->ncols && i < b->ncols; i++)
		if (strcmp(a->fields[i].name, b->fields[i].name) != 0 ||
		    !core_type_equal(a->fields[i].type, b->fields[i].type))
			return core_err_set(err, CORE_EDATA, "%s: its columns "
			    "differ from %s's: column %u is %s %s here, %s %s "
			    "there", s->name, s->first_name, i + 1,
			    b->fields[i].name,
			    core_type_name(b->fields[i].type, tb),
			    a->fields[i].name,
			    core_type_name(a->fields[i].type, ta));
	return core_err_set(err, CORE_EDATA, "%s: its columns differ from "
	    "%s's: %u columns here, %u there", s->name, s->first_name,
	    b->ncols, a->ncols);
}

static void
close_input(struct core_source *s)
{
	struct core_source_stats st;

	core_source_stats(s, &st);
	s->done = st;
	core_mlspill3_reader_free(s->rd);
	s->rd = NULL;
	core_parquet_scan_free(s->ps);
	s->ps = NULL;
	core_parquet_file_free(s->pf);
	s->pf = NULL;
	if (s->pq_fd >= 0)
		close(s->pq_fd);
	s->pq_fd = -1;
	/* pb owns its buffers; the caller's batch only viewed them. */
	core_batch_release(&s->pb);
	memset(&s->pb, 0, sizeof(s->pb));
	s->kind = NONE;
}

static int
open_input(struct core_source *s, struct core_err *err)
{
	const char *const *p = &s->paths[s->next_path++];
	struct core_schema *sc = NULL;
	bool pq, first = s->schema == NULL;
	int rc;

	free(s->name);
	s->name = core_xstrdup(strcmp(*p, "-") == 0 ? "stdin" : *p);
	s->file_rows = 0;
	s->done.inputs++;
	if ((rc = sniff_parquet(*p, &s->pq_fd, &pq, err)) != 0)
		return rc;
	if (pq) {
		if ((rc = core_parquet_file_open_fd(s->pq_fd, *p, &s->pf,
		    err)) != 0)
			return rc;
		s->kind = PQ;
		sc = parquet_schema(s, first);
	} else {
		rc = s->tee_fd >= 0 ? core_mlspill3_reader_new_tee(*p,
		    s->tee_fd, s->tee_name, &s->rd, err) :
		    core_mlspill3_reader_new(p, 1, &s->rd, err);
		if (rc != 0)
			return rc;
		s->kind = MLS;
		sc = core_schema_clone(core_mlspill3_reader_schema(s->rd));
		core_mlspill3_reader_want(s->rd, s->want);
	}
	if (first) {
		s->schema = sc;
		s->first_name = core_xstrdup(s->name);
		return 0;
	}
	rc = core_schema_equal(s->schema, sc) ? 0 : mismatch(s, sc, err);
	core_schema_free(sc);
	return rc;
}

static int
source_open(const char *const *paths, size_t npaths, int tee_fd,
    const char *tee_name, struct core_source **out, struct core_err *err)
{
	struct core_source *s = core_xcalloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	s->paths = npaths ? paths : stdin_path;
	s->npaths = npaths ? npaths : 1;
	s->pq_fd = -1;
	s->tee_fd = tee_fd;
	s->tee_name = tee_name;
	if ((rc = open_input(s, err)) != 0) {
		core_source_free(s);
		return rc;
	}
	s->pb_col = core_xmalloc((s->schema->ncols ? s->schema->ncols : 1) *
	    sizeof(*s->pb_col));
	*out = s;
	return 0;
}

int
core_source_open(const char *const *paths, size_t npaths,
    struct core_source **out, struct core_err *err)
{
	return source_open(paths, npaths, -1, NULL, out, err);
}

int
core_source_open_tee(const char *const *path, int tee_fd,
    const char *tee_name, struct core_source **out, struct core_err *err)
{
	return source_open(path, 1, tee_fd, tee_name, out, err);
}

void
core_source_free(struct core_source *s)
{
	uint32_t i;

	if (s == NULL)
		return;
	close_input(s);
	for (i = 0; i < s->nunread; i++)
		free(s->unread[i]);
	free(s->unread);
	free(s->unread_why);
	core_schema_free(s->schema);
	free(s->first_name);
	free(s->name);
	free(s->pq_col);
	free(s->pb_col);
	free(s->pb_first);
	free(s->mask);
	free(s);
}

const struct core_schema *
core_source_schema(const struct core_source *s)
{
	return s->schema;
}

uint32_t
core_source_nunreadable(const struct core_source *s)
{
	return s->nunread;
}

const char *
core_source_unreadable(const struct core_source *s, uint32_t i,
    const char **why)
{
	*why = s->unread_why[i];
	return s->unread[i];
}

void
core_source_want(struct core_source *s, const bool *want)
{
	s->want = want;
	if (s->rd != NULL)
		core_mlspill3_reader_want(s->rd, want);
}

void
core_source_prefilter(struct core_source *s, const bool *cols,
    core_source_filter_fn fn, void *arg)
{
	s->pre_cols = cols;
	s->pre_fn = fn;
	s->pre_arg = arg;
}

void
core_source_pool(struct core_source *s, struct core_pool *pool)
{
	s->pool = pool;
}

void
core_source_prune(struct core_source *s, const struct core_prune *p)
{
	s->prune = p;
}

/* The row groups of the open Parquet file no row of which can pass. */
static void
parquet_skip(struct core_source *s)
{
	uint32_t rg, i, nrg = core_parquet_file_nrow_groups(s->pf);
	uint32_t ncols = s->schema->ncols;
	const bool *cols = core_prune_columns(s->prune);
	struct core_colstats *st;
	bool *skip, any = false;

	st = core_xcalloc(ncols ? ncols : 1, sizeof(*st));
	skip = core_xcalloc(nrg ? nrg : 1, 1);
	for (rg = 0; rg < nrg; rg++) {
		for (i = 0; i < ncols; i++)
			if (cols[i])
				(void)core_parquet_file_colstats(s->pf, rg,
				    s->pq_col[i], &st[i]);
		skip[rg] = !core_prune_may_match(s->prune, st);
		any |= skip[rg];
	}
	if (any)
		core_parquet_scan_skip(s->ps, skip);
	free(skip);
	free(st);
}

/* Starts the Parquet scan of the wanted columns. */
static int
parquet_start(struct core_source *s, struct core_err *err)
{
	uint32_t i, n = 0, ncols = s->schema->ncols;
	uint32_t *cols = core_xmalloc((ncols ? ncols : 1) * sizeof(*cols));
	int rc;

	uint32_t nfirst = 0;

	free(s->pb_first);
	s->pb_first = core_xcalloc(ncols ? ncols : 1, 1);
	for (i = 0; i < ncols; i++) {
		s->pb_col[i] = -1;
		if (s->want == NULL || s->want[i]) {
			if (s->pre_fn != NULL && s->pre_cols[i]) {
				s->pb_first[n] = true;
				nfirst++;
			}
			s->pb_col[i] = (int32_t)n;
			cols[n++] = s->pq_col[i];
		}
	}
	/* Two steps pay only when some column is not the filter's. */
	s->split = s->pre_fn != NULL && nfirst > 0 && nfirst < n;
	if (s->split && s->mask == NULL)
		s->mask = core_xmalloc(CORE_PARQUET_READ_BATCH_ROWS);
	rc = core_parquet_scan_new(s->pf, cols, n, &s->ps, err);
	free(cols);
	if (rc == 0) {
		core_batch_init(&s->pb, core_parquet_scan_schema(s->ps));
		core_parquet_scan_pool(s->ps, s->pool);
		if (s->prune != NULL) {
			parquet_skip(s);
			core_parquet_scan_prune(s->ps, s->prune, s->pq_col,
			    s->schema->ncols);
		}
	}
	return rc;
}

/* The Parquet batch as a batch of the schema. */
static void
parquet_fill(struct core_source *s, struct core_batch *b)
{
	uint32_t i;

	for (i = 0; i < b->ncols; i++) {
		struct core_column *c = &b->cols[i];

		if (s->pb_col[i] >= 0) {
			core_col_view(c, &s->pb.cols[s->pb_col[i]]);
			continue;
		}
		if (c->values_cap)
			core_free_aligned(c->values);
		if (c->offsets_cap)
			core_free_aligned(c->offsets);
		c->values_cap = c->offsets_cap = 0;
		c->validity = NULL;
		c->values = NULL;
		c->offsets = NULL;
	}
	b->nrows = s->pb.nrows;
}

int
core_source_next(struct core_source *s, struct core_batch *b,
    struct core_err *err)
{
	int rc;

	for (;;) {
		if (s->kind == NONE) {
			if (s->next_path >= s->npaths)
				return CORE_EOF;
			if ((rc = open_input(s, err)) != 0)
				return rc;
		}
		if (s->kind == MLS) {
			rc = core_mlspill3_reader_next(s->rd, b, err);
			if (rc == 0)
				s->file_rows =
				    core_mlspill3_reader_file_rows(s->rd);
		} else {
			if (s->ps == NULL &&
			    (rc = parquet_start(s, err)) != 0)
				return rc;
			if (!s->split) {
				rc = core_parquet_scan_next(s->ps, &s->pb,
				    err);
			} else if ((rc = core_parquet_scan_next_cols(s->ps,
			    &s->pb, s->pb_first, err)) == 0) {
				parquet_fill(s, b);
				if ((rc = s->pre_fn(s->pre_arg, b, s->mask,
				    err)) == 0)
					rc = core_parquet_scan_next_rest(s->ps,
					    &s->pb, s->mask, err);
			}
			if (rc == 0) {
				parquet_fill(s, b);
				s->file_rows += b->nrows;
			}
		}
		if (rc != CORE_EOF)
			return rc;
		close_input(s);
	}
}

int
core_source_next_raw(struct core_source *s, struct core_batch *b,
    bool *raw, const void **p, size_t *len, uint32_t *nrows,
    struct core_err *err)
{
	int rc;

	*raw = false;
	for (;;) {
		if (s->kind == NONE) {
			if (s->next_path >= s->npaths)
				return CORE_EOF;
			if ((rc = open_input(s, err)) != 0)
				return rc;
		}
		if (s->kind == PQ)
			return core_source_next(s, b, err);
		rc = core_mlspill3_reader_next_raw(s->rd, p, len, nrows, err);
		if (rc == 0) {
			s->file_rows = core_mlspill3_reader_file_rows(s->rd);
			*raw = true;
			return 0;
		}
		if (rc != CORE_EOF)
			return rc;
		close_input(s);
	}
}

int
core_source_count(struct core_source *s, uint64_t stop, uint64_t *rows,
    struct core_err *err)
{
	struct core_batch b;
	int rc = 0;

	*rows = 0;
	core_batch_init(&b, s->schema);
	while (*rows < stop) {
		if (s->kind == NONE) {
			if (s->next_path >= s->npaths)
				break;
			if ((rc = open_input(s, err)) != 0)
				break;
		}
		if (s->kind == PQ && s->ps == NULL) {
			/* The footer knows. */
			s->file_rows = core_parquet_file_nrows(s->pf);
			*rows += s->file_rows;
			close_input(s);
			continue;
		}
		if (s->kind == PQ) {
			rc = core_parquet_scan_next(s->ps, &s->pb, err);
			if (rc == 0)
				s->file_rows += s->pb.nrows;
			b.nrows = s->pb.nrows;
		} else {
			core_mlspill3_reader_count_only(s->rd);
			rc = core_mlspill3_reader_next(s->rd, &b, err);
			if (rc == 0)
				s->file_rows =
				    core_mlspill3_reader_file_rows(s->rd);
		}
		if (rc == CORE_EOF) {
			close_input(s);
			rc = 0;
			continue;
		}
		if (rc != 0)
			break;
		*rows += b.nrows;
	}
	core_batch_release(&b);
	return rc;
}

const char *
core_source_name(const struct core_source *s)
{
	return s->name;
}

uint64_t
core_source_file_rows(const struct core_source *s)
{
	return s->file_rows;
}

void
core_source_stats(const struct core_source *s, struct core_source_stats *st)
{
	*st = s->done;
	if (s->rd != NULL) {
		struct core_mlspill3_stats m;

		core_mlspill3_reader_stats(s->rd, &m);
		st->rows += m.rows;
		st->bytes += m.bytes;
		st->frames += m.frames;
	} else if (s->pf != NULL) {
		st->rows += s->file_rows;
		if (s->ps != NULL) {
			struct core_parquet_scan_stats p;

			core_parquet_scan_stats(s->ps, &p);
			st->bytes += p.bytes;
			st->row_groups += p.row_groups;
			st->row_groups_skipped += p.row_groups_skipped;
			st->pages += p.pages;
			st->pages_skipped += p.pages_skipped;
		}
	}
}

/*
 * core_version.c - release number and build id (core_version.h).
 *
 * Only this file is compiled with the build's id, so that a new commit
 * recompiles it and relinks instead of rebuilding the tree.
 */
#include "core_version.h"

#ifndef COLPIPE_VERSION
#error "COLPIPE_VERSION is set by the GNUmakefile"
#endif
#ifndef COLPIPE_BUILD
#define COLPIPE_BUILD "unknown"
#endif
#ifndef COLPIPE_MODE
#define COLPIPE_MODE "unknown"
#endif

const char *
core_version(void)
{
	return COLPIPE_VERSION;
}

const char *
core_build_id(void)
{
	return COLPIPE_BUILD;
}

const char *
core_build_mode(void)
{
	return COLPIPE_MODE;
}

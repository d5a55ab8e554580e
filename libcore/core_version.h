/*
 * core_version.h - the one place the release number and the build come
 * from: every tool's --version and the created_by of every Parquet file.
 *
 * The GNUmakefile sets them when it compiles core_version.c alone (so a
 * commit recompiles one file): VERSION, the commit the tree was built
 * from ("-dirty" when the sources differ from it) and the build mode.
 */
#ifndef CORE_VERSION_H
#define CORE_VERSION_H

/* The release number, e.g. "0.1.0". */
const char *core_version(void);

/* The commit id of the build, "<id>-dirty", or "unknown" outside git. */
const char *core_build_id(void);

/* "release", "debug" or "asan". */
const char *core_build_mode(void);

#endif

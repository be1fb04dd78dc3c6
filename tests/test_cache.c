/* smtop's cache of what reading computes (db/cache.c): files used lately
 * stay, files unused for DB_CACHE_KEEP_S go when another cache is made, and
 * nothing else in the folder is touched. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db/cache.h"

#define DAY (24 * 3600)

static char dir[] = "/tmp/smtop-cache-test.XXXXXX";

static void setup(void)
{
	char cache[PATH_MAX];

	cr_assert_not_null(mkdtemp(dir));
	setenv("XDG_CACHE_HOME", dir, 1);
	snprintf(cache, sizeof cache, "%s/smtop", dir);
	cr_assert_eq(mkdir(cache, 0700), 0);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(cache, .init = setup, .fini = teardown);

/* dir/smtop/name, last modified `age` seconds ago. */
static void file_aged(const char *name, long age)
{
	char path[PATH_MAX];
	struct timespec t[2];
	FILE *f;

	snprintf(path, sizeof path, "%s/smtop/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("x", f);
	fclose(f);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age;
	t[1] = t[0];
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
}

static int exists(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/smtop/%s", dir, name);
	return access(path, F_OK) == 0;
}

Test(cache, files_unused_past_the_keep_go_and_nothing_else)
{
	char cache[PATH_MAX];

	snprintf(cache, sizeof cache, "%s/smtop", dir);
	file_aged("00000000000000aa.smtop-cache", 40 * DAY);
	file_aged("00000000000000bb.smtop-cache", 2 * DAY);
	file_aged("00000000000000cc.smtop-cache.4242.tmp", 40 * DAY);
	file_aged("notes.txt", 40 * DAY);
	file_aged("old.smtop", 40 * DAY);
	db_cache_prune(cache, DB_CACHE_KEEP_S);
	cr_expect_not(exists("00000000000000aa.smtop-cache"), "unused for 40 days");
	cr_expect(exists("00000000000000bb.smtop-cache"), "used 2 days ago");
	cr_expect_not(exists("00000000000000cc.smtop-cache.4242.tmp"), "a half-made one left behind");
	cr_expect(exists("notes.txt"), "not the cache's");
	cr_expect(exists("old.smtop"), "a session is never the cache's");
}

Test(cache, a_cache_in_use_is_kept_and_a_new_one_lets_old_ones_go)
{
	char session[PATH_MAX], cache[PATH_MAX], again[PATH_MAX], err[256];
	const char *name;
	struct stat sb;
	FILE *f;

	snprintf(session, sizeof session, "%s/a.smtop", dir);
	f = fopen(session, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(db_cache_prepare(session, cache, sizeof cache, err, sizeof err), 0, "%s", err);
	name = strrchr(cache, '/') + 1;
	/* unused for 40 days, then read: its age starts again */
	file_aged(name, 40 * DAY);
	cr_assert_eq(db_cache_path(session, again, sizeof again), 0);
	cr_expect_str_eq(again, cache, "the same session, the same cache");
	cr_assert_eq(stat(cache, &sb), 0);
	cr_expect_lt(time(NULL) - sb.st_mtime, DAY, "its use was noted");
	/* another unused for 40 days goes once a new cache is made */
	file_aged("00000000000000aa.smtop-cache", 40 * DAY);
	snprintf(session, sizeof session, "%s/b.smtop", dir);
	f = fopen(session, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(db_cache_prepare(session, again, sizeof again, err, sizeof err), 0, "%s", err);
	cr_expect_not(exists("00000000000000aa.smtop-cache"));
	cr_expect(exists(name), "the one in use stays");
	cr_expect_str_neq(again, cache, "each session has its own");
}

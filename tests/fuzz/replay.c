/* A main for the fuzz harnesses without libFuzzer (any compiler, e.g. gcc
 * with -fsanitize=address,undefined): runs LLVMFuzzerTestOneInput once on
 * each file given and on each file in each folder given, so the test suite
 * replays seeds and regression inputs everywhere. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *p = realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!p) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = p;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of a folder in name order, so runs are reproducible. */
static int run_dir(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **p = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);

			if (!p)
				break;
			names = p;
		}
		names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!names[n])
			break;
		sprintf(names[n++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, name_cmp);
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		if (stat(names[i], &sb) == 0 && S_ISREG(sb.st_mode)) {
			rc |= run_file(names[i]);
			++*count;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		struct stat sb;

		if (argv[i][0] == '-')
			continue; /* libFuzzer options, for the same command lines */
		if (stat(argv[i], &sb) != 0) {
			fprintf(stderr, "replay: no such input %s\n", argv[i]);
			rc = 1;
		} else if (S_ISDIR(sb.st_mode)) {
			rc |= run_dir(argv[i], &count) != 0;
		} else {
			rc |= run_file(argv[i]) != 0;
			count++;
		}
	}
	printf("%s: %zu inputs replayed\n", argv[0], count);
	return rc;
}

/*
 * The floor for a verifier that reads with read(2): pread every file named on stdin (one per
 * line) in 1 MB units into a per-thread buffer, on THREADS threads taking units in turn, and
 * do nothing else. bench/run.sh times it beside pgpage and pg_checksums.
 * Usage: read_floor THREADS < FILE_LIST
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define UNIT (1 << 20)

struct unit { int fd; off_t off; };
static struct unit *units;
static size_t nunits;
static atomic_size_t next_unit;
static atomic_llong total;

static void *
reader(void *arg)
{
	char	   *buf = aligned_alloc(4096, UNIT);
	long long	got = 0;
	size_t		i;

	(void) arg;
	while ((i = atomic_fetch_add(&next_unit, 1)) < nunits)
	{
		ssize_t		n = pread(units[i].fd, buf, UNIT, units[i].off);

		if (n > 0)
			got += n;
	}
	atomic_fetch_add(&total, got);
	free(buf);
	return NULL;
}

int
main(int argc, char **argv)
{
	int			threads = argc > 1 ? atoi(argv[1]) : 1;
	char		line[4096];
	size_t		cap = 1024;
	pthread_t  *tids;

	units = malloc(cap * sizeof *units);
	while (fgets(line, sizeof line, stdin))
	{
		struct stat st;
		int			fd;

		line[strcspn(line, "\n")] = 0;
		fd = open(line, O_RDONLY);
		if (fd < 0 || fstat(fd, &st) != 0)
			continue;
		for (off_t off = 0; off < st.st_size; off += UNIT)
		{
			if (nunits == cap)
				units = realloc(units, (cap *= 2) * sizeof *units);
			units[nunits++] = (struct unit) {fd, off};
		}
	}
	if (threads < 1)
		threads = 1;
	tids = malloc(threads * sizeof *tids);
	for (int t = 0; t < threads; t++)
		pthread_create(&tids[t], NULL, reader, NULL);
	for (int t = 0; t < threads; t++)
		pthread_join(tids[t], NULL);
	fprintf(stderr, "read %lld bytes\n", (long long) atomic_load(&total));
	return 0;
}

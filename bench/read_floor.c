/*
 * The floor for a verifier that reads with read(2): pread every file named on stdin (one per
 * line) in 1 MB units into a per-thread buffer, on THREADS threads taking units in turn, and
 * do nothing else. bench/run.sh times it beside pgpage and pg_checksums. With "touch", each
 * unit's bytes are also read once after the pread (XORed into a sink), as a verifier must
 * read them to checksum them: the floor for any verifier that reads with read(2).
 * Usage: read_floor THREADS [touch] < FILE_LIST
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
static int	touch;
static atomic_ullong sink;

/* One pass over n bytes, four independent XOR chains so it runs at memory speed. */
static unsigned long long
xor_pass(const unsigned long long *p, size_t n)
{
	unsigned long long a = 0, b = 0, c = 0, d = 0;

	for (size_t i = 0; i + 4 <= n / 8; i += 4)
	{
		a ^= p[i];
		b ^= p[i + 1];
		c ^= p[i + 2];
		d ^= p[i + 3];
	}
	return a ^ b ^ c ^ d;
}

static void *
reader(void *arg)
{
	char	   *buf = aligned_alloc(4096, UNIT);
	long long	got = 0;
	unsigned long long x = 0;
	size_t		i;

	(void) arg;
	while ((i = atomic_fetch_add(&next_unit, 1)) < nunits)
	{
		ssize_t		n = pread(units[i].fd, buf, UNIT, units[i].off);

		if (n > 0)
		{
			got += n;
			if (touch)
				x ^= xor_pass((const unsigned long long *) buf, (size_t) n);
		}
	}
	atomic_fetch_add(&total, got);
	atomic_fetch_xor(&sink, x);
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

	touch = argc > 2 && strcmp(argv[2], "touch") == 0;
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
	fprintf(stderr, "read %lld bytes (xor %llx)\n", (long long) atomic_load(&total), (unsigned long long) atomic_load(&sink));
	return 0;
}

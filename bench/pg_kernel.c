/*
 * Kernel benchmark of PostgreSQL's own page checksum: the installed
 * storage/checksum_impl.h (postgresql-server-dev-15), included as pg_checksums.c does,
 * compiled by bench/run.sh once with Debian's flags and once with -O3 -march=native.
 *
 * Usage: pg_kernel LABEL SECONDS PAGES [ROUNDS]
 * Checksums PAGES random 8 KB pages (kept in cache) over and over for SECONDS per round,
 * ROUNDS rounds (default 7), and prints "LABEL<TAB>best GB/s<TAB>median GB/s<TAB>check", where
 * check is the xor of pg_checksum_page(page i, block i) over the pages: every body given the
 * same pages must print the same check. Mirrors crates/pgpage/examples/kernel_bench.rs.
 *
 * With KERNEL_PASSES=N in the environment it instead makes exactly N passes over the pages,
 * untimed, for counting cycles with perf stat (bench/run.sh subtracts a short run's count).
 */
#include "postgres.h"
#include "storage/checksum.h"
#include "storage/checksum_impl.h"

/* port.h routes these to libpgport; the harness needs only libc's. */
#undef printf
#undef fprintf
#undef qsort

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_ROUNDS 100

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	const char *label;
	double		seconds;
	long		npages;
	char	   *pages;
	uint64		state = 0x9E3779B97F4A7C15ULL;
	uint32		sink = 0;
	uint32		check = 0;
	double		gbps[MAX_ROUNDS];
	int			rounds = 7;

	if (argc != 4 && argc != 5)
	{
		fprintf(stderr, "usage: %s LABEL SECONDS PAGES [ROUNDS]\n", argv[0]);
		return 2;
	}
	label = argv[1];
	seconds = atof(argv[2]);
	npages = atol(argv[3]);
	if (argc == 5)
		rounds = atoi(argv[4]);
	if (npages < 1 || seconds <= 0 || rounds < 1 || rounds > MAX_ROUNDS)
		return 2;
	pages = aligned_alloc(4096, (size_t) npages * BLCKSZ);
	if (pages == NULL)
		return 2;
	for (long i = 0; i < npages * BLCKSZ; i++)
	{
		/* xorshift64*, the same stream kernel_bench.rs fills its pages with */
		state ^= state >> 12;
		state ^= state << 25;
		state ^= state >> 27;
		pages[i] = (char) ((state * 0x2545F4914F6CDD1DULL) >> 56);
	}

	for (long i = 0; i < npages; i++)
		check ^= pg_checksum_page(pages + i * BLCKSZ, (BlockNumber) i);
	if (getenv("KERNEL_PASSES") != NULL)
	{
		long		passes = atol(getenv("KERNEL_PASSES"));

		for (long p = 0; p < passes; p++)
			for (long i = 0; i < npages; i++)
				sink ^= pg_checksum_page(pages + i * BLCKSZ, (BlockNumber) (p + i));
		fprintf(stderr, "%u\n", sink);
		printf("%s\t%u\n", label, check);
		free(pages);
		return 0;
	}
	for (int r = 0; r < rounds; r++)
	{
		double		start = now(),
					elapsed;
		long		done = 0;

		do
		{
			for (long i = 0; i < npages; i++)
				sink ^= pg_checksum_page(pages + i * BLCKSZ, (BlockNumber) (done + i));
			done += npages;
			elapsed = now() - start;
		} while (elapsed < seconds);
		gbps[r] = (double) done * BLCKSZ / elapsed / 1e9;
	}
	qsort(gbps, rounds, sizeof(double), cmp_double);
	/* sink is printed to stderr only so that the timed work cannot be dropped */
	fprintf(stderr, "%u\n", sink);
	printf("%s\t%.2f\t%.2f\t%u\n", label, gbps[rounds - 1], gbps[rounds / 2], check);
	free(pages);
	return 0;
}

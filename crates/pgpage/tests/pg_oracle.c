/*
 * PostgreSQL's own checksum, as an oracle for tests/pg_oracle.rs: the installed
 * storage/checksum_impl.h, compiled with the block size given as -DORACLE_BLCKSZ.
 * checksum_impl.h sizes everything by BLCKSZ, which pg_config.h (through postgres.h) fixes
 * at 8192; pg_config.h has an include guard, so redefining BLCKSZ after it and before
 * checksum_impl.h gives the server's code for that block size, as --with-blocksize would.
 *
 * stdin: records of a little-endian u32 block number followed by one page.
 * stdout: per record, pg_checksum_block's fold as a little-endian u32 (pd_checksum zeroed,
 * as pg_checksum_page does), then pg_checksum_page's u16, little-endian.
 */
#include "postgres.h"

#undef BLCKSZ
#define BLCKSZ ORACLE_BLCKSZ

#include "storage/checksum_impl.h"

#include <stdio.h>

int
main(void)
{
	static union
	{
		PGChecksummablePage page;
		char		bytes[BLCKSZ];
	}			buf;
	uint8		blk[4];

	StaticAssertStmt(sizeof(PGChecksummablePage) == BLCKSZ, "page size");
	while (fread(blk, 1, 4, stdin) == 4)
	{
		BlockNumber blkno = blk[0] | blk[1] << 8 | blk[2] << 16 | (uint32) blk[3] << 24;
		uint16		saved;
		uint32		fold;
		uint16		checksum;
		uint8		out[6];

		if (fread(buf.bytes, 1, BLCKSZ, stdin) != BLCKSZ)
			return 2;
		checksum = pg_checksum_page(buf.bytes, blkno);
		saved = buf.page.phdr.pd_checksum;
		buf.page.phdr.pd_checksum = 0;
		fold = pg_checksum_block(&buf.page);
		buf.page.phdr.pd_checksum = saved;
		for (int i = 0; i < 4; i++)
			out[i] = (uint8) (fold >> (8 * i));
		out[4] = (uint8) checksum;
		out[5] = (uint8) (checksum >> 8);
		if (fwrite(out, 1, 6, stdout) != 6)
			return 3;
	}
	return 0;
}

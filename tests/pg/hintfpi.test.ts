// What the playground's corruption lesson teaches about WAL images, held on a real PostgreSQL
// 16 with data checksums: a page whose checksum fails, read once with ignore_checksum_failure,
// gets hint bits set, and that first change since the checkpoint is WAL-logged as an
// XLOG/FPI_FOR_HINT image holding the damaged bytes. So the newest WAL image of the block is
// the damage, and only an image from before the flip can show the page as it was.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Cluster } from './cluster';

const BLCKSZ = 8192;

let c: Cluster;
beforeAll(() => {
  c = Cluster.create('pgpage-hintfpi', 16);
});
afterAll(() => c?.destroy());

test('the hint-bit write of a read past a checksum failure logs an image of the damaged page', () => {
  c.sql(`create extension pg_walinspect;
    create table victim (id int, v text);
    insert into victim select g, 'row ' || g from generate_series(1, 20) g;
    checkpoint;`);
  const path = c.relationPath('victim');
  c.stop();
  // Row 1's tuple: its text's last byte ('1' -> '0').
  const bytes = readFileSync(path);
  const lp = bytes.readUInt32LE(24);
  const last = (lp & 0x7fff) + (lp >>> 17) - 1;
  expect(String.fromCharCode(bytes[last])).toBe('1');
  bytes[last] ^= 1;
  writeFileSync(path, bytes);
  c.start();

  const start = c.sql('select pg_current_wal_insert_lsn();').trim();
  const read = c.sql(`set ignore_checksum_failure = on; select v from victim where id = 1;`).trim();
  expect(read).toBe('row 0');
  // The playground's checkpoint after the statement; it also flushes the WAL read below.
  c.sql('checkpoint;');
  const end = c.sql('select pg_current_wal_insert_lsn();').trim();
  const images = c.rows<{ rec: string; data: string }>(
    `select resource_manager || '/' || record_type as rec, encode(block_fpi_data, 'hex') as data
       from pg_get_wal_block_info('${start}', '${end}', true)
      where relfilenode = pg_relation_filenode('victim') and relforknumber = 0 and relblocknumber = 0 and block_fpi_length > 0`,
  );
  expect(images.map((i) => i.rec)).toEqual(['XLOG/FPI_FOR_HINT']);
  const image = Buffer.from(images[0].data, 'hex');
  // The image holds the damaged value.
  expect(image.includes(Buffer.from('row 0'))).toBe(true);
  expect(image.length).toBeLessThanOrEqual(BLCKSZ);
});

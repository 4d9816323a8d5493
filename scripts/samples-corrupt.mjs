// The corrupted copies of the sample heap (scripts/make-samples.sh): each changes one thing a
// real failure changes, and changes.json says exactly which bytes, for the app's tour.
//   node scripts/samples-corrupt.mjs OUTDIR HEAP_FILE CHANGES_JSON
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [out, heapName, changesPath] = process.argv.slice(2);
const BLCKSZ = 8192;
const heap = readFileSync(join(out, heapName));
if (heap.length < 3 * BLCKSZ) throw new Error(`the sample heap has ${heap.length / BLCKSZ} pages; the corruptions need 3`);
const copy = () => Buffer.from(heap);
const u16 = (b, off) => b.readUInt16LE(off);

// One bit of a tuple's text in block 1: the first tuple at pd_upper, past its header (t_hoff)
// and the two ints, inside the `pad` string of 'p's (so the ASCII column shows 'p' -> 'q').
const flipped = copy();
const upper = u16(flipped, BLCKSZ + 14);
const tHoff = flipped[BLCKSZ + upper + 22];
const flipOff = upper + tHoff + 8 + 1 + 3;
if (flipped[BLCKSZ + flipOff] !== 0x70) throw new Error(`expected a 'p' at block 1 offset ${flipOff}`);
flipped[BLCKSZ + flipOff] ^= 0x01;
writeFileSync(join(out, '90001'), flipped);

// A page of zeros, as an extension the server never wrote out leaves it.
const zeroed = copy();
zeroed.fill(0, 2 * BLCKSZ, 3 * BLCKSZ);
writeFileSync(join(out, '90002'), zeroed);

// Only pd_upper (bytes 14-15) zeroed: PageIsNew() says "new" but the page is not all zeros.
const upperZeroed = copy();
upperZeroed.writeUInt16LE(0, BLCKSZ + 14);
writeFileSync(join(out, '90003'), upperZeroed);

// Blocks 1 and 2 swapped: each page is intact, at the wrong block number.
const swapped = copy();
heap.copy(swapped, BLCKSZ, 2 * BLCKSZ, 3 * BLCKSZ);
heap.copy(swapped, 2 * BLCKSZ, BLCKSZ, 2 * BLCKSZ);
writeFileSync(join(out, '90004'), swapped);

// The same bytes as segment 2: block b becomes relation block 2 * 131072 + b.
writeFileSync(join(out, `${heapName}.2`), heap);

const changes = {
  flipped_bit: { block: 1, offset: flipOff, length: 1, what: `bit 0 of the byte at offset ${flipOff} of block 1 flipped: 'p' (0x70) became 'q' (0x71)` },
  zeroed_page: { block: 2, offset: 0, length: BLCKSZ, what: 'block 2 overwritten with zeros' },
  upper_zeroed: { block: 1, offset: 14, length: 2, what: `pd_upper of block 1 set from ${upper} to 0` },
  swapped_pages: { block: 1, offset: 0, length: 2 * BLCKSZ, what: 'blocks 1 and 2 swapped' },
  segment_2: { block: 0, offset: 0, length: 0, what: `the bytes of ${heapName}, named ${heapName}.2` },
};
writeFileSync(changesPath, JSON.stringify(changes));

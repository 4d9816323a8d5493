// `pgpage verify --json --all`'s pages of one file, made from the wasm bindings the browser
// calls: statuses and checksums from `verify`, the verdict (claims, candidates, findings)
// from the core's FileScanJs. Node tests hold it against the CLI and the server.
type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');

export interface CliPage {
  block: number;
  absolute_block: number;
  status: string;
  stored: number;
  computed: number | null;
  matches_block?: number;
  matches_segment?: number;
  candidate?: { block: number; matches: number; searched: number; expected_chance_matches: number; chance_probability: number };
  findings?: string[];
}

export interface CliFile {
  segment: number;
  block_size: number;
  blocks: number;
  trailing_bytes: number;
  pages: CliPage[];
}

/** Every page of `bytes`, segment `segno`, geometry detected, checksums as the file says. */
export function cliFile(w: Wasm, bytes: Uint8Array, segno: number, path: string): CliFile {
  const names = w.status_names();
  const findings = (JSON.parse(w.findings_table()) as { code: string }[]).map((f) => f.code);
  const scan = new w.FileScanJs(bytes.subarray(0, w.detect_head_bytes()), bytes.length, segno, 0, '', true);
  const g = JSON.parse(scan.geometry()) as { block_size: number; endian: string };
  const first = scan.first_absolute_block;
  const perSegment = (1 << 30) / g.block_size;
  scan.chunk(bytes, 0);
  const v = scan.finish(0, path);
  const chance = (JSON.parse(v.json) as { chance: { searched: number; expected: number; probability: number } | null }).chance;
  const all = w.verify(bytes.subarray(0, scan.blocks * g.block_size), first, g.block_size, g.endian === 'big');
  const pages: CliPage[] = Array.from(all.status, (code, block) => {
    const status = names[code];
    const plain = status === 'zero' || status === 'new_not_zero';
    return { block, absolute_block: (first + block) >>> 0, status, stored: all.stored[block], computed: plain ? null : all.computed[block] };
  });
  all.free();
  const [start, codes] = [v.finding_start, v.finding_codes];
  Array.from(v.block, (block, i) => {
    const p = pages[block];
    p.status = names[v.status[i]];
    p.stored = v.stored[i];
    const plain = p.status === 'zero' || p.status === 'new_not_zero' || v.computed[i] === 0;
    p.computed = plain ? null : v.computed[i];
    const m = v.misplaced_block[i];
    if (v.misplaced_kind[i] === 1) {
      p.matches_block = m % perSegment;
      if (Math.floor(m / perSegment) !== segno) p.matches_segment = Math.floor(m / perSegment);
    } else if (v.misplaced_kind[i] === 2 && chance) {
      p.candidate = {
        block: (m - first) >>> 0,
        matches: v.misplaced_matches[i],
        searched: chance.searched,
        expected_chance_matches: chance.expected,
        chance_probability: chance.probability,
      };
    }
    const mine = Array.from(codes.subarray(start[i], start[i + 1]), (c) => findings[c]);
    if (mine.length > 0) p.findings = mine;
  });
  const out = { segment: segno, block_size: g.block_size, blocks: scan.blocks, trailing_bytes: scan.trailing_bytes, pages };
  v.free();
  scan.free();
  return out;
}

// The report panel's own wording and order over the core's JSON: errors before warnings before
// notes (the core's order kept within each), whole sentences that leave names alone, the file
// named after the one damaged relation, and a pgsql-bugs message that carries what the user
// filled in, pg_control's text and the report's Markdown whole.
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { bugMessage } from './bugs';
import type { ReportBlock, ReportJson } from './protocol';
import { ranked, reportName, rowsLine, rowsSentence, sentence, Step } from './ReportPanel';

const block = (n: number, severity: ReportBlock['severity']): ReportBlock => ({
  block: n,
  file: 'base/5/16384',
  block_in_file: n,
  severity,
  status: 'mismatch',
  damage: 'checksum',
  evidence: [],
  server: null,
  route: 'none',
  headline: 'no single bit or tear explains the mismatch; no good copy found: salvage its rows',
});

const report = (blocks: ReportBlock[][]): ReportJson => ({
  cluster: { pg_version: 16, system_identifier: '7711884217707197569', state: 'shut down', data_checksums: 'on', block_size: 8192 },
  verdict: 'v',
  relations: blocks.map((b, i) => ({ database: 'postgres', relation: `public.t${i}`, relkind: 'r', path: `base/5/${16384 + i}`, blocks: b })),
  files: 1,
  pages: 1,
  notes: [],
  unknown: [],
  steps: [],
});

describe('report panel', () => {
  it('ranks errors, then warnings, then notes, across relations, the core order kept within each', () => {
    const r = report([
      [block(1, 'note'), block(2, 'error')],
      [block(3, 'warning'), block(4, 'error')],
    ]);
    expect(ranked(r).map((x) => x.b.block)).toEqual([2, 4, 3, 1]);
  });

  it("lists a page read as empty first among its severity's, as the core's text and Markdown do", () => {
    const zeroed = { ...block(5, 'error'), damage: 'zeroed' };
    const refused = { ...block(6, 'error'), damage: 'zeroed', server: 'ERROR:  index "t_pkey" contains unexpected zero page at block 6' };
    const r = report([
      [block(2, 'error'), zeroed, block(10, 'error')],
      [refused, block(7, 'warning')],
    ]);
    expect(ranked(r).map((x) => x.b.block)).toEqual([5, 2, 10, 6, 7]);
  });

  it('makes whole sentences and leaves names alone', () => {
    expect(sentence('the page is all zeros')).toBe('The page is all zeros.');
    expect(sentence("pg_surgery's heap_force_kill marks rows dead")).toBe("pg_surgery's heap_force_kill marks rows dead.");
    expect(sentence('Done.')).toBe('Done.');
  });

  it('names the download after the one damaged relation, else after the directory', () => {
    expect(reportName(report([[block(1, 'error')]]), 'pgdata/')).toBe('public.t0-report');
    expect(reportName(report([[block(1, 'error')], [block(2, 'error')]]), 'pgdata/')).toBe('pgdata-report');
    expect(reportName(report([[block(1, 'error')], [block(2, 'error')]]), '')).toBe('cluster-7711884217707197569-report');
  });

  it('writes the pgsql-bugs message with the fields, pg_control and the Markdown', () => {
    const m = bugMessage(report([[block(1, 'error')]]), '# pgpage incident report\n\n**v**\n', 'Database system identifier:           7711884217707197569\n', {
      platform: 'Debian 12',
      storage: '',
      happened: 'power loss',
      log: 'ERROR:  invalid page in block 1',
    });
    expect(m).toContain('Subject: Data corruption in PostgreSQL 16: v\n');
    expect(m).toContain('PostgreSQL major version: 16');
    expect(m).toContain('Platform: Debian 12');
    expect(m).toContain('Storage: (to be filled in)');
    expect(m).toContain('power loss');
    expect(m).toContain('ERROR:  invalid page in block 1');
    expect(m).toContain('Database system identifier:           7711884217707197569');
    expect(m).toContain('# pgpage incident report\n\n**v**');
  });

  it('counts rows, not index entries, and says what stale versions are', () => {
    const rows: NonNullable<ReportBlock['rows']> = {
      lost: 36,
      readable: 0,
      known_from: 'index',
      index: 'public.orders_pkey',
      upper_bound: true,
      bound: null,
      index_entries: 37,
      stale: 0,
    };
    expect(rowsSentence(rows)).toBe(
      'At most 36 rows are lost (37 index entries) and no row is readable, as the entries of the index public.orders_pkey that point into this block say.',
    );
    const torn: NonNullable<ReportBlock['rows']> = {
      lost: 0,
      readable: 7,
      known_from: 'index',
      upper_bound: true,
      bound: null,
      stale: 2,
      stale_rows: [
        { keys: ['1021'], ctid: '(28,13)', live_at: '(100,8)' },
        { keys: ['1022'], ctid: '(28,14)', live_at: '(100,9)' },
      ],
    };
    const said = rowsSentence(torn);
    expect(said).toContain('7 rows are readable');
    expect(said).toContain('2 stale versions are counted as neither: older versions of rows live on other pages, as the evidence says.');
    // The keys and where each is live are the core's evidence, printed beside it: not twice.
    expect(said).not.toContain('1021');
  });

  it("says the core's bound once: rows it cannot count are said by the bound alone", () => {
    const sentences = (s: string) => s.split(/(?<=\.) /);
    const once = (s: string) => expect(new Set(sentences(s)).size, s).toBe(sentences(s).length);
    // An older version of the page (from the WAL) and a page that cannot say its rows.
    const stale: NonNullable<ReportBlock['rows']> = {
      lost: null,
      readable: null,
      known_from: 'unknown',
      upper_bound: false,
      bound:
        "the rows that the WAL's records after the page's pd_lsn inserted, updated or deleted are not as the server last had them; which rows, and how many, is unknown without replaying those records (pgpage recover)",
      stale: 0,
    };
    const zeroed: NonNullable<ReportBlock['rows']> = {
      lost: null,
      readable: 0,
      known_from: 'unknown',
      upper_bound: false,
      bound: 'the page cannot say how many rows it held, and no B-tree index of the table was read',
      stale: 0,
    };
    for (const rows of [stale, zeroed]) {
      const line = rowsLine(rows, true);
      once(line);
      expect(line).toContain(sentence(rows.bound!));
    }
    expect(rowsLine(zeroed, true)).toBe('The page cannot say how many rows it held, and no B-tree index of the table was read. 0 rows are readable.');
    // Counted rows: the bound follows the count, at the first block that has it.
    const counted: NonNullable<ReportBlock['rows']> = {
      lost: 0,
      readable: 70,
      known_from: 'header',
      upper_bound: false,
      bound: "from the page's own line pointers; no B-tree index of the table was read to check them",
      stale: 0,
    };
    once(rowsLine(counted, true));
    expect(rowsLine(counted, true)).toContain("From the page's own line pointers");
    expect(rowsLine(counted, false)).not.toContain("From the page's own line pointers");
  });

  describe('a step', () => {
    afterEach(cleanup);
    // Two of the fifth review's steps, as the core words them.
    const flips =
      'Where single bits explain a checksum, flipping the right one back restores the page exactly (NEW: the repaired copy of the file to create, a path that does not exist yet).\nBlock 20 of public.orders:\n  pgpage repair --block 20 --flip 448:2 --out NEW dmg/base/16384/16385  # restores note, stored\u2192flipped back: "\u2026xxxxxxxxxxxxxxxxxxxx[|\u2192x]xxxxxxxxxxxxxxxxxxxx\u2026"\nBlock 5 of public.orders_pkey: 4 flips each make the page valid. Only the values they restore tell them apart: compare them with a backup, a replica or the application (at most one is the damage):\n  pgpage repair --block 5 --flip 3184:0 --out NEW dmg/base/16384/16390\n  pgpage repair --block 5 --flip 3875:0 --out NEW dmg/base/16384/16390\n  pgpage repair --block 5 --flip 4993:0 --out NEW dmg/base/16384/16390\n  pgpage repair --block 5 --flip 5257:4 --out NEW dmg/base/16384/16390';
    const reindex =
      "The damaged index pages (block 5 of public.orders_pkey) are not restored from a copy; the table's rows are not in an index, so rebuilding it from the table loses nothing, while an older copy of the page (from a backup or a WAL image) spliced into the live index would disagree with the table and its neighbour pages: REINDEX INDEX public.orders_pkey";

    it('gives each command line as code, copied exactly, with no full stop after it', () => {
      const v = render(<Step text={flips} walBlocks={[]} onOpen={() => {}} />);
      const commands = v.getAllByTestId('step-command').map((e) => e.textContent);
      expect(commands).toEqual(
        flips
          .split('\n')
          .filter((l) => l.startsWith('  '))
          .map((l) => l.trim()),
      );
      expect(commands.at(-1)).toBe('pgpage repair --block 5 --flip 5257:4 --out NEW dmg/base/16384/16390');
      expect(v.getByTestId('report-step').textContent).not.toMatch(/16390\.$/);
    });

    it('ends on a statement without a full stop glued to it, the statement as code', () => {
      const v = render(<Step text={reindex} walBlocks={[]} onOpen={() => {}} />);
      const li = v.getByTestId('report-step');
      expect(li.textContent?.endsWith('REINDEX INDEX public.orders_pkey')).toBe(true);
      expect([...li.querySelectorAll('code')].map((c) => c.textContent)).toEqual(['REINDEX INDEX public.orders_pkey']);
      expect(li.textContent?.startsWith('The damaged index pages')).toBe(true);
    });
  });
});

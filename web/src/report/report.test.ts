// The report panel's own wording and order over the core's JSON: errors before warnings before
// notes (the core's order kept within each), whole sentences that leave names alone, the file
// named after the one damaged relation, and a pgsql-bugs message that carries what the user
// filled in, pg_control's text and the report's Markdown whole.
import { describe, expect, it } from 'vitest';
import { bugMessage } from './bugs';
import type { ReportBlock, ReportJson } from './protocol';
import { ranked, reportName, rowsSentence, sentence } from './ReportPanel';

const block = (n: number, severity: ReportBlock['severity']): ReportBlock => ({
  block: n,
  file: 'base/5/16384',
  block_in_file: n,
  severity,
  status: 'mismatch',
  damage: 'checksum',
  evidence: [],
  server: null,
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
});

// The first screen's verdict: problem pages and the files they are in, notes beside them
// (never counted), and the affected files with what is wrong in each.
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { emptyCounts } from '../lib/status';
import { shownReport } from '../report/shown';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { problemsOf } from './selection';
import { entry, problem } from './testing';
import { AffectedFiles, Verdict } from './Verdict';

vi.mock('../core/load', () => ({ loadWasm: async () => (await import('./testing')).coreWasm() }));

const zeroNote = { code: 'zero_page_between_rows', block: 2, pages: 1, evidence: 'note', message: 'block 2: all-zero page between pages with rows: ...' };

describe('Verdict', () => {
  afterEach(cleanup);

  it('says no problem pages, and the zero pages between rows as a note', () => {
    const files = [entry('16427', { findings: [zeroNote] }), entry('16430')];
    const v = render(<Verdict files={files} problems={problemsOf(files)} state="done" />);
    expect(v.getByTestId('verdict').textContent).toBe('No problem pages in 2 verified files.');
    expect(v.getByTestId('verdict-notes').textContent).toBe(
      'But 1 all-zero page between pages with rows in 1 file: the server reads it as an empty new page, so rows stored there would be gone (relation extension also leaves such pages: then nothing is lost).',
    );
  });

  it("says the pages a visibility map disagrees with beside no problem pages, and not the FSM's notes", () => {
    const vm = { block: 1, absoluteBlock: 1, code: 'vm_bit_without_page_flag', message: '...', evidence: 'structural' };
    const fsm = { block: 3, absoluteBlock: 3, code: 'fsm_more_than_free', message: '...', evidence: 'note' };
    const files = [entry('16427', { pageFindings: [vm, { ...vm, code: 'vm_frozen_without_visible' }, fsm] }), entry('16430')];
    const v = render(<Verdict files={files} problems={problemsOf(files)} state="done" />);
    expect(v.getByTestId('verdict').textContent).toBe('No problem pages in 2 verified files.');
    expect(v.getByTestId('verdict-maps').textContent).toBe(
      "But 1 page that its relation's visibility map disagrees with, listed below: the server reads it, and no checksum shows it.",
    );
  });

  it('counts problem pages and the files they are in', () => {
    const files = [entry('a', { problems: [problem(1), problem(5)], problem: true }), entry('b', { problems: [problem(0)], problem: true }), entry('c')];
    const v = render(<Verdict files={files} problems={problemsOf(files)} state="done" />);
    expect(v.getByTestId('verdict').textContent).toBe('3 problem pages in 2 files of the 3 files verified: the server would refuse to read them.');
    expect(v.queryByTestId('verdict-notes')).toBeNull();
  });

  it("counts every block verified by status, and says how the report's main-fork pages relate", () => {
    const files = [
      entry('16427', { counts: { ...emptyCounts(), ok: 3, mismatch: 1 }, blocks: 4 }),
      entry('16427_fsm', { counts: { ...emptyCounts(), ok: 3 }, blocks: 3 }),
    ];
    const v = render(<Verdict files={files} problems={problemsOf(files)} state="done" />);
    const counts = v.getByTestId('verdict-counts');
    expect(counts.dataset.blocks).toBe('7');
    expect(counts.textContent).toBe('7 blocks in 2 files verified, as pgpage verify and pg_checksums count them (6 ok, 1 mismatch).');
    const report = {
      cluster: { pg_version: 16, system_identifier: null, state: null, data_checksums: 'on', block_size: 8192 },
      verdict: '',
      relations: [],
      files: 1,
      pages: 4,
      notes: [],
      unknown: [],
      steps: [],
    };
    act(() => shownReport.set({ root: '', report }));
    expect(counts.textContent).toContain(
      "; the incident report reads the 4 main-fork pages of them in 1 main-fork file (the tables' and indexes' own data, without free space and visibility maps).",
    );
    act(() => shownReport.set(null));
  });

  it('shows progress while files verify', () => {
    const files = [entry('a', { state: 'running' }), entry('b')];
    const v = render(<Verdict files={files} problems={[]} state="running" />);
    expect(v.getByTestId('verdict-progress').textContent).toBe('Verifying: 1 of 2 files done…');
  });
});

describe('AffectedFiles', () => {
  afterEach(cleanup);

  it('lists the files with problems or notes, by path, and opens the first page to look at', () => {
    const bad = Object.assign(entry('16427', { problems: [problem(3)], problem: true }), { path: 'live/base/5/16427' });
    const noted = Object.assign(entry('16427', { findings: [zeroNote] }), { path: 'backup/base/5/16427' });
    const onPick = vi.fn();
    const v = render(<AffectedFiles files={[bad, noted, entry('16430')]} onPick={onPick} />);
    const rows = v.getAllByTestId('affected-file');
    expect(rows.map((r) => [r.dataset.path, r.className])).toEqual([
      ['live/base/5/16427', 'bad'],
      ['backup/base/5/16427', 'note'],
    ]);
    expect(rows[0].textContent).toContain('1 problem page');
    expect(rows[1].textContent).toContain('1 all-zero page between pages with rows');
    fireEvent.click(v.getByRole('button', { name: 'backup/base/5/16427' }));
    expect(onPick).toHaveBeenCalledWith({ fileId: noted.id, block: 2, offset: 0 });
  });
});

// The problem list keeps the contract (docs/contracts.md, "The web page"): one
// [data-testid=problem] row per problem page with its data-* attributes, every row in the DOM up to
// 1,000; a longer list renders the rows in view and scrolls the selected one into view.
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ALL_IN_DOM, FileFindings, hint, ProblemList, RoutineNotes } from './ProblemList';
import type { ProblemRef } from './selection';
import { entry, layout, problem } from './testing';

const rowsOf = (c: HTMLElement) => Array.from(c.querySelectorAll<HTMLElement>('[data-testid=problem]'), (e) => Object.fromEntries(Object.entries(e.dataset)));

describe('ProblemList', () => {
  let undo = () => {};
  afterEach(() => {
    cleanup();
    undo();
  });

  it('lists each problem page with the contract attributes, and picks one on click or Enter', () => {
    const f = entry('16385.2');
    const problems: ProblemRef[] = [
      { f, p: problem(3, { absoluteBlock: 262147, misplaced: { block: 262149, claim: true, by: 'misplaced_by_tuple_ids', matches: 1, inFile: 5 } }) },
      { f, p: problem(7, { status: 'new_not_zero', stored: 0, computed: null, absoluteBlock: 262151 }) },
    ];
    const onPick = vi.fn();
    const v = render(<ProblemList problems={problems} sel={{ fileId: f.id, block: 7, offset: 12 }} onPick={onPick} />);
    expect(rowsOf(v.container)).toEqual([
      { testid: 'problem', file: '16385.2', path: '16385.2', block: '3', status: 'mismatch', stored: '103', computed: '203' },
      { testid: 'problem', file: '16385.2', path: '16385.2', block: '7', status: 'new_not_zero', stored: '0', computed: '' },
    ]);
    const [first, second] = v.getAllByTestId('problem');
    expect(first.textContent).toContain('262147');
    expect(first.textContent).toContain("written for block 5: its checksum is valid there and its tuples' t_ctid name it");
    expect(second.className).toBe('current');
    fireEvent.click(first);
    expect(onPick).toHaveBeenLastCalledWith({ fileId: f.id, block: 3, offset: 0 });
    fireEvent.keyDown(second, { key: 'Enter' });
    expect(onPick).toHaveBeenLastCalledWith({ fileId: f.id, block: 7, offset: 0 });
  });

  it("says a candidate with its odds, never as a claim, and a block of another segment as the relation's", () => {
    const chance = { searched: 131072, expected: 131072 / 65535, probability: 0.86 };
    const candidate = problem(4, { misplaced: { block: 9, claim: false, by: 'checksum_matches_other_block', matches: 2, inFile: 9 } });
    expect(hint(candidate, chance)).toBe('checksum also valid for block 9 — chance: about 2 expected matches in the 131072 blocks searched; not a claim');
    expect(hint(candidate, { ...chance, searched: 120, expected: 120 / 65535 })).toContain('about 0.0018 expected matches in the 120 blocks searched');
    const elsewhere = problem(4, { misplaced: { block: 131077, claim: true, by: 'misplaced_by_sibling_links', matches: 1, inFile: null } });
    expect(hint(elsewhere, null)).toBe("written for relation block 131077: its checksum is valid there and its btree siblings' links name it");
    expect(hint(problem(4, { absoluteBlock: 4, tupleBlock: 127, findings: ['checksum_mismatch', 'heap_tid_other_block'] }), null)).toBe(
      "its tuples' t_ctid name relation block 127",
    );
    // Tuples that name another block because the whole file was written elsewhere: the file's finding says it once.
    expect(hint(problem(4, { absoluteBlock: 262148, tupleBlock: 4 }), null)).toBe('');
    expect(hint(problem(4), null)).toBe('');
  });

  it('shows each file finding once, at its block when it has one', () => {
    const f = entry('16401', {
      findings: [
        { code: 'read_short', block: 3, message: 'could not read block 3 in file "base/5/16401": read only 1234 of 8192 bytes' },
        { code: 'file_written_as_segment', message: 'these pages were written as segment 0 of the relation (4 pages verify there)' },
      ],
    });
    const off = { code: 'checksums_disabled', message: 'data checksums are disabled: pages are checked by their header only' };
    const v = render(
      <FileFindings
        files={[f, entry('16402'), entry('16403', { findings: [off] }), entry('16404', { findings: [off] }), entry('16405', { findings: [off], checksums: 2 })]}
      />,
    );
    const rows = v.getAllByTestId('file-finding');
    expect(rows.map((r) => Object.fromEntries(Object.entries(r.dataset)))).toEqual([
      // Checksums off once for the files whose pages say so; pg_control's panel says it for 16405.
      { testid: 'file-finding', code: 'checksums_disabled', files: '2' },
      { testid: 'file-finding', file: '16401', path: '16401', code: 'read_short', block: '3' },
      { testid: 'file-finding', file: '16401', path: '16401', code: 'file_written_as_segment' },
    ]);
    expect(rows[0].textContent).toBe('2 files (16403, 16404): no page stores a checksum: data checksums are disabled: pages are checked by their header only');
    expect(rows[1].textContent).toBe('16401, block 3: could not read block 3 in file "base/5/16401": read only 1234 of 8192 bytes');
  });

  it('renders nothing without problems', () => {
    const v = render(<ProblemList problems={[]} sel={null} onPick={() => {}} />);
    expect(v.container.innerHTML).toBe('');
  });

  it(`keeps all ${ALL_IN_DOM} rows in the DOM, whatever the box shows`, () => {
    undo = layout('list-scroll', 300, 24);
    const f = entry('16385');
    const problems = Array.from({ length: ALL_IN_DOM }, (_, i) => ({ f, p: problem(i) }));
    const v = render(<ProblemList problems={problems} sel={null} onPick={() => {}} />);
    expect(v.getAllByTestId('problem')).toHaveLength(ALL_IN_DOM);
  });

  it('beyond that renders the rows in view, and brings the selected row into view', async () => {
    undo = layout('list-scroll', 300, 24);
    const f = entry('16385');
    const problems = Array.from({ length: 5000 }, (_, i) => ({ f, p: problem(i * 2) }));
    const v = render(<ProblemList problems={problems} sel={null} onPick={() => {}} />);
    const shown = () => v.getAllByTestId('problem').map((e) => Number(e.dataset.block));
    expect(shown().length).toBeLessThan(100);
    expect(shown()[0]).toBe(0);
    await act(async () => {
      v.rerender(<ProblemList problems={problems} sel={{ fileId: f.id, block: 2 * 4000, offset: 0 }} onPick={() => {}} />);
      await new Promise((r) => setTimeout(r, 50));
    });
    expect(shown()).toContain(8000);
    expect(v.container.querySelector('[data-block="8000"]')?.className).toBe('current');
  });
});

describe('FileFindings notes', () => {
  afterEach(cleanup);

  it('says zero pages between rows in the core words, neutral, and opens their block', () => {
    const message =
      'blocks 4 to 6 (3 pages): all-zero page between pages with rows: the server reads it as an empty new page, so any rows it held are gone; a backup or WAL image may hold them';
    const f = Object.assign(
      entry('16427'),
      { path: 'live/base/5/16427' },
      { findings: [{ code: 'zero_page_between_rows', block: 4, pages: 3, evidence: 'note', message }] },
    );
    const onPick = vi.fn();
    const v = render(<FileFindings files={[f]} onPick={onPick} />);
    const row = v.getByTestId('file-finding');
    expect(row.className).toBe('note');
    expect(row.dataset).toMatchObject({ code: 'zero_page_between_rows', block: '4', pages: '3', path: 'live/base/5/16427' });
    // The core's message names the blocks: not said twice.
    expect(row.textContent).toBe(`live/base/5/16427: ${message}`);
    fireEvent.click(v.getByRole('button', { name: /^Open live\/base\/5\/16427, block 4/ }));
    expect(onPick).toHaveBeenCalledWith({ fileId: f.id, block: 4, offset: 0 });
  });
});

describe('FileFindings of the maps', () => {
  afterEach(cleanup);

  it('lists a heap page the visibility map disagrees with as a finding, not a problem row, and opens it', () => {
    const message = 'page is not marked all-visible but visibility map bit is set in relation "base/5/16427" page 131073';
    const f = entry('16427.1', {
      path: 'base/5/16427.1',
      pageFindings: [{ block: 1, absoluteBlock: 131073, code: 'vm_bit_without_page_flag', message, evidence: 'structural' }],
    });
    const onPick = vi.fn();
    const v = render(<FileFindings files={[f]} onPick={onPick} />);
    expect(v.queryAllByTestId('problem')).toHaveLength(0);
    const row = v.getByTestId('page-finding');
    expect(row.dataset).toMatchObject({ code: 'vm_bit_without_page_flag', block: '1', path: 'base/5/16427.1' });
    expect(row.textContent).toBe(`base/5/16427.1, block 1: ${message}`);
    fireEvent.click(v.getByRole('button', { name: /^Open base\/5\/16427.1, block 1/ }));
    expect(onPick).toHaveBeenCalledWith({ fileId: f.id, block: 1, offset: 0 });
  });
});

describe('RoutineNotes', () => {
  afterEach(cleanup);

  it('counts the routine notes as the incident report does: not one the core finds the damage trace of its page', () => {
    const message = 'the page is marked all-visible but its visibility map bit is not set: the next VACUUM sets it';
    const note = { code: 'page_flag_without_vm_bit', message, evidence: 'note' };
    const f = entry('16443', {
      path: 'base/16384/16443',
      pageFindings: [
        { block: 7, absoluteBlock: 7, ...note },
        // On block 25, which fails its checksum: the report says it with that page's damage.
        { block: 25, absoluteBlock: 25, ...note, notRoutine: true },
      ],
    });
    const v = render(<RoutineNotes files={[f]} onPick={() => {}} />);
    const group = v.getByTestId('note-group');
    expect(group.dataset.pages).toBe('1');
    expect(group.textContent).toContain('Note, 1 page in 1 file');
    expect(v.getAllByTestId('page-finding').map((x) => x.dataset.block)).toEqual(['7']);
  });
});

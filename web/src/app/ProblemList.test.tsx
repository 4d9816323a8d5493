// The problem list keeps the contract (CONTRACTS.md): one [data-testid=problem] row per
// problem page with its data-* attributes, every row in the DOM up to 1,000; a longer list
// renders the rows in view and scrolls the selected one into view.
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ALL_IN_DOM, ProblemList } from './ProblemList';
import type { ProblemRef } from './selection';
import { entry, layout, problem } from './testing';

const rowsOf = (c: HTMLElement) =>
  Array.from(c.querySelectorAll<HTMLElement>('[data-testid=problem]'), (e) => ({ ...e.dataset }));

describe('ProblemList', () => {
  let undo = () => {};
  afterEach(() => {
    cleanup();
    undo();
  });

  it('lists each problem page with the contract attributes, and picks one on click or Enter', () => {
    const f = entry('16385.2');
    const problems: ProblemRef[] = [
      { f, p: problem(3, { absoluteBlock: 262147, matchesBlock: 5 }) },
      { f, p: problem(7, { status: 'new_not_zero', stored: 0, computed: null, absoluteBlock: 262151 }) },
    ];
    const onPick = vi.fn();
    const v = render(<ProblemList problems={problems} sel={{ fileId: f.id, block: 7, offset: 12 }} onPick={onPick} />);
    expect(rowsOf(v.container)).toEqual([
      { testid: 'problem', file: '16385.2', block: '3', status: 'mismatch', stored: '103', computed: '203' },
      { testid: 'problem', file: '16385.2', block: '7', status: 'new_not_zero', stored: '0', computed: '' },
    ]);
    const [first, second] = v.getAllByTestId('problem');
    expect(first.textContent).toContain('262147');
    expect(first.textContent).toContain("this page's checksum is valid for block 5");
    expect(second.className).toBe('current');
    fireEvent.click(first);
    expect(onPick).toHaveBeenLastCalledWith({ fileId: f.id, block: 3, offset: 0 });
    fireEvent.keyDown(second, { key: 'Enter' });
    expect(onPick).toHaveBeenLastCalledWith({ fileId: f.id, block: 7, offset: 0 });
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

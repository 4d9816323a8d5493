// The page's keys over a few files: `[` `]` step within the shown file and stop at its ends,
// `n` `N` walk every file's problem pages in order and wrap, Ctrl+G goes to a block or a byte
// offset, and keys typed into fields are left alone.
import { cleanup, fireEvent, render, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stopsOf, zeroNoteAt, type Selection } from './selection';
import { nextProblem, stepBlock, useKeys } from './useKeys';
import { entry, problem } from './testing';

const a = entry('16385', { blocks: 4 });
const b = entry('16386', { blocks: 10 });
const files = [a, b];
const problems = [
  { f: a, p: problem(1) },
  { f: a, p: problem(3) },
  { f: b, p: problem(0) },
  { f: b, p: problem(9) },
];
const at = (f: typeof a, block: number, offset = 0): Selection => ({ fileId: f.id, block, offset });

describe('navigation', () => {
  it('steps blocks within the file, keeping the cursor offset', () => {
    expect(stepBlock(at(a, 2, 8), a, 1)).toEqual(at(a, 3, 8));
    expect(stepBlock(at(a, 3), a, 1)).toEqual(at(a, 3));
    expect(stepBlock(at(a, 0), a, -1)).toEqual(at(a, 0));
    // Before verification has counted the blocks, the size does (2 pages of 8 kB).
    const fresh = entry('16387', { blocks: 0, blockSize: null });
    expect(stepBlock(at(fresh, 0), fresh, 5)).toEqual(at(fresh, 1));
  });

  it('walks problems across files and wraps around', () => {
    expect(nextProblem(files, problems, null, 1)).toEqual(at(a, 1));
    expect(nextProblem(files, problems, at(a, 1), 1)).toEqual(at(a, 3));
    expect(nextProblem(files, problems, at(a, 2), 1)).toEqual(at(a, 3));
    expect(nextProblem(files, problems, at(a, 3), 1)).toEqual(at(b, 0));
    expect(nextProblem(files, problems, at(b, 9), 1)).toEqual(at(a, 1));
    expect(nextProblem(files, problems, at(b, 0), -1)).toEqual(at(a, 3));
    expect(nextProblem(files, problems, at(a, 1), -1)).toEqual(at(b, 9));
    expect(nextProblem(files, [], at(a, 1), 1)).toBeNull();
  });
});

describe('stops', () => {
  it('n and N stop at the all-zero pages the core notes between rows, in block order', () => {
    const zero = { code: 'zero_page_between_rows', block: 2, pages: 3, evidence: 'note', message: 'blocks 2 to 4 (3 pages): ...' };
    const f = entry('16390', { blocks: 10, problems: [problem(1), problem(7)], problem: true, findings: [zero] });
    const stops = stopsOf([f]);
    expect(stops.map((x) => x.p.block)).toEqual([1, 2, 7]);
    expect(nextProblem([f], stops, at(f, 1), 1)).toEqual(at(f, 2));
    expect(nextProblem([f], stops, at(f, 7), -1)).toEqual(at(f, 2));
    expect(zeroNoteAt(f, 4)).toBe(zero);
    expect(zeroNoteAt(f, 5)).toBeNull();
  });
});

describe('useKeys', () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
  });

  const openGoTo = vi.fn();
  function setup(sel: Selection | null) {
    const setSel = vi.fn();
    openGoTo.mockClear();
    renderHook(() => useKeys({ files, problems, sel, setSel, openGoTo }));
    return setSel;
  }

  it('handles [ ] n N and Ctrl+G on the page', () => {
    const setSel = setup(at(a, 1, 5));
    fireEvent.keyDown(window, { key: ']' });
    expect(setSel).toHaveBeenLastCalledWith(at(a, 2, 5));
    fireEvent.keyDown(window, { key: '[' });
    expect(setSel).toHaveBeenLastCalledWith(at(a, 0, 5));
    fireEvent.keyDown(window, { key: 'n' });
    expect(setSel).toHaveBeenLastCalledWith(at(a, 3));
    fireEvent.keyDown(window, { key: 'N' });
    expect(setSel).toHaveBeenLastCalledWith(at(b, 9));
    fireEvent.keyDown(window, { key: 'g', ctrlKey: true });
    expect(openGoTo).toHaveBeenCalledTimes(1);
    expect(setSel).toHaveBeenCalledTimes(4);
    // Other modifiers are the browser's.
    fireEvent.keyDown(window, { key: 'n', altKey: true });
    expect(setSel).toHaveBeenCalledTimes(4);
  });

  it('leaves keys typed into fields alone, but not those on the file picker', () => {
    const setSel = setup(at(a, 1));
    const v = render(
      <div>
        <input aria-label="segment" type="number" />
        <input aria-label="files" type="file" />
      </div>,
    );
    fireEvent.keyDown(v.getByLabelText('segment'), { key: 'n' });
    expect(setSel).not.toHaveBeenCalled();
    fireEvent.keyDown(v.getByLabelText('files'), { key: 'n' });
    expect(setSel).toHaveBeenCalledWith(at(a, 3));
  });

  it('does nothing without a selection but n, which picks the first problem', () => {
    const setSel = setup(null);
    fireEvent.keyDown(window, { key: ']' });
    fireEvent.keyDown(window, { key: 'g', ctrlKey: true });
    expect(setSel).not.toHaveBeenCalled();
    expect(openGoTo).not.toHaveBeenCalled();
    fireEvent.keyDown(window, { key: 'n' });
    expect(setSel).toHaveBeenCalledWith(at(a, 1));
  });
});

// HexView's generic editing: hex digits typed at the cursor become onEditByte calls, high
// nibble first, then the cursor moves on; edited offsets are marked. No PostgreSQL here.
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HexView } from './HexView';

function setup(bytes: Uint8Array, cursor: number, edited?: ReadonlySet<number>) {
  const onEditByte = vi.fn();
  const onCursor = vi.fn();
  const data = { length: bytes.length, slice: (s: number, e: number) => bytes.subarray(s, e) };
  const props = {
    data,
    baseOffset: 0,
    spans: [],
    markedFields: new Set<string>(),
    selectedItem: null,
    onHover: () => undefined,
    onCursor,
    onEditByte,
    editedOffsets: edited,
  };
  const r = render(<HexView {...props} cursor={cursor} />);
  return { ...r, onEditByte, onCursor, rerender: (c: number) => r.rerender(<HexView {...props} cursor={c} />) };
}

describe('HexView editing', () => {
  afterEach(cleanup);

  it('two hex digits overwrite the byte at the cursor, then the cursor moves on', () => {
    const bytes = Uint8Array.from([0x12, 0x34, 0x56]);
    const v = setup(bytes, 1);
    const grid = v.getByTestId('hexview');
    act(() => void fireEvent.keyDown(grid, { key: 'a' }));
    expect(v.onEditByte).toHaveBeenLastCalledWith(1, 0xa4);
    bytes[1] = 0xa4;
    act(() => void fireEvent.keyDown(grid, { key: 'F' }));
    expect(v.onEditByte).toHaveBeenLastCalledWith(1, 0xaf);
    expect(v.onCursor).toHaveBeenLastCalledWith(2);
    // Not hex: nothing edited.
    act(() => void fireEvent.keyDown(grid, { key: 'g' }));
    expect(v.onEditByte).toHaveBeenCalledTimes(2);
  });

  it('moving the cursor between the digits starts a new byte', () => {
    const bytes = Uint8Array.from([0x12, 0x34, 0x56]);
    const v = setup(bytes, 0);
    const grid = v.getByTestId('hexview');
    act(() => void fireEvent.keyDown(grid, { key: '9' }));
    expect(v.onEditByte).toHaveBeenLastCalledWith(0, 0x92);
    act(() => void fireEvent.keyDown(grid, { key: 'ArrowRight' }));
    v.rerender(1);
    act(() => void fireEvent.keyDown(grid, { key: '7' }));
    expect(v.onEditByte).toHaveBeenLastCalledWith(1, 0x74);
  });

  it('marks edited offsets', () => {
    const v = setup(Uint8Array.from([1, 2, 3]), 0, new Set([2]));
    expect(v.container.querySelectorAll('[data-edited=true]')).toHaveLength(1);
    expect(v.container.querySelector('[data-edited=true]')!.getAttribute('data-off')).toBe('2');
  });
});

describe('HexView reveal', () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
  });

  it('scrolls its own box to the row of the byte asked for, and only when it is out of view', () => {
    // jsdom lays nothing out: rows 16 px high, a box 160 px (10 rows) high.
    vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockReturnValue(16);
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(160);
    const bytes = new Uint8Array(8192);
    const data = { length: bytes.length, slice: (s: number, e: number) => bytes.subarray(s, e) };
    const props = {
      data,
      baseOffset: 0,
      spans: [],
      markedFields: new Set<string>(),
      selectedItem: null,
      cursor: 0,
      onHover: () => undefined,
      onCursor: () => undefined,
    };
    const v = render(<HexView {...props} reveal={{ start: 8000, n: 1 }} />);
    const box = v.getByTestId('hexview');
    // Row 500 at 8000 px, a third of the box from its top.
    expect(box.scrollTop).toBe(500 * 16 - 160 / 3);
    // A byte already in view leaves the scroll alone.
    v.rerender(<HexView {...props} reveal={{ start: 8000 + 32, n: 2 }} />);
    expect(box.scrollTop).toBe(500 * 16 - 160 / 3);
    v.rerender(<HexView {...props} reveal={{ start: 0, n: 3 }} />);
    expect(box.scrollTop).toBe(0);
  });
});

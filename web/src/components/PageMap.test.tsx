// The page map's geometry and words: the block under a point of a canvas drawn at any size,
// axis steps of 1, 2, 5, 10, ... cells, the tooltip's text, and the axes and tooltip as
// rendered (jsdom draws no canvas, but the labels and the tooltip are elements).
import { cleanup, fireEvent, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { axisStep, blockAt, blockWords, cellSize, PageMap, PENDING } from './PageMap';

describe('PageMap', () => {
  afterEach(cleanup);

  it('finds the block under a point, also when the canvas is drawn scaled down', () => {
    const canvas = { width: 100, height: 30 };
    expect(blockAt(0, 0, canvas, canvas, 10, 10)).toBe(0);
    expect(blockAt(95, 25, canvas, canvas, 10, 10)).toBe(29);
    // Drawn at half size: the same cells at half the pixels.
    expect(blockAt(47, 12, { width: 50, height: 15 }, canvas, 10, 10)).toBe(29);
    expect(blockAt(101, 0, canvas, canvas, 10, 10)).toBe(-1);
  });

  it('labels every 1, 2, 5, 10, ... cells, the fewest that leave room', () => {
    expect(axisStep(14, 14)).toBe(1);
    expect(axisStep(7, 14)).toBe(2);
    expect(axisStep(4, 14)).toBe(5);
    expect(axisStep(2, 36)).toBe(20);
  });

  it('words a block as the legend does', () => {
    expect(blockWords(7, 1, false)).toBe('block 7: checksum mismatch');
    expect(blockWords(7, 1, true)).toBe('block 7: checksums are off (not checked)');
    expect(blockWords(7, PENDING, false)).toBe('block 7: not yet verified');
    expect(blockWords(7, undefined, false)).toBe('block 7: not yet verified');
  });

  it('numbers rows by their first block and names the hovered block', () => {
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    const statuses = new Uint8Array(1000);
    statuses[3] = 1;
    const v = render(<PageMap statuses={statuses} blocks={1000} version={1} selected={null} checksumsDisabled={false} onPick={() => undefined} />);
    const canvas = v.getByTestId('pagemap') as HTMLCanvasElement;
    const cell = cellSize(1000, 640);
    const perRow = canvas.width / cell;
    expect(canvas.height).toBe(Math.ceil(1000 / perRow) * cell);
    const rows = Array.from(v.getByTestId('pagemap-rows').querySelectorAll('span'), (s) => Number(s.textContent));
    expect(rows[0]).toBe(0);
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.every((r, i) => r % perRow === 0 && (i === 0 || r > rows[i - 1]))).toBe(true);
    expect(v.getByTestId('pagemap-cols').querySelector('span')!.textContent).toBe('+0');
    vi.spyOn(canvas, 'getBoundingClientRect').mockReturnValue({ left: 0, top: 0, width: canvas.width, height: canvas.height, right: canvas.width, bottom: canvas.height, x: 0, y: 0, toJSON: () => ({}) });
    fireEvent.mouseMove(canvas, { clientX: 3 * cell + 1, clientY: 1 });
    expect(v.getByTestId('pagemap-tip').textContent).toBe('block 3: checksum mismatch');
    fireEvent.mouseMove(canvas, { clientX: 1, clientY: cell + 1 });
    expect(v.getByTestId('pagemap-tip').dataset.block).toBe(String(perRow));
    fireEvent.mouseLeave(canvas);
    expect(v.queryByTestId('pagemap-tip')).toBeNull();
  });
});

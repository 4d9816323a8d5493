// The page map's geometry and words: the block under a point of a canvas drawn at any size,
// axis steps of 1, 2, 5, 10, ... cells, the tooltip's text, and the axes and tooltip as
// rendered (jsdom draws no canvas, but the labels and the tooltip are elements).
import { cleanup, fireEvent, render, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { coreWasm } from '../app/testing';
import { axisStep, blockAt, blockWords, cellSize, keyStep, PageMap, PENDING } from './PageMap';

vi.mock('../core/load', () => ({ loadWasm: async () => (await import('../app/testing')).coreWasm() }));

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

  let names: string[];
  beforeAll(async () => {
    names = (await coreWasm()).status_names();
  });

  it("words a block by the core's status name and the legend's words", () => {
    const code = names.indexOf('mismatch');
    expect(blockWords(7, code, false, names)).toBe('block 7: mismatch — checksum mismatch');
    expect(blockWords(7, code, true, names)).toBe('block 7: checksums are off (not checked)');
    expect(blockWords(7, names.indexOf('bad_header'), false, names)).toBe(
      'block 7: bad_header — checksum OK but the page header is insane (the server rejects it)',
    );
    expect(blockWords(7, PENDING, false, names)).toBe('block 7: not yet verified');
    // An all-zero page the core notes between pages with rows is named so, not as a fine new page.
    expect(blockWords(7, names.indexOf('zero'), false, names)).toBe('block 7: zero — all-zero new page, which the server reads as empty');
    expect(blockWords(7, names.indexOf('zero'), false, names, true)).toBe(
      'block 7: zero — all-zero page between pages with rows: rows stored there would be gone',
    );
    expect(blockWords(7, undefined, false, names)).toBe('block 7: not yet verified');
    // Before the core's names are loaded: the block alone.
    expect(blockWords(7, code, false, null)).toBe('block 7');
  });

  it('moves the keyboard cell by cells, rows and pages, never off the map', () => {
    // 95 blocks, 10 a row: the last row holds 90..94.
    expect(keyStep('ArrowRight', false, 9, 95, 10)).toBe(10);
    expect(keyStep('ArrowLeft', false, 0, 95, 10)).toBe(0);
    expect(keyStep('ArrowDown', false, 88, 95, 10)).toBe(94);
    expect(keyStep('ArrowUp', false, 3, 95, 10)).toBe(0);
    expect(keyStep('PageDown', false, 5, 95, 10)).toBe(94);
    expect(keyStep('Home', false, 47, 95, 10)).toBe(40);
    expect(keyStep('End', false, 47, 95, 10)).toBe(49);
    expect(keyStep('End', false, 91, 95, 10)).toBe(94);
    expect(keyStep('Home', true, 47, 95, 10)).toBe(0);
    expect(keyStep('End', true, 47, 95, 10)).toBe(94);
    expect(keyStep('x', false, 47, 95, 10)).toBeNull();
    expect(keyStep('constructor', false, 47, 95, 10)).toBeNull();
  });

  it('numbers rows by their first block and names the hovered block', async () => {
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
    vi.spyOn(canvas, 'getBoundingClientRect').mockReturnValue({
      left: 0,
      top: 0,
      width: canvas.width,
      height: canvas.height,
      right: canvas.width,
      bottom: canvas.height,
      x: 0,
      y: 0,
      toJSON: () => ({}),
    });
    fireEvent.mouseMove(canvas, { clientX: 3 * cell + 1, clientY: 1 });
    await waitFor(() => expect(v.getByTestId('pagemap-tip').textContent).toBe('block 3: mismatch — checksum mismatch'));
    fireEvent.mouseMove(canvas, { clientX: 1, clientY: cell + 1 });
    expect(v.getByTestId('pagemap-tip').dataset.block).toBe(String(perRow));
    fireEvent.mouseLeave(canvas);
    expect(v.queryByTestId('pagemap-tip')).toBeNull();
  });

  it('takes the keyboard: focus highlights the shown block, arrows move, Enter opens, a live text names the cell', async () => {
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    const statuses = new Uint8Array(1000);
    statuses[4] = names.indexOf('mismatch');
    const onPick = vi.fn();
    const v = render(<PageMap statuses={statuses} blocks={1000} version={1} selected={3} checksumsDisabled={false} onPick={onPick} />);
    const canvas = v.getByTestId('pagemap') as HTMLCanvasElement;
    expect(canvas.tabIndex).toBe(0);
    expect(canvas.getAttribute('aria-label')).toMatch(/^page map of 1000 blocks/);
    fireEvent.focus(canvas);
    const live = v.getByTestId('pagemap-focus');
    expect(live.dataset.block).toBe('3');
    fireEvent.keyDown(canvas, { key: 'ArrowRight' });
    await waitFor(() => expect(live.textContent).toBe('block 4: mismatch — checksum mismatch. Enter opens it.'));
    expect(v.getByTestId('pagemap-tip').dataset.block).toBe('4');
    const perRow = canvas.width / cellSize(1000, 640);
    fireEvent.keyDown(canvas, { key: 'ArrowDown' });
    expect(live.dataset.block).toBe(String(4 + perRow));
    fireEvent.keyDown(canvas, { key: 'Enter' });
    expect(onPick).toHaveBeenCalledWith(4 + perRow);
    fireEvent.blur(canvas);
    expect(live.textContent).toBe('');
  });
});

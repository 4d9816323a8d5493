// The files table: a row per file with its counts and messages, the totals over every file,
// the row's choices handed to the store's actions, and only the rows in view rendered.
import { act, cleanup, fireEvent, render, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FileEntry } from '../files';
import { FilesTable } from './FilesTable';
import { entry, layout } from './testing';

// The block sizes come from the core.
vi.mock('../core/load', () => ({ loadWasm: async () => (await import('./testing')).coreWasm() }));
// jsdom's File cannot be read: the kind is decided from a head of all-zero pages.
vi.mock('../lib/head', () => ({ headOf: () => Promise.resolve(new Uint8Array(8192)) }));

function actions() {
  return { select: vi.fn(), cancel: vi.fn(), segment: vi.fn(), choice: vi.fn(), fork: vi.fn() };
}

describe('FilesTable', () => {
  let undo = () => {};
  afterEach(() => {
    cleanup();
    undo();
  });

  it('shows each file with its counts and messages, and totals every file', () => {
    undo = layout('list-scroll', 600, 30);
    const files = [
      entry('16385', { rel: { relfilenode: 16385, fork: 'main', segment: 0 }, counts: { ok: 3, mismatch: 1, zero: 0, new_not_zero: 0, bad_header: 0 } }),
      entry('16385.1', {
        rel: { relfilenode: 16385, fork: 'main', segment: 1 },
        trailingBytes: 1234,
        trailing: Uint8Array.from([0xde, 0xad]),
        blocks: 3,
        findings: [{ code: 'read_short', block: 3, message: 'could not read block 3 in file "16385.1": read only 1234 of 8192 bytes' }],
      }),
      entry('notes', { state: 'error', message: 'not a relation file: no sane PostgreSQL page header' }),
    ];
    const v = render(<FilesTable files={files} selectedId={files[1].id} actions={actions()} />);
    const rows = v.getAllByTestId('file');
    expect(rows.map((r) => r.dataset.file)).toEqual(['16385', '16385.1', 'notes']);
    expect(rows[1].classList.contains('current')).toBe(true);
    expect(rows[0].querySelector('[data-count=mismatch]')?.textContent).toBe('1');
    expect(v.getByTestId('trailing').textContent).toContain('16385.1: could not read block 3 in file "16385.1": read only 1234 of 8192 bytes');
    expect(v.getByTestId('trailing').textContent).toContain('de ad');
    expect(v.getByTestId('file-error').textContent).toBe('notes: not a relation file: no sane PostgreSQL page header');
    expect(v.getByTestId('not-relation-name').textContent).toContain('notes:');
    const total = v.container.querySelector('tr.total')!;
    expect(total.querySelector('td')?.textContent).toBe('all 3 files');
    expect(total.querySelector('[data-count=ok]')?.textContent).toBe(String(3 + 2 + 2));
  });

  it('hands the row choices to the actions', async () => {
    undo = layout('list-scroll', 600, 30);
    const f = entry('16385');
    const a = actions();
    const v = render(<FilesTable files={[f]} selectedId={null} actions={a} />);
    fireEvent.click(v.getByRole('button', { name: '16385' }));
    expect(a.select).toHaveBeenCalledWith(f);
    const seg = v.getByLabelText('segment number of 16385');
    fireEvent.change(seg, { target: { value: '2' } });
    fireEvent.keyDown(seg, { key: 'Enter' });
    expect(a.segment).toHaveBeenCalledWith(f, 2);
    fireEvent.change(v.getByLabelText('fork of 16385'), { target: { value: 'fsm' } });
    expect(a.fork).toHaveBeenCalledWith(f, 'fsm');
    // The core's block sizes are offered once its bindings are in.
    await waitFor(() => expect(v.getByLabelText('block size of 16385').querySelectorAll('option')).toHaveLength(7));
    fireEvent.change(v.getByLabelText('block size of 16385'), { target: { value: '16384' } });
    expect(a.choice).toHaveBeenCalledWith(f, { blockSize: 16384, byteOrder: 'detect' });
    fireEvent.change(v.getByLabelText('byte order of 16385'), { target: { value: 'big' } });
    expect(a.choice).toHaveBeenLastCalledWith(f, { blockSize: null, byteOrder: 'big' });
    // Detection's findings show in the 'detect' options.
    expect(v.getByLabelText('block size of 16385').dataset.effective).toBe('8192');
    expect(v.getByLabelText('byte order of 16385').dataset.effective).toBe('little');
    // Only a file still verifying can be cancelled.
    expect(v.queryByRole('button', { name: 'Cancel' })).toBeNull();
  });

  it('renders the rows in view of a long list, and the rest as the box scrolls', async () => {
    undo = layout('list-scroll', 300, 30);
    const files: FileEntry[] = Array.from({ length: 500 }, (_, i) => entry(String(20000 + i)));
    const v = render(<FilesTable files={files} selectedId={null} actions={actions()} />);
    const shown = () => v.getAllByTestId('file').map((r) => Number(r.dataset.file));
    // 300 px of 30 px rows, and the overscan on each side: tens of rows, not 500.
    expect(shown().length).toBeGreaterThan(9);
    expect(shown().length).toBeLessThan(50);
    expect(shown()[0]).toBe(20000);
    const box = v.getByTestId('files-scroll');
    await act(async () => {
      box.scrollTop = 30 * 400;
      fireEvent.scroll(box);
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(shown()).toContain(20400);
    expect(shown()).not.toContain(20000);
    // The totals still count every file.
    expect(v.container.querySelector('tr.total td')?.textContent).toBe('all 500 files');
  });
});

describe('FilesTable groups', () => {
  let undo = () => {};
  afterEach(() => {
    cleanup();
    undo();
  });
  const rel = (path: string, relfilenode: number, fork: 'main' | 'fsm' | 'vm' = 'main') =>
    Object.assign(entry(path.slice(path.lastIndexOf('/') + 1), { rel: { relfilenode, fork, segment: 0 }, fork }), { path });

  it('groups by folder and relation, tells same-named files apart by folder, and shows the core kind', async () => {
    undo = layout('list-scroll', 900, 30);
    const files = [rel('backup/base/5/16427', 16427), rel('live/base/5/16427', 16427), rel('live/base/5/16427_fsm', 16427, 'fsm')];
    const v = render(<FilesTable files={files} selectedId={null} actions={actions()} />);
    expect(v.getAllByTestId('folder').map((r) => r.dataset.folder)).toEqual(['backup/base/5', 'live/base/5']);
    expect(v.getAllByTestId('file').map((r) => r.dataset.path)).toEqual(['backup/base/5/16427', 'live/base/5/16427', 'live/base/5/16427_fsm']);
    const relation = v.getByTestId('relation');
    expect(relation.dataset).toMatchObject({ relation: '16427', folder: 'live/base/5', files: '2' });
    // The kind comes from the core (file_kind: the fsm fork is fsm whatever its bytes).
    await waitFor(() => expect(v.getAllByTestId('kind').map((k) => k.textContent)).toContain('fsm'));
    // A relation closes to one row; a folder to its heading.
    fireEvent.click(v.getByRole('button', { name: /close relation 16427/ }));
    expect(v.getAllByTestId('file').map((r) => r.dataset.path)).toEqual(['backup/base/5/16427']);
    fireEvent.click(v.getByRole('button', { name: 'backup/base/5/' }));
    expect(v.queryAllByTestId('file')).toHaveLength(0);
  });

  it('starts a data directory closed: one row per relation', () => {
    undo = layout('list-scroll', 900, 30);
    const files = Array.from({ length: 30 }, (_, i) => [rel(`d/base/5/${16400 + i}`, 16400 + i), rel(`d/base/5/${16400 + i}_fsm`, 16400 + i, 'fsm')]).flat();
    const v = render(<FilesTable files={files} selectedId={files[3].id} actions={actions()} />);
    expect(v.getAllByTestId('relation')).toHaveLength(30);
    // The selected file's relation shows it.
    expect(v.getAllByTestId('file').map((r) => r.dataset.path)).toEqual(['d/base/5/16401', 'd/base/5/16401_fsm']);
    expect(v.container.querySelector('tr.total td')?.textContent).toBe('all 60 files');
  });
});

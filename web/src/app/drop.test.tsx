// Files into the page: a drop's folders are walked to their files (readEntries hands them
// over in batches), plain drops and the pickers hand their files over, and the page shows a
// drag in progress.
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { entriesFromDrop, FilePickers, useDrop } from './drop';
import type { ChosenFile } from './useFiles';

function fileEntry(fullPath: string): FileSystemFileEntry {
  const file = new File([new Uint8Array(8)], fullPath.split('/').pop()!);
  return { isFile: true, isDirectory: false, fullPath, file: (ok: (f: File) => void) => ok(file) } as unknown as FileSystemFileEntry;
}

/** A directory whose reader hands its entries over two at a time, then an empty batch. */
function dirEntry(fullPath: string, children: FileSystemEntry[]): FileSystemDirectoryEntry {
  return {
    isFile: false,
    isDirectory: true,
    fullPath,
    createReader() {
      const left = [...children];
      return { readEntries: (ok: (b: FileSystemEntry[]) => void) => ok(left.splice(0, 2)) };
    },
  } as unknown as FileSystemDirectoryEntry;
}

const items = (entries: (FileSystemEntry | null)[]) => entries.map((e) => ({ webkitGetAsEntry: () => e })) as unknown as DataTransferItemList;
const paths = (list: ChosenFile[]) => list.map((x) => [x.path, x.file.name, x.fromFolder]);

describe('entriesFromDrop', () => {
  it('walks folders to their files, in every batch', async () => {
    const base = dirEntry('/pgdata/base', [
      dirEntry(
        '/pgdata/base/5',
        ['16385', '16385_fsm', '16385.1', 'pg_filenode.map', 'PG_VERSION'].map((n) => fileEntry(`/pgdata/base/5/${n}`)),
      ),
    ]);
    const list = await entriesFromDrop(items([fileEntry('/16400'), dirEntry('/pgdata', [base, fileEntry('/pgdata/PG_VERSION')]), null]));
    expect(paths(list)).toEqual([
      ['16400', '16400', false],
      ['pgdata/base/5/16385', '16385', true],
      ['pgdata/base/5/16385_fsm', '16385_fsm', true],
      ['pgdata/base/5/16385.1', '16385.1', true],
      ['pgdata/base/5/pg_filenode.map', 'pg_filenode.map', true],
      ['pgdata/base/5/PG_VERSION', 'PG_VERSION', true],
      ['pgdata/PG_VERSION', 'PG_VERSION', true],
    ]);
  });
});

function Target(p: { add(list: ChosenFile[]): void }) {
  const drop = useDrop(p.add);
  return (
    <div data-testid="target" data-dragging={drop.dragging} {...drop.handlers}>
      <FilePickers add={p.add} />
    </div>
  );
}

describe('drop target and pickers', () => {
  afterEach(cleanup);

  it('shows a drag and hands the dropped files over', async () => {
    const add = vi.fn();
    const v = render(<Target add={add} />);
    const target = v.getByTestId('target');
    fireEvent.dragOver(target);
    expect(target.dataset.dragging).toBe('true');
    fireEvent.dragLeave(target);
    expect(target.dataset.dragging).toBe('false');
    // A browser without entries (or files from another program): the plain file list.
    const plain = new File([new Uint8Array(4)], '16385');
    await act(async () => {
      fireEvent.drop(target, { dataTransfer: { items: items([null]), files: [plain] } });
      await Promise.resolve();
    });
    expect(add).toHaveBeenLastCalledWith([{ file: plain, path: '16385', fromFolder: false }]);
    await act(async () => {
      fireEvent.drop(target, { dataTransfer: { items: items([dirEntry('/d', [fileEntry('/d/1259')])]), files: [] } });
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(paths(add.mock.lastCall![0] as ChosenFile[])).toEqual([['d/1259', '1259', true]]);
  });

  it('hands over chosen files by name and a chosen folder by relative path', () => {
    const add = vi.fn();
    const v = render(<Target add={add} />);
    const f = new File([new Uint8Array(4)], '16385_vm');
    fireEvent.change(v.getByTestId('file-input'), { target: { files: [f] } });
    expect(add).toHaveBeenLastCalledWith([{ file: f, path: '16385_vm', fromFolder: false }]);
    const g = new File([new Uint8Array(4)], '1262');
    Object.defineProperty(g, 'webkitRelativePath', { value: 'pgdata/global/1262' });
    fireEvent.change(v.getByTestId('folder-input'), { target: { files: [g] } });
    expect(add).toHaveBeenLastCalledWith([{ file: g, path: 'pgdata/global/1262', fromFolder: true }]);
  });
});

// Files into the page: dropped files and folders (walked through the File System entries
// API) and the file and folder pickers, all handed over as ChosenFile lists.
import { useCallback, useState, type DragEvent } from 'react';
import type { ChosenFile } from './useFiles';

/** The files of a drop, folders walked to their files (with paths relative to the drop). */
export async function entriesFromDrop(items: DataTransferItemList): Promise<ChosenFile[]> {
  const out: ChosenFile[] = [];
  const walk = async (entry: FileSystemEntry, fromFolder: boolean): Promise<void> => {
    if (entry.isFile) {
      const file = await new Promise<File>((res, rej) => (entry as FileSystemFileEntry).file(res, rej));
      out.push({ file, path: entry.fullPath.replace(/^\//, ''), fromFolder });
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      // readEntries hands a directory over in batches (100 at a time in Chromium) until an empty one.
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
        if (batch.length === 0) break;
        for (const e of batch) await walk(e, true);
      }
    }
  };
  // The items must be turned into entries before the first await: the drop's data is gone after it.
  const roots = Array.from(items)
    .map((i) => i.webkitGetAsEntry?.())
    .filter((e): e is FileSystemEntry => !!e);
  for (const r of roots) await walk(r, false);
  return out;
}

/** The whole page as a drop target: whether something is dragged over it, and its handlers. */
export function useDrop(add: (list: ChosenFile[]) => void) {
  const [dragging, setDragging] = useState(false);
  const onDrop = useCallback(
    (e: DragEvent) => {
      e.preventDefault();
      setDragging(false);
      const plain = Array.from(e.dataTransfer.files).map((file) => ({ file, path: file.name, fromFolder: false }));
      void entriesFromDrop(e.dataTransfer.items).then((list) => add(list.length > 0 ? list : plain));
    },
    [add],
  );
  const handlers = {
    onDragOver: (e: DragEvent) => {
      e.preventDefault();
      setDragging(true);
    },
    onDragLeave: () => setDragging(false),
    onDrop,
  };
  return { dragging, handlers };
}

/** "choose files" and "choose a folder": the visually hidden inputs behind two labels. */
export function FilePickers(p: { add(list: ChosenFile[]): void }) {
  return (
    <>
      <label className="button">
        choose files
        <input
          type="file"
          multiple
          data-testid="file-input"
          className="visually-hidden"
          onChange={(e) => {
            p.add(Array.from(e.target.files ?? []).map((file) => ({ file, path: file.name, fromFolder: false })));
            // Choosing the same files again is a change too.
            e.target.value = '';
          }}
        />
      </label>{' '}
      <label className="button">
        choose a folder
        <input
          type="file"
          data-testid="folder-input"
          className="visually-hidden"
          // @ts-expect-error webkitdirectory is not in React's typings
          webkitdirectory=""
          onChange={(e) => {
            p.add(Array.from(e.target.files ?? []).map((file) => ({ file, path: file.webkitRelativePath || file.name, fromFolder: true })));
            e.target.value = '';
          }}
        />
      </label>
    </>
  );
}

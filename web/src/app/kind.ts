// A file's kind (heap, btree, gin, ..., fsm, vm): from its data directory's catalogs where
// they name it (relkind and access method, the core's `file_page_kind`), else as the core
// decides it from the file's fork and head (`file_kind`: the fork suffix, an index's
// metapage, its pages' majority), read once per file and geometry when its row is first shown.
import { useEffect, useState } from 'react';
import type { FileEntry } from '../files';
import { headOf } from '../lib/head';
import { fileKindOf } from '../lib/spans';
import { loadWasm } from '../core';

const kinds = new WeakMap<File, Map<string, Promise<string>>>();

/** The core's kind of the file's pages, once the verifier has settled its geometry. */
export function kindOf(f: FileEntry): Promise<string> | null {
  if (f.blockSize === null || f.bigEndian === null) return null;
  const key = `${f.fork}/${f.blockSize}/${f.bigEndian}`;
  let m = kinds.get(f.file);
  if (!m) kinds.set(f.file, (m = new Map<string, Promise<string>>()));
  let k = m.get(key);
  if (!k) {
    const [bs, big, fork] = [f.blockSize, f.bigEndian, f.fork];
    k = Promise.all([loadWasm(), headOf(f)]).then(([w, head]) => fileKindOf(w, head, bs, big, fork));
    m.set(key, k);
  }
  return k;
}

export function useFileKind(f: FileEntry | null): string | null {
  const [kind, setKind] = useState<{ key: string; kind: string } | null>(null);
  // The catalog's kind is for the fork the file's name says; a fork the user chose differs.
  const fromCatalog = f?.naming?.pageKind && f.rel?.fork === f.fork ? f.naming.pageKind : null;
  const key = f ? `${f.fork}/${f.blockSize}/${f.bigEndian}` : '';
  useEffect(() => {
    if (!f || fromCatalog) return;
    const p = kindOf(f);
    if (!p) return;
    let live = true;
    p.then(
      (k) => live && setKind({ key, kind: k }),
      () => live && setKind({ key, kind: 'unknown' }),
    );
    return () => {
      live = false;
    };
  }, [key, f, fromCatalog]);
  if (fromCatalog) return fromCatalog;
  return kind && kind.key === key ? kind.kind : null;
}

// A shared link opened without its files: the link holds where the page is (the file's path,
// the block, the relation the catalogs named), never its bytes. This says which files to drop;
// App opens the linked page once they are.
import { useEffect, useState } from 'react';
import { loadWasm } from '../core';

export interface LinkedPage {
  file: string;
  block: number | null;
  offset: number;
  /** The relation as the sender's catalogs named it (`forensic / public.orders`). */
  rel: string | null;
}

export function LinkWants({ link }: { link: LinkedPage }) {
  // The data directory the sender dropped: the path before the relation's own directory
  // (base/16384, global, pg_tblspc/...), as the core reads relation paths.
  const [relDir, setRelDir] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void loadWasm().then((w) => live && setRelDir(w.relation_directory(link.file) ?? null));
    return () => {
      live = false;
    };
  }, [link.file]);
  const name = link.file.slice(link.file.lastIndexOf('/') + 1);
  const at = relDir === null ? -1 : link.file.lastIndexOf(`${relDir}/`);
  const dir = at > 0 ? link.file.slice(0, at - 1) : null;
  const where = link.block === null ? 'the file' : `block ${link.block}${link.offset ? ` (offset ${link.offset})` : ''} of the file`;
  return (
    <div
      className="link-wants"
      role="status"
      data-testid="link-wants"
      data-file={link.file}
      data-block={link.block ?? undefined}
      data-relation={link.rel ?? undefined}
    >
      <p>
        <strong>
          This link opens {where} <code>{link.file}</code>
          {link.rel && (
            <>
              , relation <span data-testid="link-relation">{link.rel}</span>
            </>
          )}
          .
        </strong>{' '}
        A link carries no page bytes, and no files are loaded here yet. To open the page, drop{' '}
        {dir !== null ? (
          <>
            the data directory <code>{dir}</code> (it holds <code>{link.file.slice(dir.length + 1)}</code>), or the file <code>{name}</code> alone
          </>
        ) : (
          <>
            the file <code>{name}</code>
          </>
        )}
        .
      </p>
    </div>
  );
}

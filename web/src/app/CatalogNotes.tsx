// What the page knows of each dropped data directory's catalogs: being read, the relations
// named (and each thing the core could not read, in its words, such as a damaged pg_class
// page), or why none could be named, in which case the files are listed by folder.
import type { ClusterCatalog } from './catalog';

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

export function CatalogNotes(p: { catalogs: readonly ClusterCatalog[] }) {
  if (p.catalogs.length === 0) return null;
  return (
    <div className="catalog-notes">
      {p.catalogs.map((c, i) => {
        const where = c.root === '' ? 'the data directory' : c.root;
        const databases = new Set(c.relations.map((r) => r.database).filter((d) => d !== null)).size;
        return (
          <div key={`${c.root}:${i}`} data-testid="catalog" data-root={c.root} data-state={c.state}>
            {c.state === 'reading' && <p className="note">Reading the catalogs of {where}…</p>}
            {c.state === 'done' && (
              <p className="note">
                Names from the catalogs of {where}: {plural(c.relations.length, 'relation')} with storage in {plural(databases, 'database')} and the shared
                catalogs.
              </p>
            )}
            {c.state === 'done' && c.hints && (
              <p className="note" data-testid="catalog-structure" data-again={c.again ?? 0}>
                amcheck&apos;s per-page checks use each relation&apos;s key columns, pg_class row and pg_xact from them
                {c.again
                  ? `; ${plural(c.again, 'file')} verified before they were read (with their pages' own checks) ${c.again === 1 ? 'is' : 'are'} verified again with them`
                  : ''}
                .
              </p>
            )}
            {c.state === 'reading' && (
              <p className="note" data-testid="catalog-structure-wait">
                Until they are read, its files get amcheck&apos;s checks of their pages alone, and are checked again with the catalogs&apos; hints once they
                come.
              </p>
            )}
            {c.state === 'failed' && (
              <p className="warn" data-testid="catalog-fallback">
                The catalogs of {where} could not be read ({c.error}), so its files are listed by folder and relfilenode, without names.
              </p>
            )}
            {c.state === 'done' && c.damage.length > 0 && (
              <ul className="catalog-damage">
                {c.damage.map((line, j) => (
                  <li key={j} className="warn" data-testid="catalog-damage">
                    {line}
                  </li>
                ))}
              </ul>
            )}
          </div>
        );
      })}
    </div>
  );
}

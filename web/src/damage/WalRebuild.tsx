// The damaged block rebuilt from WAL as `pgpage recover --block` rebuilds it: the core's
// replay ran over the same records the WAL panel's scan read, from the block's newest image
// through every record after it. The first action where the WAL holds records after the
// image; the image alone, which loses them, is the older route below it.
import { useState } from 'react';
import type { DamagePanelProps } from './DamagePanel';
import { putKitPage, useDamageState } from './store';
import type { WalBlock } from './walProtocol';
import { walRecoveredPage, type FileLocation, type WalScan } from './walStore';

const plural = (n: number, one: string): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : `${one}s`}`;

/** The index in the scan's `recovered` list of a block (relation-wide), -1 when the scan did
 * not rebuild it. */
export function recoveredIndex(scan: WalScan, at: { relfilenode: number; fork: string; block: number; database_oid: number; tablespace_oid: number }): number {
  return scan.recovered.findIndex(
    (r) =>
      r.relfilenode === at.relfilenode &&
      r.fork === at.fork &&
      r.block === at.block &&
      r.database_oid === at.database_oid &&
      r.tablespace_oid === at.tablespace_oid,
  );
}

export type Rebuild = { refused: string } | { index: number; summary: string; lsn: string };

/** Why the scan could not rebuild the block, or its outcome for the block: the index in the
 * scan's `recovered` list and the one-line summary. */
export function rebuildOf(scan: WalScan, block: WalBlock, loc: FileLocation): Rebuild | null {
  if (!scan.recovering)
    return {
      refused:
        loc.dbOid === null
          ? 'this file came without its data directory: drop the data directory (its global/pg_control and the file under base/) to rebuild the block as pgpage recover does'
          : "its data directory's global/pg_control was not dropped: it says whether the rebuilt page gets a checksum and whether hint bits are WAL-logged",
    };
  if (scan.recoverRefused !== null) return { refused: scan.recoverRefused };
  const index = recoveredIndex(scan, block);
  const r = scan.recovered[index];
  if (!r) return null;
  if (!r.recovered || r.start === null || r.lsn === null) return { refused: r.reason ?? 'pgpage recover does not rebuild it' };
  const from = r.start.lsn === block.image_record?.lsn ? `the image at ${r.start.lsn}` : `the record at ${r.start.lsn} that initialises the page`;
  return { index, lsn: r.lsn, summary: `replayed ${plural(r.records_after_start, 'record')} after ${from}; page LSN ${r.lsn}` };
}

export function WalRebuild(p: DamagePanelProps & { scan: WalScan; rebuild: Rebuild; loc: FileLocation }) {
  const { entry, page, scan, rebuild: o, loc } = p;
  const { kits } = useDamageState();
  const [error, setError] = useState<string | null>(null);
  const own = loc.root !== null && scan.order.every((path) => path.startsWith(`${loc.root}pg_wal/`));
  const command = `pgpage recover --block ${page.block}${own ? '' : ' --wal WAL'} --out NEW ${entry.path}`;
  if ('refused' in o)
    return (
      <div className="wal-rebuild" data-testid="wal-rebuild" data-state="refused">
        <p data-testid="wal-rebuild-refused" className="warn">
          Not rebuilt from WAL as <code>pgpage recover</code> would: {o.refused}.
        </p>
      </div>
    );
  const from = `rebuilt from WAL as pgpage recover does: ${o.summary}`;
  const inKit = kits.get(entry.id)?.get(page.block)?.from === from;
  const take = () => {
    walRecoveredPage(scan.job, o.index).then(
      (bytes) => {
        if (bytes.length !== page.bytes.length) {
          setError(`the rebuilt page is ${bytes.length} bytes, the file's pages ${page.bytes.length}`);
          return;
        }
        putKitPage(entry.id, page.block, {
          page: bytes,
          from,
          checksum: `as recovery writes it: checksum set for relation block ${page.absoluteBlock} when the cluster has data checksums`,
        });
        setError(null);
      },
      (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
    );
  };
  return (
    <div className="wal-rebuild" data-testid="wal-rebuild" data-state="recovered" data-lsn={o.lsn}>
      <p>
        <button type="button" data-testid="wal-rebuild-take" disabled={inKit} onClick={take}>
          Rebuild block {page.block} from WAL (as pgpage recover)
        </button>{' '}
        <span data-testid="wal-rebuild-summary">{o.summary}</span>. It puts the page the server&apos;s recovery would write in the Repair kit below, with every
        change the WAL holds after the image. In a shell: <code data-testid="wal-rebuild-command">{command}</code>
        {error && (
          <span className="error" role="alert">
            {' '}
            {error}
          </span>
        )}
      </p>
    </div>
  );
}

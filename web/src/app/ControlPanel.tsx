// The data directory's pg_control as pg_controldata would summarise it: the version, whether
// data checksums are on (which decides how every file of the directory is verified), the
// page and WAL geometry, the state and the last checkpoint, and whether its CRC holds.
import type { ClusterControl } from './control';
import { plainText } from '../lib/text';

const str = (v: unknown): string => (v === null || v === undefined ? '—' : plainText(v));

/** Each dropped directory's pg_control, the one of the file open (`open`, its path) first: a
 * drop of a damaged directory beside its base backup holds two, and each is named by its
 * directory, so that the backup's is never read as the damaged one's. */
export function ControlPanel({ controls, open }: { controls: readonly ClusterControl[]; open?: string }) {
  const mine = (c: ClusterControl) => open !== undefined && c.root !== '' && open.startsWith(c.root);
  const ordered = [...controls].sort((a, b) => Number(mine(b)) - Number(mine(a)));
  return (
    <section className="control" data-testid="control-panel">
      <h2>Cluster control file{controls.length > 1 ? 's' : ''}</h2>
      {ordered.map((c) => (
        <Control key={c.path} c={c} named={controls.length > 1} mine={mine(c)} />
      ))}
    </section>
  );
}

function Control({ c, named, mine }: { c: ClusterControl; named: boolean; mine: boolean }) {
  if (!c.control) {
    return (
      <p className="error" role="alert" data-testid="control-error">
        {c.path}: {c.error}
      </p>
    );
  }
  const k = c.control;
  // The current state, as the core reads it (19.0's data_page_checksum_version column is the
  // state initdb chose).
  const checksums = Number(k.checksum_version);
  const change = typeof k.checksum_change === 'string' ? k.checksum_change : null;
  const crcOk = k.crc_ok === true;
  return (
    <div data-testid="control" data-path={c.path} data-checksums={checksums} data-crc-ok={String(crcOk)}>
      {named && (
        <h3 data-testid="control-dir">
          {c.path}
          {mine ? ' (the directory of the file open)' : ''}
        </h3>
      )}
      <dl className="control-fields">
        <dt>PostgreSQL</dt>
        <dd data-testid="control-version">
          {c.pgVersion ?? 'PG_VERSION not dropped'} (pg_control version {str(k.pg_control_version)}, written by {str(k.releases)})
        </dd>
        <dt>data checksums</dt>
        <dd data-testid="control-checksums">
          {checksums === 0
            ? 'checksums are off in this cluster (data_page_checksum_version 0): pages are verified by their headers only'
            : change
              ? `${str(k.checksum_state)} (data_page_checksum_version ${checksums}): ${change}`
              : `on (data_page_checksum_version ${checksums})`}
        </dd>
        <dt>block size</dt>
        <dd data-testid="control-block-size">{str(k.database_block_size)}</dd>
        <dt>WAL segment size</dt>
        <dd>{str(k.bytes_per_wal_segment)}</dd>
        <dt>state</dt>
        <dd data-testid="control-state">{str(k.state)}</dd>
        <dt>latest checkpoint</dt>
        <dd>
          {str(k.checkpoint_lsn)} at {str(k.checkpoint_time)}
        </dd>
        <dt>CRC</dt>
        <dd data-testid="control-crc">
          {crcOk ? 'the stored CRC-32C matches' : 'the stored CRC-32C does not match: pg_control is damaged, and what it says of checksums is not used'}
        </dd>
      </dl>
      {k.text !== undefined && (
        <details>
          <summary>pg_controldata</summary>
          <pre>{str(k.text)}</pre>
        </details>
      )}
    </div>
  );
}

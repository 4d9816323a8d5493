// Which dropped directory the report is of: a base backup not yet recovered (a backup_label
// beside its pg_control) is never the subject by default; with one such backup beside the
// damaged directory, the report reads it as its --from until the user chooses otherwise.
import { describe, expect, it } from 'vitest';
import { rememberDropped } from '../rows/dropped';
import { reportSource } from './useReport';

const dir = (root: string, extra: string[] = []) =>
  ['PG_VERSION', 'global/pg_control', 'base/5/16384', ...extra].map((p) => ({ path: `${root}${p}`, file: new File([new Uint8Array(8192)], p) }));

describe('reportSource', () => {
  it('reports on the directory without a backup_label, with the backup as its base backup', () => {
    // The backup's name sorts after the damaged directory's: the last root is not chosen for that.
    rememberDropped([...dir('drop/pgdata/'), ...dir('drop/zbackup/', ['backup_label'])]);
    const s = reportSource([]);
    expect(s?.root).toBe('drop/pgdata/');
    expect(s?.backup?.root).toBe('drop/zbackup/');
    expect(s?.others).toEqual(['drop/zbackup/']);
    // The user's choice stands: the backup itself as the subject, and no base backup.
    expect(reportSource([], { root: 'drop/zbackup/' })?.root).toBe('drop/zbackup/');
    expect(reportSource([], { root: 'drop/pgdata/' })?.backup).toBeUndefined();
  });
});

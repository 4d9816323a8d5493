// `#file=` links: a path names one file; a bare name (older links) only when one file has it.
import { describe, expect, it } from 'vitest';
import { ambiguousWords, resolveFileRef } from './fileRef';
import { entry } from './testing';

const at = (path: string) => Object.assign(entry(path.slice(path.lastIndexOf('/') + 1)), { path });

describe('resolveFileRef', () => {
  const backup = at('backup/base/5/16427');
  const live = at('live/base/5/16427');
  const other = at('live/base/5/16430');
  const files = [backup, live, other];

  it('opens the file a path names', () => {
    expect(resolveFileRef(files, 'live/base/5/16427')).toEqual({ file: live });
    expect(resolveFileRef(files, 'backup/base/5/16427')).toEqual({ file: backup });
  });

  it('opens a bare name only when one file has it, and says so when several do', () => {
    expect(resolveFileRef(files, '16430')).toEqual({ file: other });
    expect(resolveFileRef(files, '16427')).toEqual({ ambiguous: [backup, live] });
    expect(resolveFileRef(files, '99999')).toEqual({ none: true });
    expect(ambiguousWords('16427', [backup, live])).toBe(
      'The link names "16427", which 2 loaded files are called (backup/base/5/16427, live/base/5/16427): pick one in the files table.',
    );
  });

  it('opens the same relation file in a data directory dropped under another name', () => {
    const mine = Object.assign(at('copy-of-pgdata/base/5/16427'), { relDir: 'base/5' });
    const catalog = Object.assign(at('copy-of-pgdata/base/1/16427'), { relDir: 'base/1' });
    expect(resolveFileRef([catalog, mine], 'pgdata/base/5/16427')).toEqual({ file: mine });
    expect(resolveFileRef([catalog, mine], 'base/5/16427')).toEqual({ file: mine });
  });
});

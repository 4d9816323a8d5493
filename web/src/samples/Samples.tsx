// "Load samples": the PostgreSQL-made files of public/samples/ fetched from the page's own
// origin and added like dropped files, all at once or one by one from a list with descriptions.
import { useCallback, useRef, useState, type RefObject } from 'react';
import type { FileEntry } from '../files';
import { fetchSamples, loadSampleManifest, samplePath, type Sample, type SampleManifest } from './samples';

type AddFiles = (list: { file: File; path: string; fromFolder: boolean }[]) => void | Promise<void>;

/** Adds the given samples that are neither loaded nor being fetched. */
export function useSampleLoader(files: RefObject<FileEntry[]>, addFiles: AddFiles): (samples: Sample[]) => Promise<void> {
  const fetching = useRef(new Set<string>());
  return useCallback(
    async (samples: Sample[]) => {
      const missing = samples.filter((s) => !fetching.current.has(s.file) && !files.current.some((f) => f.path === samplePath(s)));
      if (missing.length === 0) return;
      for (const s of missing) fetching.current.add(s.file);
      try {
        await addFiles(await fetchSamples(missing));
      } finally {
        for (const s of missing) fetching.current.delete(s.file);
      }
    },
    [files, addFiles],
  );
}

export function SamplesPicker(p: { load(samples: Sample[]): Promise<void> }) {
  const [manifest, setManifest] = useState<SampleManifest | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = (pick: (m: SampleManifest) => Sample[]) =>
    void loadSampleManifest()
      .then(async (m) => {
        setManifest(m);
        setError(null);
        await p.load(pick(m));
      })
      .catch((e: unknown) => setError(`Could not load the samples: ${e instanceof Error ? e.message : String(e)}`));

  return (
    <div className="samples">
      <button type="button" data-testid="load-samples" onClick={() => run((m) => m.samples)}>
        Load samples
      </button>{' '}
      <details onToggle={(e) => (e.currentTarget.open && !manifest ? run(() => []) : undefined)}>
        <summary>or pick one</summary>
        {manifest && (
          <ul>
            {manifest.samples.map((s) => (
              <li key={s.file}>
                <button type="button" className="link" data-testid="sample" data-file={s.file} onClick={() => run(() => [s])}>
                  {s.file}
                </button>{' '}
                {s.description}
              </li>
            ))}
          </ul>
        )}
        {manifest && (
          <p className="notice">
            Written by PostgreSQL {manifest.server_version.split(' ')[0]} with data checksums on ({manifest.generator}).
          </p>
        )}
      </details>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

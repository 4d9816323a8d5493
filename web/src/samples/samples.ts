// The PostgreSQL-made samples in public/samples/ (scripts/make-samples.sh): their manifest,
// and fetching them from the page's own origin as File objects, so they load like dropped files.
import type { StatusName } from '../lib/status';

/** What PostgreSQL's page_checksum() and page_header() said about one page of a sample. */
export interface SamplePage {
  block: number;
  absolute_block: number;
  stored: number;
  /** null for new pages (pd_upper = 0): page_checksum() does not compute one. */
  computed: number | null;
  upper: number;
  status: StatusName;
}

/** The one change a corrupted copy carries, in bytes of `block`. */
export interface SampleChange {
  block: number;
  offset: number;
  length: number;
  what: string;
}

export interface Sample {
  role: string;
  /** The relation file name, `16427`, `16427_fsm`, `16427.2`: it gives fork and segment. */
  file: string;
  kind: string;
  fork: string;
  segment: number;
  description: string;
  pages: SamplePage[];
  change: SampleChange | null;
}

export interface SampleManifest {
  generator: string;
  server_version: string;
  block_size: number;
  samples: Sample[];
}

export const SAMPLE_DIR = 'samples';

/** A sample's path as the app lists it; the file name alone decides fork and segment. */
export const samplePath = (s: Sample): string => `${SAMPLE_DIR}/${s.file}`;

let manifest: Promise<SampleManifest> | null = null;

export function loadSampleManifest(): Promise<SampleManifest> {
  manifest ??= fetch(`./${SAMPLE_DIR}/manifest.json`).then(async (r) => {
    if (!r.ok) throw new Error(`${SAMPLE_DIR}/manifest.json: HTTP ${r.status}`);
    return (await r.json()) as SampleManifest;
  });
  // A failed fetch (offline before the first visit) may succeed later.
  manifest.catch(() => (manifest = null));
  return manifest;
}

export async function fetchSamples(samples: Sample[]): Promise<{ file: File; path: string; fromFolder: boolean }[]> {
  return Promise.all(
    samples.map(async (s) => {
      const r = await fetch(`./${samplePath(s)}`);
      if (!r.ok) throw new Error(`${samplePath(s)}: HTTP ${r.status}`);
      return { file: new File([await r.arrayBuffer()], s.file), path: samplePath(s), fromFolder: false };
    }),
  );
}

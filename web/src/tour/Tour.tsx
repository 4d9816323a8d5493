// The guided tour's panel: Back / Next / Close over TOUR_STEPS (steps.ts). It loads the samples
// if they are not loaded, and on each step asks the app to show a sample's block and what to
// outline there. Arrow keys step and Escape closes while the panel has the focus.
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { ByteRange } from '../components/HexView';
import type { FileEntry } from '../files';
import { loadSampleManifest, samplePath, type Sample, type SampleManifest } from '../samples/samples';
import { stepHighlight, TOUR_STEPS } from './steps';

/** What the app shows for a step: the page and what PageView outlines on it. */
export interface TourView {
  fileId: number;
  block: number;
  highlight: ByteRange;
  item?: number;
  header?: boolean;
}

export interface TourProps {
  files: FileEntry[];
  /** Adds those of the samples not loaded yet. */
  loadSamples(samples: Sample[]): Promise<void>;
  show(view: TourView): void;
  onClose(): void;
}

/** `code` spans in a step's text (the playground's lessons' too). */
export function withCode(text: string): ReactNode[] {
  return text.split('`').map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part));
}

export function Tour(p: TourProps) {
  const [step, setStep] = useState(0);
  const [manifest, setManifest] = useState<SampleManifest | null>(null);
  const [error, setError] = useState<string | null>(null);
  const next = useRef<HTMLButtonElement>(null);
  const close = useRef<HTMLButtonElement>(null);
  const shown = useRef<string>('');
  const { loadSamples } = p;

  useEffect(() => {
    next.current?.focus();
    loadSampleManifest()
      .then(async (m) => {
        await loadSamples(m.samples);
        setManifest(m);
      })
      .catch((e: unknown) => setError(`the samples could not be loaded: ${e instanceof Error ? e.message : String(e)}`));
  }, [loadSamples]);

  const s = TOUR_STEPS[step];
  const sample = manifest?.samples.find((x) => x.role === s.role);
  const page = sample?.pages[s.block];
  const entry = sample ? p.files.find((f) => f.path === samplePath(sample)) : undefined;

  // Show each step's page once: the user may wander off from it and come back with Back/Next.
  useEffect(() => {
    if (!entry || !sample) return;
    const key = `${step}:${entry.id}`;
    if (shown.current === key) return;
    shown.current = key;
    const highlight = stepHighlight(s, sample);
    p.show({ fileId: entry.id, block: s.block, highlight, item: s.item, header: s.header });
    // The page loads and its hex rows render over a few frames: scroll to the outlined bytes
    // of this step's page (not the previous one's) once they exist.
    let tries = 0;
    const target = `[data-testid=page-view][data-file="${entry.name}"][data-block="${s.block}"] [data-off="${highlight.start}"][data-highlight=true]`;
    const scroll = () => {
      const hit = document.querySelector(target);
      if (hit) hit.scrollIntoView({ block: 'center' });
      else if (tries++ < 120) frame = requestAnimationFrame(scroll);
    };
    let frame = requestAnimationFrame(scroll);
    return () => cancelAnimationFrame(frame);
  }, [entry, sample, s, step, p.show]);

  const last = TOUR_STEPS.length - 1;
  const go = (to: number) => {
    const n = Math.max(0, Math.min(last, to));
    setStep(n);
    // Next is disabled on the last step; the focus must stay in the panel for the keys.
    if (n === last) close.current?.focus();
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowRight') go(step + 1);
    else if (e.key === 'ArrowLeft') go(step - 1);
    else if (e.key === 'Escape') p.onClose();
    else return;
    e.preventDefault();
    e.stopPropagation();
  };

  return (
    <div className="tour" data-testid="tour" data-step={step + 1} role="dialog" aria-labelledby="tour-title" onKeyDown={onKey}>
      <h2 id="tour-title">
        {s.title}{' '}
        <small>
          ({step + 1} of {TOUR_STEPS.length})
        </small>
      </h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {manifest && sample && page ? s.text({ manifest, sample, page }).map((t, i) => <p key={i}>{withCode(t)}</p>) : !error && <p>Loading the samples…</p>}
      <nav className="tour-buttons" aria-label="tour steps">
        <button type="button" onClick={() => go(step - 1)} disabled={step === 0}>
          Back
        </button>
        <button type="button" ref={next} onClick={() => go(step + 1)} disabled={step === last}>
          Next
        </button>
        <button type="button" ref={close} onClick={p.onClose}>
          Close
        </button>
      </nav>
      <p className="tour-keys">
        <kbd>←</kbd> <kbd>→</kbd> step, <kbd>Esc</kbd> closes.
      </p>
    </div>
  );
}

// An annotated hex dump: offset, 16 bytes a row, ASCII. It knows a data provider and a list
// of spans (field, role, value, doc), nothing about PostgreSQL. Hover shows the field; the
// arrow keys move a cursor; bytes of `selectedItem` and of `markedFields` are highlighted, and
// an optional byte range is outlined (the guided tour points at bytes with it).
// Given `onEditByte`, hex digits typed at the cursor overwrite its byte, high nibble first.
import { memo, useEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';

/** Rows rendered in the first frame; the rest follow in later tasks so none runs long. */
const FIRST_ROWS = 32;
const ROWS_PER_TASK = 64;
import { byteToSpan, type Span } from '../lib/spans';

export interface ByteProvider {
  length: number;
  /** The bytes start..end (end exclusive). */
  slice(start: number, end: number): Uint8Array;
}

/** Bytes start..end (end exclusive) of the page. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface HexViewProps {
  data: ByteProvider;
  /** File offset of byte 0, for the offset column. */
  baseOffset: number;
  spans: Span[];
  /** Fields to mark loudly (data-mismatch="true"), e.g. a checksum that does not match. */
  markedFields: ReadonlySet<string>;
  selectedItem: number | null;
  /** Scroll the dump (its own scroll box only) so that byte `start` shows; a new `n` asks again. */
  reveal?: { start: number; n: number };
  /** Bytes to outline (data-highlight="true"). */
  highlight?: ByteRange;
  cursor: number;
  onCursor(offset: number): void;
  onHover(span: Span | null, offset: number | null): void;
  /** Editing: a hex digit typed at the cursor asks for its byte to become `value`. */
  onEditByte?(offset: number, value: number): void;
  /** Bytes to mark as edited (data-edited="true"). */
  editedOffsets?: ReadonlySet<number>;
  /** While true (files are being verified, on the same cores), rows past the first screenful
   * wait until the reader reaches for them: scrolls or focuses the dump, or the cursor, the
   * highlight or the selected item lies past them. A whole 8 kB dump is ~10,000 elements,
   * whose rendering took ~200 ms of a 1 GB verification's 600. */
  hold?: boolean;
  /** Rows equal to the row before show as one `*` line, and the end offset follows, as
   * `hexdump -C` prints them (a page of one repeated row in three lines). */
  fold?: boolean;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

interface HexRowProps {
  row: number;
  bytes: Uint8Array;
  map: Int32Array;
  spans: Span[];
  markedFields: ReadonlySet<string>;
  selectedItem: number | null;
  highlight?: ByteRange;
  cursor: number;
  baseOffset: number;
  edited: ReadonlySet<number> | undefined;
}

/** An edit makes a new byte array and edited set: a row re-renders only if its own bytes changed. */
function sameRow(a: HexRowProps, b: HexRowProps): boolean {
  for (const k of Object.keys(a) as (keyof HexRowProps)[]) if (k !== 'bytes' && k !== 'edited' && a[k] !== b[k]) return false;
  if (a.bytes.length !== b.bytes.length) return false;
  for (let i = a.row; i < Math.min(a.row + 16, a.bytes.length); i++) {
    if (a.bytes[i] !== b.bytes[i] || (a.edited?.has(i) ?? false) !== (b.edited?.has(i) ?? false)) return false;
  }
  return true;
}

const HexRow = memo(function HexRow(p: HexRowProps) {
  const hex = [];
  const ascii: string[] = [];
  const r = p.row;
  for (let i = r; i < Math.min(r + 16, p.bytes.length); i++) {
    const s = p.map[i] >= 0 ? p.spans[p.map[i]] : undefined;
    const b = p.bytes[i];
    const cls =
      `b role-${s?.role ?? 'unused'}` +
      (s?.item !== undefined && s.item === p.selectedItem ? ' sel' : '') +
      (i === p.cursor ? ' cursor' : '') +
      (s?.problem ? ' flagged' : '') +
      (p.edited?.has(i) ? ' edited' : '');
    const lit = p.highlight !== undefined && i >= p.highlight.start && i < p.highlight.end;
    const marked = s !== undefined && p.markedFields.has(s.field);
    hex.push(
      <span
        key={i}
        className={lit ? `${cls} hl` : cls}
        data-highlight={lit ? 'true' : undefined}
        data-off={i}
        data-field={s?.field}
        data-item={s?.item}
        data-mismatch={marked ? 'true' : undefined}
        data-edited={p.edited?.has(i) ? 'true' : undefined}
      >
        {HEX[b]}
      </span>,
    );
    ascii.push(b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.');
  }
  return (
    <div className="hexrow">
      <span className="hexoff">{(p.baseOffset + r).toString(16).padStart(8, '0')}</span>
      <span className="hexbytes">{hex}</span>
      <span className="hexascii">{ascii.join('')}</span>
    </div>
  );
}, sameRow);

function HexViewImpl(p: HexViewProps) {
  const bytes = useMemo(() => p.data.slice(0, p.data.length), [p.data]);
  const map = useMemo(() => byteToSpan(p.spans, bytes.length), [p.spans, bytes.length]);
  const totalRows = Math.ceil(bytes.length / 16);
  // Rows render progressively when the spans are new (a new page, or an edit that changed
  // its layout), not after an edit that left the spans as they were.
  const { spans } = p;
  const [shown, setShown] = useState({ spans, rows: FIRST_ROWS });
  const rowsShown = shown.spans === spans ? shown.rows : FIRST_ROWS;
  const [reached, setReached] = useState(false);
  // The rows something on the page points at.
  const needed = useMemo(() => {
    let end = Math.max(p.cursor + 1, p.highlight?.end ?? 0);
    if (p.selectedItem !== null) for (const s of spans) if (s.item === p.selectedItem) end = Math.max(end, s.start + s.len);
    return Math.ceil(end / 16);
  }, [p.cursor, p.highlight, p.selectedItem, spans]);
  const holding = p.hold === true && !reached && rowsShown >= needed;
  const box = useRef<HTMLDivElement>(null);
  // Wider than its box (a phone): said above the dump, which scrolls sideways in its box.
  const [wide, setWide] = useState(false);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const look = () => setWide(el.scrollWidth > el.clientWidth + 1);
    look();
    // (A DOM without layout, as tests run in, has none.)
    if (typeof ResizeObserver === 'undefined') return;
    const o = new ResizeObserver(look);
    o.observe(el);
    return () => o.disconnect();
  }, []);
  const revealAt = p.reveal?.start;
  const revealN = p.reveal?.n;
  useEffect(() => {
    const el = box.current;
    if (!el || revealAt === undefined) return;
    // Every row has the same height and the rows not rendered yet keep their room, so the
    // byte's row is at a known place whether or not it is rendered.
    const rowH = el.querySelector<HTMLElement>('.hexrow')?.offsetHeight ?? 16;
    const pad = parseFloat(getComputedStyle(el).paddingTop) || 0;
    const top = pad + Math.floor(revealAt / 16) * rowH;
    if (top < el.scrollTop || top + rowH > el.scrollTop + el.clientHeight) el.scrollTop = Math.max(0, top - el.clientHeight / 3);
    // On a narrow screen the dump may be above the view: bring it in, the window only as far as needed.
    // Not while the playground is open: a lesson's step outlines bytes here, and its own text
    // (what happened, the next step) is what the reader looks at.
    if (document.querySelector('[data-testid=playground]')) return;
    const r = el.getBoundingClientRect();
    if (r.bottom < 0 || r.top > window.innerHeight) el.scrollIntoView({ block: 'nearest' });
  }, [revealAt, revealN]);
  useEffect(() => {
    if (shown.spans !== spans) {
      setShown({ spans, rows: FIRST_ROWS });
      return;
    }
    if (shown.rows >= totalRows || holding) return;
    const t = setTimeout(() => setShown({ spans, rows: shown.rows + ROWS_PER_TASK }), 0);
    return () => clearTimeout(t);
  }, [spans, shown, totalRows, holding]);
  // The high nibble typed at this offset of this page; the next digit there completes the byte.
  const pageKey = `${p.baseOffset}:${bytes.length}`;
  const [high, setHigh] = useState<{ at: number; pageKey: string } | null>(null);

  const offsetOf = (e: MouseEvent): number | null => {
    const t = (e.target as HTMLElement).closest('[data-off]');
    return t ? Number(t.getAttribute('data-off')) : null;
  };
  const onKey = (e: KeyboardEvent) => {
    const step: Record<string, number> = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -16, ArrowDown: 16, PageUp: -256, PageDown: 256 };
    const d = step[e.key];
    if (p.onEditByte && /^[0-9a-f]$/i.test(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      const nibble = parseInt(e.key, 16);
      const old = bytes[p.cursor];
      if (high?.at === p.cursor && high.pageKey === pageKey) {
        p.onEditByte(p.cursor, (old & 0xf0) | nibble);
        setHigh(null);
        p.onCursor(Math.min(bytes.length - 1, p.cursor + 1));
      } else {
        p.onEditByte(p.cursor, (nibble << 4) | (old & 0x0f));
        setHigh({ at: p.cursor, pageKey });
      }
      return;
    }
    if (d === undefined) return;
    e.preventDefault();
    setHigh(null);
    const next = Math.min(bytes.length - 1, Math.max(0, p.cursor + d));
    p.onCursor(next);
    const s = map[next];
    p.onHover(s >= 0 ? p.spans[s] : null, next);
  };

  const rows = [];
  let previous: string | null = null;
  let starred = false;
  for (let r = 0; r < Math.min(bytes.length, p.fold ? bytes.length : rowsShown * 16); r += 16) {
    if (p.fold) {
      const same = bytes.subarray(r, r + 16).join(' ');
      if (same === previous && r + 16 <= bytes.length) {
        if (!starred)
          rows.push(
            <div key={`fold-${r}`} className="hexrow hexfold" data-fold-from={r}>
              *
            </div>,
          );
        starred = true;
        continue;
      }
      previous = same;
      starred = false;
    }
    // A row re-renders only when the cursor or the selected item touches it.
    const cursorHere = p.cursor >= r && p.cursor < r + 16 ? p.cursor : -1;
    let selHere = false;
    for (let i = r; i < Math.min(r + 16, bytes.length) && p.selectedItem !== null; i++) {
      if (map[i] >= 0 && p.spans[map[i]].item === p.selectedItem) selHere = true;
    }
    rows.push(
      <HexRow
        key={r}
        row={r}
        bytes={bytes}
        map={map}
        spans={p.spans}
        markedFields={p.markedFields}
        selectedItem={selHere ? p.selectedItem : null}
        highlight={p.highlight && p.highlight.start < r + 16 && p.highlight.end > r ? p.highlight : undefined}
        cursor={cursorHere}
        baseOffset={p.baseOffset}
        edited={p.editedOffsets}
      />,
    );
  }
  return (
    <>
      {wide && (
        <p className="hex-wide" data-testid="hex-scroll-hint">
          The dump is wider than the screen: it scrolls sideways in its box for the last bytes of each row and the text column.
        </p>
      )}
      <div
        ref={box}
        className="hexview"
        data-testid="hexview"
        tabIndex={0}
        // Keys go to the dump, not to a screen reader's browse mode; what the cursor is on is
        // announced by the hover line (a live region), not by 8,192 byte cells.
        role="application"
        data-complete={p.fold || rowsShown >= totalRows ? 'true' : 'false'}
        data-folded={p.fold ? 'true' : undefined}
        // Rows held back while files verify: a state tests wait on instead of a time.
        data-held={holding ? 'true' : 'false'}
        aria-label={`hex dump of the page; arrow keys move the cursor${p.onEditByte ? '; hex digits overwrite the byte at the cursor' : ''}`}
        onKeyDown={onKey}
        onScroll={() => setReached(true)}
        onFocus={() => setReached(true)}
        onMouseOver={(e) => {
          const off = offsetOf(e);
          if (off === null) return;
          const s = map[off];
          p.onHover(s >= 0 ? p.spans[s] : null, off);
        }}
        onClick={(e) => {
          const off = offsetOf(e);
          if (off === null) return;
          setHigh(null);
          p.onCursor(off);
        }}
      >
        {rows}
        {p.fold && (
          <div className="hexrow hexend">
            <span className="hexoff">{(p.baseOffset + bytes.length).toString(16).padStart(8, '0')}</span>
          </div>
        )}
        {/* The rows still to come take their room, so the dump has its full height (and a
          scroll bar to reach them by) from the start. */}
        {!p.fold && rowsShown < totalRows && <div className="hexrest" aria-hidden="true" style={{ height: `${(totalRows - rowsShown) * 1.35}em` }} />}
      </div>
    </>
  );
}

export const HexView = memo(HexViewImpl);

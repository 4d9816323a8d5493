// The hover line of the hex dump: the byte's offset and its span's own row, as the core
// describes it: `Structure.member`, the value formatted by the row's kind, the finding if
// the bytes look wrong, pageinspect's column and the doc citing the structure's header, in
// that order: the line has a fixed height (nothing may move under the pointer), so on a
// narrow screen what gets cut is the doc, never the value; the title holds all of it.
import type { Span } from '../lib/spans';

export function SpanTip(p: { span: Span | null; off: number | null }) {
  const s = p.span;
  return (
    <p
      className="hover"
      data-testid="hover"
      aria-live="polite"
      data-qualified={s?.qualified}
      title={s && p.off !== null ? `offset ${p.off}: ${s.qualified} = ${s.value}${s.problem ? ` ⚠ ${s.problem}` : ''}${s.doc ? ` — ${s.doc}` : ''}` : undefined}
    >
      {p.off !== null && (
        <>
          offset {p.off} (0x{p.off.toString(16)}):{' '}
          {s ? (
            <>
              <code>{s.qualified}</code> = <span data-testid="hover-value">{s.value}</span>
              {s.item !== undefined && ` (item ${s.item})`}
              {s.problem && <strong title={s.rule}> ⚠ {s.problem}</strong>}
              {s.column !== undefined && <> · pageinspect {s.column}</>}
              {s.doc && (
                <>
                  {' — '}
                  <span data-testid="hover-doc">{s.doc}</span>
                </>
              )}
            </>
          ) : (
            'no field'
          )}
        </>
      )}
      {/* Its room is kept while empty (the dump must not move at the first tap): said what
          it is for, not left as a blank band above the dump. */}
      {p.off === null && (
        <span className="hover-empty" data-testid="hover-empty">
          Point at or tap a byte of the dump: its offset, field (as PostgreSQL&apos;s headers name it), value and pageinspect column show here.
        </span>
      )}
    </p>
  );
}

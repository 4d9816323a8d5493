// The hover line of the hex dump: the byte's offset and its span's own row, as the core
// describes it: `Structure.member`, pageinspect's column, the value formatted by the row's
// kind, the doc citing the structure's header, and the finding if the bytes look wrong.
import type { Span } from '../lib/spans';

export function SpanTip(p: { span: Span | null; off: number | null }) {
  const s = p.span;
  return (
    <p className="hover" data-testid="hover" aria-live="polite" data-qualified={s?.qualified}>
      {p.off !== null && (
        <>
          offset {p.off} (0x{p.off.toString(16)}):{' '}
          {s ? (
            <>
              <code>{s.qualified}</code>
              {s.column !== undefined && <> (pageinspect {s.column})</>}
              {s.item !== undefined && ` (item ${s.item})`} = <span data-testid="hover-value">{s.value}</span>
              {s.doc && (
                <>
                  {' — '}
                  <span data-testid="hover-doc">{s.doc}</span>
                </>
              )}
              {s.problem && (
                <strong title={s.rule}>
                  {' '}
                  ⚠ {s.problem}
                </strong>
              )}
            </>
          ) : (
            'no field'
          )}
        </>
      )}
    </p>
  );
}

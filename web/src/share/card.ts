// The page view's picture is a card to paste into a ticket or a chat: the page's heading and
// verdict, the report's finding for the block, the header and the first items, "and N more";
// the hex dump, the damage panel (WAL list, comparison, repair kit) and the lab are left out.

/** Item rows the card shows; the rest are counted in one row. */
export const CARD_ITEMS = 20;

/** What the page view shows but the card leaves out. */
const LEFT_OUT = '.hexview, .hex-wide, .hover, [data-testid=damage-panel], [data-testid=lab], [data-testid=tuple-columns]';

/** Makes the copy of the page view a card (share/png.ts paints the copy). */
export function cardOf(copy: HTMLElement): void {
  for (const el of copy.querySelectorAll(LEFT_OUT)) el.remove();
  for (const table of copy.querySelectorAll<HTMLTableElement>('[data-testid=items-panel]')) {
    // As wide as the card, not as its longest flag names: cells wrap between words (never
    // inside one, so a phone's card grows wider rather than a letter a line) (a long
    // t_data keeps its one line, cut with an ellipsis as on the page). Inline and important,
    // over the picture's rule that opens scroll boxes to their whole width.
    const box = table.closest<HTMLElement>('.items-scroll');
    box?.style.setProperty('width', 'auto', 'important');
    box?.style.setProperty('max-width', '100%', 'important');
    table.style.setProperty('width', '100%');
    table.style.setProperty('font-size', '0.75rem');
    for (const cell of table.querySelectorAll<HTMLElement>(
      'th, td:not([data-col=t_data]):not([data-col=data]):not([data-col=key_data]):not([data-col=tids]):not([data-col=t_bits])',
    )) {
      cell.style.setProperty('white-space', 'normal', 'important');
    }
    // A null bitmap is one word of up to 1,600 digits: cut like t_data.
    for (const cell of table.querySelectorAll<HTMLElement>('td[data-col=t_bits]')) {
      for (const [k, v] of [
        ['max-width', '28ch'],
        ['overflow', 'hidden'],
        ['text-overflow', 'ellipsis'],
        ['white-space', 'nowrap'],
      ])
        cell.style.setProperty(k, v);
    }
    const body = table.tBodies[0];
    if (!body || body.rows.length <= CARD_ITEMS) continue;
    const more = body.rows.length - CARD_ITEMS;
    while (body.rows.length > CARD_ITEMS) body.deleteRow(CARD_ITEMS);
    const row = body.insertRow();
    row.setAttribute('data-card-more', String(more));
    const cell = row.insertCell();
    cell.colSpan = table.tHead?.rows[0]?.cells.length ?? 1;
    cell.textContent = `and ${more.toLocaleString('en-US')} more items (the page view lists them all)`;
  }
}

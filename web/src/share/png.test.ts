// The copy a picture is painted from: what is hidden on the page stays out of it, and a long
// list is cut with a line saying how much more there is.
import { describe, expect, it } from 'vitest';
import { copyOf, cutLongLists } from './png';

const html = (s: string): HTMLElement => {
  const el = document.createElement('section');
  el.innerHTML = s;
  return el;
};

describe('the picture copy', () => {
  it('keeps a closed details element to its summary, an open one whole', () => {
    const { copy } = copyOf(
      html('<details><summary>Note, 3 pages</summary><ul><li>a</li><li>b</li></ul></details><details open><summary>Open</summary><p>shown</p></details>'),
      new Set(),
    );
    const [closed, open] = copy.querySelectorAll('details');
    expect(closed.textContent).toBe('Note, 3 pages');
    expect(open.textContent).toBe('Openshown');
  });

  it("turns a button's picture words into text and leaves other buttons out", () => {
    const { copy } = copyOf(
      html('<ul><li>x</li><li><button data-png-words="… and 9 more findings">Show all 10</button></li></ul><button>Go</button>'),
      new Set(),
    );
    expect(copy.querySelectorAll('button')).toHaveLength(0);
    expect(copy.textContent).toBe('x… and 9 more findings');
  });

  it("says an element's redacted words while redacting, its own words otherwise", () => {
    const el = html(
      '<ul><li data-redacted="(2,14) holds another row\'s key than the index names">(2,14) holds key 700030 where the index names 700014</li><li>kept</li></ul>',
    );
    expect(copyOf(el, new Set(), true).copy.textContent).toBe("(2,14) holds another row's key than the index nameskept");
    expect(copyOf(el, new Set()).copy.textContent).toBe('(2,14) holds key 700030 where the index names 700014kept');
  });

  it('cuts a long list to its most rows and counts the rest, spacers aside', () => {
    const el = html(
      '<table><tbody data-png-most="2" data-png-total="5" data-png-noun="problem pages">' +
        '<tr aria-hidden="true" class="spacer"><td colspan="3"></td></tr>' +
        '<tr><td>1</td><td>a</td><td>b</td></tr><tr><td>2</td><td>a</td><td>b</td></tr><tr><td>3</td><td>a</td><td>b</td></tr>' +
        '</tbody></table><ul data-png-most="2"><li>a</li><li>b</li></ul>',
    );
    cutLongLists(el);
    const rows = [...el.querySelectorAll('tbody tr')];
    expect(rows.map((r) => r.textContent)).toEqual(['1ab', '2ab', '… and 3 more problem pages, not in this picture (2 of 5 shown)']);
    expect(rows[2].querySelector('td')?.colSpan).toBe(3);
    // A list no longer than its most is left as it is.
    expect([...el.querySelectorAll('ul li')].map((li) => li.textContent)).toEqual(['a', 'b']);
  });
});

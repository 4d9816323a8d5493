// axe-core (Deque's rules, run in the page) over the whole document: the serious and critical
// violations, one line each with the elements that break the rule, for a failure message
// that says what to fix.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from './test';

/** Rules that fail a test whatever their impact: a table header with no text is one a
 * screen reader announces as nothing (axe rates it minor). */
const ALWAYS = new Set(['empty-table-header']);

export interface AxeSummary {
  /** `rule (impact): help — targets`, serious and critical ones and those of ALWAYS. */
  blocking: string[];
  /** Every violation's rule and impact, for the log. */
  all: string[];
}

export async function axe(page: Page): Promise<AxeSummary> {
  // WCAG 2.2 A and AA plus axe's best practices (landmarks, one h1, headings in order).
  // The hex dump is 512 rows of one template: its first and last 8 hold every byte role of a
  // page (header, line pointers, free space, tuples, special space); the contrast check of all
  // 8,192 bytes took minutes and would find nothing more.
  const r = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .exclude('.hexview > .hexrow:nth-child(n+9):nth-last-child(n+10)')
    .analyze();
  const line = (v: (typeof r.violations)[number]) =>
    `${v.id} (${v.impact}): ${v.help} — ${v.nodes
      .slice(0, 4)
      .map((n) => n.target.join(' '))
      .join(', ')}${v.nodes.length > 4 ? ` and ${v.nodes.length - 4} more` : ''}`;
  return {
    blocking: r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical' || ALWAYS.has(v.id)).map(line),
    all: r.violations.map((v) => `${v.id} (${v.impact}, ${v.nodes.length})`),
  };
}

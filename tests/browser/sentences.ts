// A sentence said twice in one paragraph of the report's findings reads as a fault: each
// paragraph and list item is split into its sentences, and any that comes back is returned
// with the text it was in.
import type { Locator } from './test';

export async function repeatedSentences(findings: Locator): Promise<string[]> {
  const texts = await findings.locator('p, li').evaluateAll((els) => els.map((e) => e.textContent ?? ''));
  return texts.flatMap((t) => {
    const said = t
      .split(/(?<=[.!?])\s+/)
      .map((x) => x.trim())
      // A rank's "1." or a list's "a." alone is no sentence.
      .filter((x) => x.length > 12);
    return said.filter((x, i) => said.indexOf(x) !== i).map((x) => `"${x}" twice in: ${t}`);
  });
}

// A value of unknown shape as text: scalars as String() prints them, anything else as JSON
// (never "[object Object]").

export function plainText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v) ?? '';
}

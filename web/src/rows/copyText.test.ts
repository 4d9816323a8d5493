import { expect, test } from 'vitest';
import { copyTextRows } from './copyText';

test('COPY text lines read back as the server wrote them', () => {
  // As PostgreSQL's COPY TO prints a row of ('a\tb', NULL, 'back\\slash', E'two\nlines', '').
  expect(copyTextRows('a\\tb\t\\N\tback\\\\slash\ttwo\\nlines\t\n1\t2\t3\t4\t5\n')).toEqual([
    ['a\tb', null, 'back\\slash', 'two\nlines', ''],
    ['1', '2', '3', '4', '5'],
  ]);
  expect(copyTextRows('')).toEqual([]);
});

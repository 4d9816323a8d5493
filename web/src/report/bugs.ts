// The message to post to pgsql-bugs: what the user alone knows (platform, storage, what
// happened, the server's log), the cluster as pg_control says it is (the core's decode, as
// pg_controldata prints it), and the evidence: the incident report's Markdown.
import type { ReportJson } from './protocol';

export interface BugFields {
  platform: string;
  storage: string;
  happened: string;
  log: string;
}

export const BUG_FIELDS: { key: keyof BugFields; label: string; hint: string }[] = [
  { key: 'platform', label: 'Platform', hint: 'Operating system and its version, CPU architecture, how PostgreSQL was installed.' },
  { key: 'storage', label: 'Storage', hint: 'File system, disks or cloud volume, RAID or controller with a write cache, fsync settings.' },
  { key: 'happened', label: 'What happened', hint: 'What ran before the first error: crashes, power loss, restores, upgrades, replication changes.' },
  { key: 'log', label: 'Server log lines', hint: 'The first error in the server log and the lines before it.' },
];

const orTodo = (s: string) => (s.trim() === '' ? '(to be filled in)' : s.trim());

export function bugMessage(r: ReportJson, markdown: string, controldata: string | null, fields: BugFields): string {
  const version = r.cluster.pg_version === null ? 'not known (no PG_VERSION was dropped)' : String(r.cluster.pg_version);
  const lines = [
    'To: pgsql-bugs@lists.postgresql.org',
    `Subject: Data corruption${r.cluster.pg_version === null ? '' : ` in PostgreSQL ${r.cluster.pg_version}`}: ${r.verdict}`,
    '',
    `PostgreSQL major version: ${version}`,
    `Platform: ${orTodo(fields.platform)}`,
    `Storage: ${orTodo(fields.storage)}`,
    '',
    'What happened:',
    orTodo(fields.happened),
    '',
    'Server log lines:',
    '```',
    orTodo(fields.log),
    '```',
    '',
    'pg_control (as pg_controldata prints it):',
    '```',
    controldata === null ? 'global/pg_control was not dropped or could not be decoded.' : controldata.trimEnd(),
    '```',
    '',
    'Evidence (the pgpage incident report of the data directory):',
    '',
    markdown.trimEnd(),
    '',
  ];
  return lines.join('\n');
}

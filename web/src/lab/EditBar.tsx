// The page view's lab-mode controls: Edit toggle, Revert, Fix checksum, Download edited copy.
import type { LabEdit } from './useLabEdit';

export function EditBar({ lab }: { lab: LabEdit }) {
  const changed = (lab.editedOffsets?.size ?? 0) > 0;
  return (
    <div className="labbar" data-testid="lab-bar">
      <button type="button" data-testid="lab-edit" aria-pressed={lab.editing} onClick={lab.toggle}>
        {lab.editing ? 'Leave edit mode' : 'Edit (checksum lab)'}
      </button>
      {lab.editing && (
        <>
          <button type="button" data-testid="lab-revert" disabled={!changed} onClick={lab.revert}>
            Revert page
          </button>
          <button type="button" data-testid="lab-fix" disabled={lab.page?.computed == null || lab.page.computed === lab.page.stored} onClick={lab.fixChecksum}>
            Fix checksum
          </button>
          <button type="button" data-testid="lab-download" disabled={lab.editedPages === 0} onClick={lab.downloadEdited}>
            Download edited copy ({lab.editedPages} page{lab.editedPages === 1 ? '' : 's'} changed)
          </button>
          <span className="labhint">
            Type hex digits in the hex view to overwrite bytes of an in-memory copy (
            {changed ? `${lab.editedOffsets!.size} byte${lab.editedOffsets!.size === 1 ? '' : 's'} changed` : 'unchanged'}). Your file is never written.
          </span>
        </>
      )}
    </div>
  );
}

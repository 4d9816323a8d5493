//! The incident report (`pgpage::damage::report::ReportReader`) for the browser: told every path
//! and length of the dropped directory, it asks for byte ranges (`wanted`, as JSON), is given them
//! (`give`), and `finish` gives the report as JSON, Markdown and text, the same the CLI prints for
//! the same files. Given the dropped WAL read by a `WalScanner` watching its `wal_blocks`,
//! `set_wal` makes it the CLI's `report --wal`.

use pgpage::damage::report::{markdown, summary, text, BackupInput, Report, Request};
use wasm_bindgen::prelude::*;

/// The report's reader (see the module's doc).
#[wasm_bindgen]
pub struct ReportReader {
    inner: Option<pgpage::damage::report::ReportReader>,
}

/// A finished report.
#[wasm_bindgen]
pub struct ReportOutput {
    report: Report,
    json: String,
    /// `report --json --redact`.
    json_redacted: String,
    markdown: String,
    /// `report --markdown --redact`.
    markdown_redacted: String,
    /// `report --summary`, and with `--redact`.
    summary: String,
    summary_redacted: String,
    text: String,
    damaged: bool,
    storage_damage: Option<String>,
}

#[wasm_bindgen]
impl ReportOutput {
    /// `report --json` (docs/contracts.md, "report, the incident report").
    #[wasm_bindgen(getter)]
    pub fn json(&self) -> String {
        self.json.clone()
    }

    /// `report --json --redact`: the same blocks and evidence lines in the same order,
    /// without row data, for the exports (a picture of the screen among them) to say
    /// instead of `json`'s words.
    #[wasm_bindgen(getter)]
    pub fn json_redacted(&self) -> String {
        self.json_redacted.clone()
    }

    /// `report --markdown`.
    #[wasm_bindgen(getter)]
    pub fn markdown(&self) -> String {
        self.markdown.clone()
    }

    /// `report --markdown --redact`: without row data.
    #[wasm_bindgen(getter)]
    pub fn markdown_redacted(&self) -> String {
        self.markdown_redacted.clone()
    }

    /// `report --summary`: a few lines for a mailing-list post.
    #[wasm_bindgen(getter)]
    pub fn summary(&self) -> String {
        self.summary.clone()
    }

    /// `report --summary --redact`.
    #[wasm_bindgen(getter)]
    pub fn summary_redacted(&self) -> String {
        self.summary_redacted.clone()
    }

    #[wasm_bindgen(getter)]
    pub fn text(&self) -> String {
        self.text.clone()
    }

    /// Some block is damaged (the CLI's exit status 1).
    #[wasm_bindgen(getter)]
    pub fn damaged(&self) -> bool {
        self.damaged
    }

    /// Where to ask about storage damage instead of pgsql-bugs (`Report::storage_damage`).
    #[wasm_bindgen(getter)]
    pub fn storage_damage(&self) -> Option<String> {
        self.storage_damage.clone()
    }

    /// What the report tells a reader of each relation's rows (`Report::all_row_hints`), as
    /// JSON `{"base/5/16384": hints}`; one relation's hints go to `RowsReader::set_hints`.
    #[wasm_bindgen(getter)]
    pub fn row_hints(&self) -> Result<String, JsError> {
        serde_json::to_string(&self.report.all_row_hints()).map_err(crate::serialize_error)
    }

    /// The blocks whose WAL history the report wants, as `WalScanner::watch` takes them:
    /// (relfilenode, fork number, relation-wide block) triples.
    pub fn wal_blocks(&self) -> Vec<u32> {
        self.report
            .wal_blocks()
            .into_iter()
            .flat_map(|(rel, fork, block)| [rel, u32::from(fork), block])
            .collect()
    }

    /// Before `set_wal`: how the steps' `pgpage recover` names the WAL dropped beside the data
    /// directory (an archive's folder), as `report --wal` names what it was given.
    pub fn set_wal_given(&mut self, names: Vec<String>) {
        self.report.wal_given = names;
    }

    /// The report with what `scanner` (finished, watching `wal_blocks`) read: each damaged
    /// block's newest full-page image and the records after it, as `report --wal` says them.
    pub fn set_wal(&mut self, scanner: &crate::wal::WalScanner) -> Result<(), JsError> {
        let (history, version) = scanner.history_and_version();
        let history = history.ok_or_else(|| JsError::new("the WAL scanner watched no blocks"))?;
        self.report.set_wal(history, version);
        self.render()
    }

    /// The damaged blocks a base backup's page may stand in for, as JSON
    /// `[["base/5/16384", 3], ...]`: each one's segment file (relative to the data directory)
    /// and block within that file.
    pub fn backup_blocks(&self) -> Result<String, JsError> {
        serde_json::to_string(&self.report.backup_blocks()).map_err(crate::serialize_error)
    }

    /// The report with a base backup's pages of the damaged blocks, as `report --from` says
    /// them. `found`: JSON `[{"file", "block_in_file", "shown", "state", "error"}]`, one per
    /// block `backup_blocks` named, `state` one of `page` (its bytes are the next `block_size`
    /// bytes of `pages`), `short` (the backup's file does not reach the block), `absent` (the
    /// backup has no such file) or `error` (with why it could not be read).
    pub fn set_backup(&mut self, found: &str, pages: &[u8]) -> Result<(), JsError> {
        #[derive(serde::Deserialize)]
        struct Found {
            file: String,
            block_in_file: u32,
            shown: String,
            state: String,
            error: Option<String>,
        }
        let found: Vec<Found> = serde_json::from_str(found)
            .map_err(|e| JsError::new(&format!("the backup's pages: {e}")))?;
        let size = self.report.cluster.block_size.unwrap_or(8192) as usize;
        let mut at = 0usize;
        let mut inputs = Vec::with_capacity(found.len());
        for f in found {
            let page = match f.state.as_str() {
                "page" => {
                    let next = at.saturating_add(size);
                    let bytes = pages.get(at..next).ok_or_else(|| {
                        JsError::new("the backup's pages end before the pages named")
                    })?;
                    at = next;
                    Ok(Some(bytes.to_vec()))
                }
                "short" | "absent" => Ok(None),
                "error" => Err(f
                    .error
                    .unwrap_or_else(|| format!("could not read file \"{}\"", f.shown))),
                other => {
                    return Err(JsError::new(&format!(
                        "unknown backup page state {other:?}"
                    )))
                }
            };
            inputs.push(BackupInput {
                absent: f.state == "absent",
                file: f.file,
                block_in_file: f.block_in_file,
                shown: f.shown,
                page,
            });
        }
        self.report.set_backup(&inputs);
        self.render()
    }
}

impl ReportOutput {
    /// Every form of the report again, after the WAL or a backup added to it.
    fn render(&mut self) -> Result<(), JsError> {
        self.json = serde_json::to_string_pretty(&self.report).map_err(crate::serialize_error)?;
        let redacted = redacted(&self.report);
        self.json_redacted =
            serde_json::to_string_pretty(&redacted).map_err(crate::serialize_error)?;
        self.markdown = markdown(&self.report);
        self.markdown_redacted = markdown(&redacted);
        self.summary = summary(&self.report);
        self.summary_redacted = summary(&redacted);
        self.text = text(&self.report);
        self.damaged = self.report.damaged();
        self.storage_damage = self.report.storage_damage();
        Ok(())
    }
}

/// The report without row data ([`Report::redact`]).
fn redacted(report: &Report) -> Report {
    let mut r = report.clone();
    r.redact();
    r
}

#[wasm_bindgen]
impl ReportReader {
    /// `paths` relative to the data directory (`/`-separated, PG_VERSION and
    /// global/pg_control among them) or relation files alone; `lengths` their sizes in the
    /// same order; `only` the relation files to report on (undefined: all); `shown` how
    /// messages name the directory (its name and a `/`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        paths: Vec<String>,
        lengths: Vec<f64>,
        only: Option<Vec<String>>,
        shown: &str,
    ) -> Result<ReportReader, JsError> {
        if paths.len() != lengths.len() {
            return Err(JsError::new(&format!(
                "{} paths but {} lengths",
                paths.len(),
                lengths.len()
            )));
        }
        // A file's length is a whole number of bytes below 2^53 (Number.MAX_SAFE_INTEGER).
        let listed = paths
            .into_iter()
            .zip(lengths.iter().map(|&l| l.max(0.0) as u64))
            .collect();
        Ok(ReportReader {
            inner: Some(pgpage::damage::report::ReportReader::new(
                listed, only, shown,
            )),
        })
    }

    /// Before the first `wanted`: hold the pages against what `scanner` (finished, after its
    /// `flushed` said true) read of the directory's own WAL, as `pgpage report` does with a
    /// data directory's pg_wal; its older pages are reported as lost writes or stale
    /// restores. False when the scanner collected nothing.
    pub fn set_flushed(&mut self, scanner: &mut crate::wal::WalScanner) -> bool {
        match (self.inner.as_mut(), scanner.take_flushed()) {
            (Some(r), Some(f)) => {
                r.set_flushed(std::sync::Arc::new(f));
                true
            }
            _ => false,
        }
    }

    /// The next byte ranges to give, as JSON `[{"path", "offset", "len"}]`; `[]` when
    /// `finish` can be called.
    pub fn wanted(&mut self) -> Result<String, JsError> {
        let want = self
            .inner
            .as_mut()
            .map(pgpage::damage::report::ReportReader::wanted)
            .unwrap_or_default();
        serde_json::to_string(&want).map_err(crate::serialize_error)
    }

    /// The bytes of one range `wanted` asked for (fewer at the file's end), or `error` (why
    /// the file could not be read) with `bytes` undefined.
    pub fn give(
        &mut self,
        path: String,
        offset: f64,
        len: f64,
        bytes: Option<Vec<u8>>,
        error: Option<String>,
    ) {
        let request = Request {
            path,
            offset: offset.max(0.0) as u64,
            len: len.max(0.0) as u64,
        };
        let given = match bytes {
            Some(b) => Ok(b),
            None => {
                Err(error.unwrap_or_else(|| format!("could not read file \"{}\"", request.path)))
            }
        };
        if let Some(r) = self.inner.as_mut() {
            r.give(&request, given);
        }
    }

    /// The report; throws why none can be made (a file given alone that is not a relation
    /// file, a PG_VERSION of a version pgpage does not read), or when called twice.
    pub fn finish(&mut self) -> Result<ReportOutput, JsError> {
        let reader = self
            .inner
            .take()
            .ok_or_else(|| JsError::new("the report reader has finished already"))?;
        let report = reader.finish().map_err(|e| JsError::new(&e))?;
        let without = redacted(&report);
        Ok(ReportOutput {
            json: serde_json::to_string_pretty(&report).map_err(crate::serialize_error)?,
            json_redacted: serde_json::to_string_pretty(&without)
                .map_err(crate::serialize_error)?,
            markdown: markdown(&report),
            markdown_redacted: markdown(&without),
            summary: summary(&report),
            summary_redacted: summary(&without),
            text: text(&report),
            damaged: report.damaged(),
            storage_damage: report.storage_damage(),
            report,
        })
    }
}

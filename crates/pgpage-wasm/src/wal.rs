//! The WAL's full-page images for the browser: a reader fed segment by segment, chunk by
//! chunk, so a 1 GB pg_wal is never held whole. It keeps each image's place in the segments,
//! not its bytes; a page is restored from the bytes the caller reads again from those places.

use pgpage::wal::{
    fork_name, image_pieces, lsn_text, restore_image, segment_plan, BlockImage, Piece,
    RelFileLocator, WalOptions, WalReader, WalRecord,
};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The order to read segment files in (indexes into `names`): by segment, the higher timeline
/// of a segment present twice, other names last.
#[wasm_bindgen]
pub fn wal_segment_plan(names: Vec<String>) -> Vec<u32> {
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    segment_plan(&refs)
        .into_iter()
        .filter_map(|i| u32::try_from(i).ok())
        .collect()
}

struct Image {
    lsn: u64,
    end_lsn: u64,
    timeline: u32,
    locator: RelFileLocator,
    fork: u8,
    block: u32,
    image: BlockImage,
    pieces: Vec<Piece>,
}

/// `pgpage fpi --json`'s image entry (CONTRACTS.md `fpi`, with the CLI's extra keys).
#[derive(Serialize)]
struct ImageJson<'a> {
    lsn: String,
    end_lsn: String,
    timeline: u32,
    tablespace_oid: u32,
    database_oid: u32,
    relfilenode: u32,
    fork: &'a str,
    block: u32,
    compression: &'a str,
    hole_offset: u16,
    hole_length: u16,
    apply: bool,
}

#[derive(Serialize)]
struct ProblemJson<'a> {
    code: &'a str,
    evidence: pgpage::findings::Evidence,
    segment: u32,
    lsn: Option<String>,
    message: &'a str,
}

#[wasm_bindgen]
pub struct WalScanner {
    reader: WalReader,
    images: Vec<Image>,
    block_size: u32,
}

#[wasm_bindgen]
impl WalScanner {
    /// `system_identifier`: pg_control's, as decimal text, or empty when unknown; `block_size`:
    /// the cluster's data block size (8192 unless pg_control says otherwise).
    #[wasm_bindgen(constructor)]
    pub fn new(system_identifier: &str, block_size: u32) -> Result<WalScanner, JsError> {
        let system_identifier = match system_identifier {
            "" => None,
            s => Some(
                s.parse::<u64>()
                    .map_err(|_| JsError::new(&format!("{s} is not a system identifier")))?,
            ),
        };
        Ok(WalScanner {
            reader: WalReader::new(WalOptions {
                system_identifier,
                block_size,
            }),
            images: Vec::new(),
            block_size,
        })
    }

    /// The next segment of `wal_segment_plan`'s order, by its file name.
    pub fn begin_segment(&mut self, name: &str) {
        self.reader.begin_segment(Some(name));
    }

    /// The segment's next bytes, in order, in chunks of any size.
    pub fn feed(&mut self, chunk: &[u8]) {
        let images = &mut self.images;
        self.reader.feed(chunk, &mut |rec: &WalRecord<'_>| {
            for b in rec.blocks {
                if let Some(image) = b.image {
                    images.push(Image {
                        lsn: rec.lsn,
                        end_lsn: rec.end_lsn,
                        timeline: rec.timeline,
                        locator: b.locator,
                        fork: b.fork,
                        block: b.block,
                        image,
                        pieces: image_pieces(rec.pieces, image.offset, u32::from(image.length)),
                    });
                }
            }
        });
    }

    pub fn end_segment(&mut self) {
        self.reader.end_segment();
    }

    /// After the last segment.
    pub fn finish(&mut self) {
        self.reader.finish();
    }

    #[wasm_bindgen(getter)]
    pub fn image_count(&self) -> u32 {
        u32::try_from(self.images.len()).unwrap_or(u32::MAX)
    }

    /// Every image, in WAL order, as `pgpage fpi --json` lists them.
    pub fn images_json(&self) -> Result<String, JsError> {
        let list: Vec<ImageJson<'_>> = self
            .images
            .iter()
            .map(|i| ImageJson {
                lsn: lsn_text(i.lsn),
                end_lsn: lsn_text(i.end_lsn),
                timeline: i.timeline,
                tablespace_oid: i.locator.spc_oid,
                database_oid: i.locator.db_oid,
                relfilenode: i.locator.rel_number,
                fork: fork_name(i.fork).unwrap_or("unknown"),
                block: i.block,
                compression: i.image.compression.as_str(),
                hole_offset: i.image.hole_offset,
                hole_length: i.image.hole_length,
                apply: i.image.apply,
            })
            .collect();
        serde_json::to_string(&list).map_err(|e| JsError::new(&e.to_string()))
    }

    /// The problems met, each named by its finding, as `pgpage fpi --json` lists them
    /// (`segment` is the index in feeding order).
    pub fn problems_json(&self) -> Result<String, JsError> {
        let list: Vec<ProblemJson<'_>> = self
            .reader
            .problems()
            .iter()
            .map(|p| ProblemJson {
                code: p.finding.code(),
                evidence: p.finding.evidence(),
                segment: p.segment,
                lsn: p.lsn.map(lsn_text),
                message: &p.detail,
            })
            .collect();
        serde_json::to_string(&list).map_err(|e| JsError::new(&e.to_string()))
    }

    /// Where image `index`'s stored bytes are: `[segment, offset, length]` triples, in order.
    pub fn image_pieces(&self, index: u32) -> Result<Vec<u32>, JsError> {
        let image = self.image(index)?;
        Ok(image
            .pieces
            .iter()
            .flat_map(|p| [p.segment, p.offset, p.len])
            .collect())
    }

    /// Image `index`'s page, restored from its stored bytes (the pieces, concatenated).
    pub fn restore(&self, index: u32, stored: &[u8]) -> Result<Vec<u8>, JsError> {
        let image = self.image(index)?;
        restore_image(&image.image, stored, self.block_size).map_err(|f| {
            JsError::new(&format!(
                "{}: {} at {}",
                f.code(),
                f.message(),
                lsn_text(image.lsn)
            ))
        })
    }
}

impl WalScanner {
    fn image(&self, index: u32) -> Result<&Image, JsError> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.images.get(i))
            .ok_or_else(|| JsError::new(&format!("no image {index}")))
    }
}

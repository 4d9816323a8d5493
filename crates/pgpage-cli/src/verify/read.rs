//! Reading the files: cut into large page-aligned chunks, grouped into batches for the pool,
//! each chunk read with pread into a page-aligned buffer and scanned by the core (one
//! `FileScan` per chunk, merged in order by the report). A file's geometry (block size, byte
//! order) is settled once, by its cluster's pg_control or the core's file_geometry on the
//! file's head, by whichever thread reaches the file first.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use pgpage::am::maps::walk::ForkMaps;
use pgpage::file::scan::FileScan;
use pgpage::file::{
    detect_block_size, file_geometry, parse_relation_file_name, FileExtent, Geometry,
    GeometryChoice, DETECT_HEAD_BYTES,
};
use pgpage::page::kind::Fork;
use pgpage::{BlockSize, PageStatus};

use super::amcheck::Checked;
use super::cluster::Cluster;
use super::walk::{FileJob, Item};
use crate::args::io_reason;
use crate::input::{open_regular, read_full_at, read_head, AlignedBuf};

/// Bytes read at once: a multiple of every block size, so chunks always hold whole pages,
/// and large enough that syscalls and hand-overs between threads cost nothing (bench/NOTES.md).
const CHUNK_BYTES: usize = 1 << 22;
// The first chunk of a file holds all that geometry detection looks at, and chunks end on
// page boundaries whatever the block size.
const _: () = assert!(CHUNK_BYTES >= DETECT_HEAD_BYTES && CHUNK_BYTES.is_multiple_of(32768));
/// Most units in a batch: a data directory's many small files are handed over together.
const UNITS_PER_BATCH: usize = 256;

/// A range of one file's bytes that one thread reads and verifies.
pub struct Unit {
    pub item: usize,
    pub offset: u64,
    pub len: usize,
    pub first: bool,
    pub last: bool,
}

/// A file's geometry and length in pages.
#[derive(Clone, Copy)]
pub struct Prepared {
    pub geometry: Geometry,
    pub extent: FileExtent,
    /// The block size the file's own pages claim, where it differs from the cluster's
    /// pg_control, which the file is read with.
    pub pages_block_size: Option<BlockSize>,
}

/// A page as `--all` lists it before the file's verdict: its status with checksums on.
#[derive(Clone, Copy)]
pub struct ListedPage {
    pub block: u32,
    pub status: PageStatus,
    pub stored: u16,
    /// None for new pages, whose checksum the server never computes.
    pub computed: Option<u16>,
}

/// What one unit came to.
#[derive(Default)]
pub struct UnitResult {
    /// The file's geometry, or why it could not be settled; on every unit, so the printer
    /// has it at the file's first.
    pub prep: Option<Result<Prepared, String>>,
    /// The unit's pages, scanned; the report merges a file's scans and finishes them.
    pub scan: Option<FileScan>,
    /// With `--all`, every page of the unit.
    pub pages: Vec<ListedPage>,
    /// Bytes read, for progress.
    pub read: u64,
    /// Why the unit stopped short.
    pub error: Option<String>,
}

/// The work of one run: the files, cut into units and batches.
pub struct Plan<'a> {
    pub items: &'a [Item],
    pub clusters: &'a [Cluster],
    pub units: Vec<Unit>,
    pub batches: Vec<Range<usize>>,
    preps: Vec<OnceLock<Result<Prepared, String>>>,
    /// Per item: its relation's maps, for a main fork given with its `_vm` or `_fsm`.
    map_of: Vec<Option<usize>>,
    maps: Vec<MapSlot>,
    choice: GeometryChoice,
    keep_all: bool,
    /// With `--amcheck`, per item: its relation as the structural checks see it.
    pub checked: Vec<Option<Arc<Checked>>>,
}

/// A relation's `_vm` and `_fsm` files given beside its main fork: read whole by the first
/// unit of the heap that needs them (a VM page covers 32,672 heap pages, an FSM leaf byte
/// one), shared by the units of its segments, and dropped after the last.
struct MapSlot {
    vm: Option<PathBuf>,
    fsm: Option<PathBuf>,
    /// Units of the main fork still to check, and the maps while some are.
    state: Mutex<(usize, Option<Arc<ForkMaps>>)>,
}

impl MapSlot {
    fn take(&self, geometry: Geometry) -> Option<Arc<ForkMaps>> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (left, maps) = &mut *state;
        let got = match maps {
            Some(m) => Some(Arc::clone(m)),
            None if *left > 0 => {
                // A map fork that cannot be read is reported as its own file is verified;
                // the heap is then judged against the other map only.
                let vm = self.vm.as_deref().and_then(|p| std::fs::read(p).ok());
                let fsm = self.fsm.as_deref().and_then(|p| std::fs::read(p).ok());
                let m = (vm.is_some() || fsm.is_some()).then(|| {
                    Arc::new(ForkMaps::new(
                        vm.as_deref(),
                        fsm.as_deref(),
                        geometry.block_size,
                    ))
                });
                maps.clone_from(&m);
                m
            }
            None => None,
        };
        *left = left.saturating_sub(1);
        if *left == 0 {
            *maps = None;
        }
        got
    }
}

/// Groups each main fork with the `_vm` and `_fsm` files of the same relation (same
/// directory, same relfilenode) among the items.
fn relation_maps(items: &[Item], units: &[Unit]) -> (Vec<Option<usize>>, Vec<MapSlot>) {
    type Key<'p> = (&'p Path, u32);
    fn key(job: &FileJob) -> Option<(Key<'_>, Fork)> {
        let name = job.path.file_name()?.to_str()?;
        let rel = parse_relation_file_name(name)?;
        Some(((job.path.parent()?, rel.relfilenode), rel.fork))
    }
    let mut forks: HashMap<Key, (Option<&Path>, Option<&Path>)> = HashMap::new();
    for item in items {
        if let Item::File(job) = item {
            match key(job) {
                Some((k, Fork::Vm)) => forks.entry(k).or_default().0 = Some(&job.path),
                Some((k, Fork::Fsm)) => forks.entry(k).or_default().1 = Some(&job.path),
                _ => {}
            }
        }
    }
    let mut slots: Vec<MapSlot> = Vec::new();
    let mut slot_of: HashMap<Key, usize> = HashMap::new();
    let map_of: Vec<Option<usize>> = items
        .iter()
        .map(|item| {
            let Item::File(job) = item else { return None };
            let (k, Fork::Main) = key(job)? else {
                return None;
            };
            let &(vm, fsm) = forks.get(&k)?;
            Some(*slot_of.entry(k).or_insert_with(|| {
                slots.push(MapSlot {
                    vm: vm.map(Path::to_path_buf),
                    fsm: fsm.map(Path::to_path_buf),
                    state: Mutex::new((0, None)),
                });
                slots.len().saturating_sub(1)
            }))
        })
        .collect();
    for unit in units {
        if let Some(slot) = map_of
            .get(unit.item)
            .copied()
            .flatten()
            .and_then(|i| slots.get_mut(i))
        {
            let state = slot.state.get_mut().unwrap_or_else(|e| e.into_inner());
            state.0 = state.0.saturating_add(1);
        }
    }
    (map_of, slots)
}

impl<'a> Plan<'a> {
    pub fn new(
        items: &'a [Item],
        clusters: &'a [Cluster],
        choice: GeometryChoice,
        keep_all: bool,
    ) -> Plan<'a> {
        let units = split_into_units(items);
        let batches = batch_units(&units);
        let (map_of, maps) = relation_maps(items, &units);
        Plan {
            items,
            clusters,
            units,
            batches,
            preps: items.iter().map(|_| OnceLock::new()).collect(),
            map_of,
            maps,
            choice,
            keep_all,
            checked: Vec::new(),
        }
    }

    /// The data directory a file was found in.
    pub fn cluster(&self, job: &FileJob) -> Option<&Cluster> {
        job.cluster.and_then(|i| self.clusters.get(i))
    }

    /// With `--amcheck`, item `item`'s relation as the structural checks see it.
    pub fn checked(&self, item: usize) -> Option<&Checked> {
        self.checked.get(item)?.as_deref()
    }

    /// The units of batch `index`.
    pub fn batch(&self, index: usize) -> &[Unit] {
        self.batches
            .get(index)
            .and_then(|b| self.units.get(b.clone()))
            .unwrap_or_default()
    }

    /// Reads and verifies every unit of batch `index`.
    pub fn work(&self, reader: &mut Reader, index: usize) -> Vec<UnitResult> {
        self.batch(index)
            .iter()
            .map(|unit| match self.items.get(unit.item) {
                Some(Item::File(job)) => self.verify_unit(reader, unit, job),
                _ => UnitResult::default(),
            })
            .collect()
    }

    fn verify_unit(&self, reader: &mut Reader, unit: &Unit, job: &FileJob) -> UnitResult {
        if reader.open.as_ref().map(|(i, _)| *i) != Some(unit.item) {
            // Opened read-only: verification never writes to its input.
            reader.open = Some((unit.item, open_regular(&job.path)));
        }
        let (Some((_, file)), Some(cell), Some(data)) = (
            reader.open.as_ref(),
            self.preps.get(unit.item),
            reader.buf.as_mut().get_mut(..unit.len),
        ) else {
            return UnitResult::default();
        };
        let cannot_open =
            |e: &io::Error| format!("could not open file \"{}\": {}", job.display, io_reason(e));
        // The thread that holds the file's first chunk detects from that chunk, which it then
        // verifies without reading it again.
        let mut first_read: Option<(usize, Option<io::Error>)> = None;
        let cluster = self.cluster(job);
        let prep = cell
            .get_or_init(|| {
                let f = file.as_ref().map_err(cannot_open)?;
                // What the user chose is not checked against the pages; pg_control is.
                if self.choice.block_size.is_some() && self.choice.endian.is_some() {
                    return prepare(self.choice, None, job, &[]);
                }
                if unit.offset == 0 {
                    let (got, err) = read_full_at(f, data, 0);
                    let head = data.get(..got.min(DETECT_HEAD_BYTES)).unwrap_or_default();
                    let prep = prepare(self.choice, cluster, job, head);
                    first_read = Some((got, err));
                    return prep;
                }
                match read_head(f, job.len) {
                    Ok(head) => prepare(self.choice, cluster, job, &head),
                    Err(e) => Err(format!(
                        "could not read file \"{}\": {}",
                        job.display,
                        io_reason(&e)
                    )),
                }
            })
            .clone();
        let mut result = UnitResult {
            prep: Some(prep.clone()),
            ..UnitResult::default()
        };
        let Ok(prep) = prep else {
            return result;
        };
        let file = match file {
            Ok(f) => f,
            // Another thread opened it and settled its geometry; this open failed.
            Err(e) => {
                result.error = Some(cannot_open(e));
                return result;
            }
        };
        let (got, err) = first_read.unwrap_or_else(|| read_full_at(file, data, unit.offset));
        result.read = got as u64;
        let size = u64::from(prep.geometry.block_size.bytes());
        let first_block = unit.offset.checked_div(size).unwrap_or(0);
        let pages_left = u64::from(prep.extent.blocks).saturating_sub(first_block);
        let whole_len = (got as u64).min(pages_left.saturating_mul(size));
        let (Ok(first), Some(whole)) = (
            u32::try_from(first_block),
            usize::try_from(whole_len).ok().and_then(|n| data.get(..n)),
        ) else {
            return result;
        };
        // A file's length was settled when its scan was planned: FileScan::new fails only
        // where prepare already did.
        let Ok(mut scan) = FileScan::new(prep.geometry, job.segno, job.len) else {
            return result;
        };
        let slot = self.map_of.get(unit.item).copied().flatten();
        if let Some(maps) = slot
            .and_then(|i| self.maps.get(i))
            .and_then(|s| s.take(prep.geometry))
        {
            scan.set_maps(maps);
        }
        if let Some(c) = self.checked(unit.item) {
            scan.set_structure(Arc::clone(&c.structure));
        }
        if self.keep_all {
            let pages = &mut result.pages;
            let mut block = first;
            scan.chunk_verdicts(whole, first, |v| {
                pages.push(ListedPage {
                    block,
                    status: v.status,
                    stored: v.stored,
                    computed: v.computed,
                });
                block = block.saturating_add(1);
            });
        } else {
            scan.chunk(whole, first);
        }
        result.scan = Some(scan);
        if got < unit.len {
            let at = unit.offset.saturating_add(got as u64);
            let block = at.checked_div(size).unwrap_or(0);
            let partial = at.checked_rem(size).unwrap_or(0);
            let display = &job.display;
            result.error = Some(match err {
                Some(e) => format!(
                    "could not read block {block} in file \"{display}\": {}",
                    io_reason(&e)
                ),
                None => format!(
                    "could not read block {block} in file \"{display}\": read {partial} of {size} \
                     (the file shrank while being read)"
                ),
            });
        }
        result
    }
}

/// What one thread keeps between units: its read buffer and the file it has open.
pub struct Reader {
    buf: AlignedBuf,
    open: Option<(usize, io::Result<File>)>,
}

impl Reader {
    pub fn new() -> Reader {
        Reader {
            buf: AlignedBuf::new(CHUNK_BYTES),
            open: None,
        }
    }
}

/// Settles a file's geometry: block size and byte order as chosen, as the cluster's
/// pg_control gives them, or as the core detects them from the head of the file; and its
/// length in pages. A file whose pages claim another block size than pg_control's is read
/// with pg_control's (as the server reads it) and the pages' claim kept to be said.
fn prepare(
    choice: GeometryChoice,
    cluster: Option<&Cluster>,
    job: &FileJob,
    head: &[u8],
) -> Result<Prepared, String> {
    let not_a_relation = |why| format!("file \"{}\" is {why}", job.display);
    let wanted = cluster.map_or(choice, |c| c.geometry_choice(choice));
    let geometry = file_geometry(head, wanted, job.named_like_relation).map_err(not_a_relation)?;
    // Only pages whose headers claim a size speak: all-new pages say nothing.
    let pages_block_size = if wanted.block_size.is_some() && choice.block_size.is_none() {
        detect_block_size(head, geometry.endian).filter(|&d| d != geometry.block_size)
    } else {
        None
    };
    let extent = FileExtent::of_len(job.len, geometry.block_size).ok_or_else(|| {
        format!(
            "file \"{}\" holds more blocks than a block number can count",
            job.display
        )
    })?;
    Ok(Prepared {
        geometry,
        extent,
        pages_block_size,
    })
}

/// Cuts files into CHUNK_BYTES ranges; every item gets at least one unit so that it is
/// reported in order.
fn split_into_units(items: &[Item]) -> Vec<Unit> {
    let mut units = Vec::new();
    let chunk = CHUNK_BYTES as u64;
    for (item, it) in items.iter().enumerate() {
        let len = it.file_len();
        let mut offset = 0u64;
        loop {
            let this = len.saturating_sub(offset).min(chunk);
            let next = offset.saturating_add(this);
            units.push(Unit {
                item,
                offset,
                len: usize::try_from(this).unwrap_or(CHUNK_BYTES),
                first: offset == 0,
                last: next >= len,
            });
            if next >= len {
                break;
            }
            offset = next;
        }
    }
    units
}

/// Groups consecutive units into batches of about CHUNK_BYTES, so that a data directory's
/// many small files cost one hand-over between threads per batch, not one per file.
fn batch_units(units: &[Unit]) -> Vec<Range<usize>> {
    let mut batches = Vec::new();
    let (mut start, mut bytes) = (0usize, 0usize);
    for (i, unit) in units.iter().enumerate() {
        bytes = bytes.saturating_add(unit.len);
        let end = i.saturating_add(1);
        if bytes >= CHUNK_BYTES
            || end.saturating_sub(start) >= UNITS_PER_BATCH
            || end == units.len()
        {
            batches.push(start..end);
            (start, bytes) = (end, 0);
        }
    }
    batches
}

//! The plain hint structs the access methods' checks take, built here from what only a data
//! directory tells (pg_control, the catalogs, pg_xact): a decoder never reads a catalog or
//! control type itself.

use crate::am::heap::check::HeapContext;
use crate::cluster::catalog::names::NamedRelation;
use crate::cluster::control::{ControlFile, ControlValue, DB_SHUTDOWNED};
use crate::tuple::visibility::TransactionLog;

/// The context of a heap from its pg_class row (relnatts, relfrozenxid, relminmxid) and
/// its cluster's pg_control; None when pg_control lacks the checkpoint's xids.
pub fn heap_context<'a>(
    control: &ControlFile,
    relation: &NamedRelation,
    xact: Option<&'a TransactionLog>,
) -> Option<HeapContext<'a>> {
    let text = |name| match control.get(name) {
        Some(ControlValue::Text(t)) => Some(t.as_str()),
        _ => None,
    };
    let num = |name| text(name)?.parse::<u32>().ok();
    // pg_control_checkpoint's next_xid: "epoch:xid".
    let (epoch, xid) = text("next_xid")?.split_once(':')?;
    let next_full_xid =
        (u64::from(epoch.parse::<u32>().ok()?) << 32) | u64::from(xid.parse::<u32>().ok()?);
    Some(HeapContext {
        relnatts: u16::try_from(relation.relnatts).ok()?,
        pg_control_version: control.pg_control_version,
        relfrozenxid: relation.relfrozenxid,
        relminmxid: relation.relminmxid,
        next_full_xid,
        oldest_xid: num("oldest_xid")?,
        oldest_multi: num("oldest_multi_xid")?,
        next_multi: num("next_multixact_id")?,
        next_known: control.state == DB_SHUTDOWNED,
        xact: xact.filter(|log| log.has_xact()),
    })
}
